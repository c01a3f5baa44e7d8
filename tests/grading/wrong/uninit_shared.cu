// Known-wrong submission (tests/grading, issue 15): chapter 3's 32x8-thread tiled transpose whose
// load loop still steps by 16 rows, left over from a 32x16 block: rows 8-15 and 24-31 of every
// shared tile are never loaded, and the store loop (stepping by 8, as it should) reads them
// anyway: a read of uninitialized shared memory. What it reads is whatever the shared memory
// held: the grader's NaN scrub on a block's first tile, the previous tile's rows under a looped
// grid. (compute-sanitizer's initcheck covers global memory only; the output shows this one.)
// Only matrices of at most 8 rows come out right (1x1, 3x5, 1x4097).
// Expected: zero points in every size class ("correctness: ...").
// grading: chapter=ch03_pattern zero=size
#include "exercise_transpose.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kTile = 32;
constexpr int kRows = 8;       // thread rows per block
constexpr int kLoadStep = 16;  // BUG: must be kRows

__global__ void uninit_kernel(const float* __restrict__ A, int rows, int cols, int lda, float* __restrict__ B,
                              int ldb, long long tiles_x, long long ntiles) {
    __shared__ float tile[kTile][kTile + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
        const long long r0 = (t / tiles_x) * kTile, c0 = (t % tiles_x) * kTile;
        const long long c = c0 + tx;
        for (int j = 0; j < kTile; j += kLoadStep) {
            const long long r = r0 + ty + j;
            if (r < rows && c < cols) tile[ty + j][tx] = A[r * lda + c];
        }
        __syncthreads();
        const long long bc = r0 + tx;
        for (int j = 0; j < kTile; j += kRows) {
            const long long br = c0 + ty + j;
            if (br < cols && bc < rows) B[br * ldb + bc] = tile[tx][ty + j];
        }
        __syncthreads();
    }
}

}  // namespace

void transpose(const TransposeArgs& a, cudaStream_t stream) {
    check_transpose_args("wrong uninit_shared transpose", a);
    if (a.rows == 0 || a.cols == 0) return;
    const long long tiles_x = (a.cols + kTile - 1) / kTile, tiles_y = (a.rows + kTile - 1) / kTile;
    uninit_kernel<<<grid_for(tiles_x * tiles_y, 1), dim3(kTile, kRows), 0, stream>>>(
        a.A, a.rows, a.cols, a.lda, a.B, a.ldb, tiles_x, tiles_x * tiles_y);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
