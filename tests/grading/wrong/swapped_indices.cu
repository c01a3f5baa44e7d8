// Known-wrong submission (tests/grading): chapter 2's tiled transpose that reads the shared tile
// with the same indices it wrote (tile[ty][tx] in both phases): the tiles move to their
// transposed places but their contents are not transposed. Only 1x1 comes out right.
// Expected: zero correctness points in every class.
// grading: chapter=ch02_shared zero=size
#include "exercise_transpose.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

__global__ void swapped_kernel(const float* __restrict__ A, int rows, int cols, int lda, float* __restrict__ B,
                               int ldb, long long tiles_x) {
    __shared__ float tile[32][33];
    const long long r0 = (blockIdx.x / tiles_x) * 32, c0 = (blockIdx.x % tiles_x) * 32;
    const long long r = r0 + threadIdx.y, c = c0 + threadIdx.x;
    if (r < rows && c < cols) tile[threadIdx.y][threadIdx.x] = A[r * lda + c];
    __syncthreads();
    const long long br = c0 + threadIdx.y, bc = r0 + threadIdx.x;
    if (br < cols && bc < rows) B[br * ldb + bc] = tile[threadIdx.y][threadIdx.x];  // BUG: [tx][ty]
}

}  // namespace

void transpose(const TransposeArgs& a, cudaStream_t stream) {
    check_transpose_args("wrong swapped_indices transpose", a);
    if (a.rows == 0 || a.cols == 0) return;
    const long long tiles_x = (a.cols + 31) / 32, tiles_y = (a.rows + 31) / 32;
    swapped_kernel<<<static_cast<unsigned>(tiles_x * tiles_y), dim3(32, 32), 0, stream>>>(a.A, a.rows, a.cols, a.lda,
                                                                                          a.B, a.ldb, tiles_x);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
