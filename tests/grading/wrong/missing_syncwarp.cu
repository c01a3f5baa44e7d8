// Known-wrong submission (tests/grading, issue 15): a warp-level transpose. Each warp of a 32x8
// block owns a private 32x33 shared buffer and one 32x32 tile at a time: lane l stores column l of
// the tile's 32 rows, then reads row l of the buffer (column l of the tile, written by the other
// 31 lanes) and writes it as a row of B. No block barrier is needed, but the exchange between
// the lanes of a warp needs __syncwarp() between the stores and the loads: since Volta the lanes
// of a warp are not guaranteed to run in lockstep (independent thread scheduling). The output is
// usually right anyway, because the lanes do run together here.
// Expected: zero points in "sanitizer: racecheck" (racecheck reports the intra-warp hazard).
// grading: chapter=ch03_pattern zero=racecheck
#include "exercise_transpose.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kTile = 32;
constexpr int kWarps = 8;  // warps per block, one tile each at a time

__global__ void warp_tile_kernel(const float* __restrict__ A, int rows, int cols, int lda, float* __restrict__ B,
                                 int ldb, long long tiles_x, long long ntiles) {
    __shared__ float buf[kWarps][kTile][kTile + 1];
    const int lane = threadIdx.x, w = threadIdx.y;
    float (*tile)[kTile + 1] = buf[w];
    const long long stride = static_cast<long long>(gridDim.x) * kWarps;
    for (long long t = static_cast<long long>(blockIdx.x) * kWarps + w; t < ntiles; t += stride) {
        const long long r0 = (t / tiles_x) * kTile, c0 = (t % tiles_x) * kTile;
        const long long c = c0 + lane;
        for (int j = 0; j < kTile; ++j) {
            const long long r = r0 + j;
            if (r < rows && c < cols) tile[j][lane] = A[r * lda + c];
        }
        // BUG: __syncwarp() missing here: lane l reads tile[l][j], stored by lane j.
        const long long bc = r0 + lane;  // column of B = row of A
        for (int j = 0; j < kTile; ++j) {
            const long long br = c0 + j;  // row of B = column of A
            if (br < cols && bc < rows) B[br * ldb + bc] = tile[lane][j];
        }
        __syncwarp();  // every lane has read the buffer before the next tile overwrites it
    }
}

}  // namespace

void transpose(const TransposeArgs& a, cudaStream_t stream) {
    check_transpose_args("wrong missing_syncwarp transpose", a);
    if (a.rows == 0 || a.cols == 0) return;
    const long long tiles_x = (a.cols + kTile - 1) / kTile, tiles_y = (a.rows + kTile - 1) / kTile;
    warp_tile_kernel<<<grid_for(tiles_x * tiles_y, kWarps), dim3(kTile, kWarps), 0, stream>>>(
        a.A, a.rows, a.cols, a.lda, a.B, a.ldb, tiles_x, tiles_x * tiles_y);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
