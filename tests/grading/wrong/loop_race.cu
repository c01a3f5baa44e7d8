// Known-wrong submission (tests/grading, issue 15): chapter 2's grid-stride tiled transpose
// WITHOUT the second barrier, the one between reading a tile's columns and refilling the tile
// with the block's next tile. Where a block walks several tiles, a warp that has finished reading
// tile t already stores tile t + gridDim.x into the shared array while slower warps still read
// tile t's columns: a race between loop iterations of one block. The first barrier is there, so
// a block that handles a single tile is right: with a grid of one block per tile (the graded
// sizes never reach grid_for's cap) a submission like this one scored 100 of 100 (issue 15).
// Expected: zero points in "sanitizer: racecheck" (racecheck reports the write-after-read
// hazard between iterations); the looped runs may also show it in the output.
// grading: chapter=ch02_shared zero=racecheck
#include "exercise_transpose.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kTile = 32;

__global__ void loop_race_kernel(const float* __restrict__ A, int rows, int cols, int lda, float* __restrict__ B,
                                 int ldb, long long tiles_x, long long ntiles) {
    __shared__ float tile[kTile][kTile];
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
        const long long r0 = (t / tiles_x) * kTile, c0 = (t % tiles_x) * kTile;
        const long long r = r0 + ty, c = c0 + tx;
        if (r < rows && c < cols) tile[ty][tx] = A[r * lda + c];
        __syncthreads();
        const long long br = c0 + ty, bc = r0 + tx;
        if (br < cols && bc < rows) B[br * ldb + bc] = tile[tx][ty];
        // BUG: __syncthreads() missing here: the next iteration overwrites the tile while other
        // warps may still be reading it.
    }
}

}  // namespace

void transpose(const TransposeArgs& a, cudaStream_t stream) {
    check_transpose_args("wrong loop_race transpose", a);
    if (a.rows == 0 || a.cols == 0) return;
    const long long tiles_x = (a.cols + kTile - 1) / kTile, tiles_y = (a.rows + kTile - 1) / kTile;
    loop_race_kernel<<<grid_for(tiles_x * tiles_y, 1), dim3(kTile, kTile), 0, stream>>>(
        a.A, a.rows, a.cols, a.lda, a.B, a.ldb, tiles_x, tiles_x * tiles_y);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
