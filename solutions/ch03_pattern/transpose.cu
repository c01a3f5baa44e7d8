// Solution, chapter 3 (computation pattern): several elements per thread.
//
// Against chapter 2: the same 32x32 tile, but a block of 32x8 threads moves it, each thread four
// elements (rows ty, ty+8, ty+16, ty+24), the pattern of Ruetsch & Micikevicius's transpose
// (White's reference [54]). A quarter of the threads per tile means a quarter of the index
// arithmetic and barrier waits per element, four independent loads in flight per thread, and
// blocks of 256 threads, so more of them (8 per SM) are resident and a barrier stalls fewer
// warps. The unpadded tile still has 32-way bank conflicts on its column reads (chapter 4).
// Layout and rules: exercises/exercise_transpose.hpp. Graded by: ./workbook grade ch03
#include "exercise_transpose.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kTile = 32;  // tile edge
constexpr int kRows = 8;   // thread rows per block: each thread moves kTile / kRows elements

__global__ void transpose_pattern(const float* __restrict__ A, int rows, int cols, int lda,
                                  float* __restrict__ B, int ldb, long long tiles_x, long long ntiles) {
    __shared__ float tile[kTile][kTile];
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
        const long long r0 = (t / tiles_x) * kTile;
        const long long c0 = (t % tiles_x) * kTile;
        const long long c = c0 + tx;
#pragma unroll
        for (int j = 0; j < kTile; j += kRows) {
            const long long r = r0 + ty + j;
            if (r < rows && c < cols) tile[ty + j][tx] = A[r * lda + c];
        }
        __syncthreads();
        const long long bc = r0 + tx;  // column of B = row of A
#pragma unroll
        for (int j = 0; j < kTile; j += kRows) {
            const long long br = c0 + ty + j;  // row of B = column of A
            if (br < cols && bc < rows) B[br * ldb + bc] = tile[tx][ty + j];
        }
        __syncthreads();
    }
}

}  // namespace

void transpose(const TransposeArgs& a, cudaStream_t stream) {
    check_transpose_args("ch03 transpose", a);
    if (a.rows == 0 || a.cols == 0) return;
    const long long tiles_x = (a.cols + kTile - 1) / kTile;
    const long long tiles_y = (a.rows + kTile - 1) / kTile;
    const dim3 block(kTile, kRows);
    transpose_pattern<<<grid_for(tiles_x * tiles_y, 1), block, 0, stream>>>(a.A, a.rows, a.cols, a.lda, a.B,
                                                                            a.ldb, tiles_x, tiles_x * tiles_y);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
