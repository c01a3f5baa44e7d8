// Solution, chapter 2 (shared memory): the transpose staged through a 32x32 shared-memory tile.
//
// Against chapter 1: a block of 32x32 threads copies one 32x32 tile of A into shared memory with
// coalesced row reads, waits at a barrier, then writes the tile's columns as rows of B, so the
// writes are coalesced too (128 useful bytes per warp store instead of 32 sectors). Global
// traffic drops to the useful 2 x 4 x rows x cols bytes. What it does not fix: reading a column of
// the unpadded tile (tile[tx][ty], stride 32 floats) hits one bank 32 times (chapter 4).
// Every tile is guarded on its own: rows and cols need not be multiples of 32.
// Layout and rules: exercises/exercise_transpose.hpp. Graded by: ./workbook grade ch02
#include "exercise_transpose.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kTile = 32;

__global__ void transpose_tiled(const float* __restrict__ A, int rows, int cols, int lda,
                                float* __restrict__ B, int ldb, long long tiles_x, long long ntiles) {
    __shared__ float tile[kTile][kTile];
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
        const long long r0 = (t / tiles_x) * kTile;  // first row of A in this tile
        const long long c0 = (t % tiles_x) * kTile;  // first column of A in this tile
        const long long r = r0 + ty, c = c0 + tx;
        if (r < rows && c < cols) tile[ty][tx] = A[r * lda + c];
        __syncthreads();  // the tile is complete before anyone reads a column of it
        const long long br = c0 + ty;  // row of B = column of A
        const long long bc = r0 + tx;  // column of B = row of A
        if (br < cols && bc < rows) B[br * ldb + bc] = tile[tx][ty];
        __syncthreads();  // everyone has read the tile before the next iteration overwrites it
    }
}

}  // namespace

void transpose(const TransposeArgs& a, cudaStream_t stream) {
    check_transpose_args("ch02 transpose", a);
    if (a.rows == 0 || a.cols == 0) return;
    const long long tiles_x = (a.cols + kTile - 1) / kTile;
    const long long tiles_y = (a.rows + kTile - 1) / kTile;
    const dim3 block(kTile, kTile);
    transpose_tiled<<<grid_for(tiles_x * tiles_y, 1), block, 0, stream>>>(a.A, a.rows, a.cols, a.lda, a.B,
                                                                          a.ldb, tiles_x, tiles_x * tiles_y);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
