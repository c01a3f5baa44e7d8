// Solution, chapter 5 (fine-tuned): a bigger tile, loads vectorized and all issued before the
// first shared-memory store, index arithmetic hoisted, loops unrolled.
//
// Against chapter 4: a block of 32x8 threads now moves a 64x64 tile, 16 elements per thread.
// Where the tile lies wholly inside A and the data allow it (A 8-byte aligned and lda even:
// checked once on the host), each thread issues its eight 8-byte loads (float2) back to
// back into registers before storing any of them, so 64 bytes per thread are in flight instead
// of chapter 4's 16: Little's law (bytes in flight = latency x bandwidth) is met with fewer
// resident warps. The two halves of each float2 are stored in an order that keeps the 32 lanes
// on 32 different banks (lanes 16-31 store .y first). The B side stays scalar: each warp store
// is 32 consecutive floats (128 bytes, 4 full sectors), already ideal. Edge tiles, and data
// that cannot be vectorized, take a guarded scalar path: correct for every size.
// Layout and rules: exercises/exercise_transpose.hpp. Graded by: ./workbook grade ch05
#include "exercise_transpose.hpp"

#include "check.hpp"

#include <cstdint>

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kTile = 64;               // tile edge (rows and columns of A)
constexpr int kWarp = 32;               // threadIdx.x range
constexpr int kRows = 8;                // threadIdx.y range
constexpr int kSteps = kTile / kRows;   // 8 row steps per thread
constexpr int kHalves = kTile / kWarp;  // 2 column halves per row step

__global__ void __launch_bounds__(kWarp * kRows)
transpose_tuned(const float* __restrict__ A, int rows, int cols, int lda, float* __restrict__ B, int ldb,
                long long tiles_x, long long ntiles, bool vec_ok) {
    __shared__ float tile[kTile][kTile + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
        const long long r0 = (t / tiles_x) * kTile;
        const long long c0 = (t % tiles_x) * kTile;
        const bool interior = r0 + kTile <= rows && c0 + kTile <= cols;
        if (interior && vec_ok) {
            const float* src = A + (r0 + ty) * lda + c0 + 2 * tx;
            float2 v[kSteps];
#pragma unroll
            for (int j = 0; j < kSteps; ++j)  // eight independent 8-byte loads in flight
                v[j] = __ldg(reinterpret_cast<const float2*>(src + static_cast<long long>(j) * kRows * lda));
            const int hi = tx >= kWarp / 2 ? 1 : 0;  // lanes 16-31 store .y first: no bank conflict
#pragma unroll
            for (int j = 0; j < kSteps; ++j) {
                float* row = &tile[ty + j * kRows][2 * tx];
                row[hi] = hi ? v[j].y : v[j].x;
                row[1 - hi] = hi ? v[j].x : v[j].y;
            }
        } else {
#pragma unroll
            for (int j = 0; j < kSteps; ++j) {
                const long long r = r0 + ty + j * kRows;
#pragma unroll
                for (int h = 0; h < kHalves; ++h) {
                    const long long c = c0 + tx + h * kWarp;
                    if (r < rows && c < cols) tile[ty + j * kRows][tx + h * kWarp] = A[r * lda + c];
                }
            }
        }
        __syncthreads();
        if (interior) {
            float* dst = B + (c0 + ty) * ldb + r0 + tx;
#pragma unroll
            for (int j = 0; j < kSteps; ++j)
#pragma unroll
                for (int h = 0; h < kHalves; ++h)
                    dst[static_cast<long long>(j) * kRows * ldb + h * kWarp] = tile[tx + h * kWarp][ty + j * kRows];
        } else {
#pragma unroll
            for (int j = 0; j < kSteps; ++j) {
                const long long br = c0 + ty + j * kRows;  // row of B = column of A
#pragma unroll
                for (int h = 0; h < kHalves; ++h) {
                    const long long bc = r0 + tx + h * kWarp;  // column of B = row of A
                    if (br < cols && bc < rows) B[br * ldb + bc] = tile[tx + h * kWarp][ty + j * kRows];
                }
            }
        }
        __syncthreads();
    }
}

}  // namespace

void transpose(const TransposeArgs& a, cudaStream_t stream) {
    check_transpose_args("ch05 transpose", a);
    if (a.rows == 0 || a.cols == 0) return;
    const bool vec_ok = reinterpret_cast<std::uintptr_t>(a.A) % sizeof(float2) == 0 && a.lda % 2 == 0;
    const long long tiles_x = (a.cols + kTile - 1) / kTile;
    const long long tiles_y = (a.rows + kTile - 1) / kTile;
    const dim3 block(kWarp, kRows);
    transpose_tuned<<<grid_for(tiles_x * tiles_y, 1), block, 0, stream>>>(a.A, a.rows, a.cols, a.lda, a.B, a.ldb,
                                                                          tiles_x, tiles_x * tiles_y, vec_ok);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
