// Known-wrong submission (tests/grading): chapter 2's tiled transpose with no bounds checks, as
// if every size were a multiple of 32. Edge tiles read past A (the grader's NaN guard bands,
// so no crash) and write past B's rows and into its guard. Expected: zero correctness points in
// every class (each class has sizes that are no multiple of 32).
// grading: chapter=ch02_shared zero=size,memcheck
#include "exercise_transpose.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

__global__ void unguarded_kernel(const float* __restrict__ A, int lda, float* __restrict__ B, int ldb, long long tiles_x) {
    __shared__ float tile[32][32];
    const long long r0 = (blockIdx.x / tiles_x) * 32, c0 = (blockIdx.x % tiles_x) * 32;
    tile[threadIdx.y][threadIdx.x] = A[(r0 + threadIdx.y) * lda + c0 + threadIdx.x];  // BUG: no guard
    __syncthreads();
    B[(c0 + threadIdx.y) * ldb + r0 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];  // BUG: no guard
}

}  // namespace

void transpose(const TransposeArgs& a, cudaStream_t stream) {
    check_transpose_args("wrong unguarded_edge transpose", a);
    if (a.rows == 0 || a.cols == 0) return;
    const long long tiles_x = (a.cols + 31) / 32, tiles_y = (a.rows + 31) / 32;
    unguarded_kernel<<<static_cast<unsigned>(tiles_x * tiles_y), dim3(32, 32), 0, stream>>>(a.A, a.lda, a.B, a.ldb,
                                                                                            tiles_x);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
