// Solution, chapter 4 (access pattern): padding against bank conflicts, and a partition-aware
// (diagonal) block order, measured.
//
// Against chapter 3: the tile gets one extra column, tile[32][33]. A warp reading a tile column
// (tile[tx][j], tx = 0..31) then touches addresses 33 floats apart, banks (33 tx + j) mod 32 =
// (tx + j) mod 32: 32 different banks, one wavefront instead of 32 (White §3.2, Table 3.2).
//
// transpose_diagonal() adds the diagonal block ordering of Ruetsch & Micikevicius (White's
// reference [54]; White §3.1 on partition camping): block t takes tile row by = t mod tiles_y
// and tile column bx = (t / tiles_y + by) mod tiles_x, so blocks running at the same time write
// B rows far apart instead of queueing on one 256-byte partition, as on the Tesla T10. Modern
// GPUs hash addresses across channels, so whether it still helps is measured (the grader's
// calibration prints both), not assumed; transpose() keeps the plain row order.
// Layout and rules: exercises/exercise_transpose.hpp. Graded by: ./workbook grade ch04
#include "exercise_transpose.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kTile = 32;
constexpr int kRows = 8;

template <bool Diagonal>
__global__ void transpose_padded(const float* __restrict__ A, int rows, int cols, int lda,
                                 float* __restrict__ B, int ldb, long long tiles_x, long long tiles_y) {
    __shared__ float tile[kTile][kTile + 1];  // +1: a column read spans all 32 banks
    const int tx = threadIdx.x, ty = threadIdx.y;
    const long long ntiles = tiles_x * tiles_y;
    for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
        long long by, bx;
        if constexpr (Diagonal) {
            by = t % tiles_y;
            bx = (t / tiles_y + by) % tiles_x;  // a bijection: for each by, t / tiles_y covers 0..tiles_x-1
        } else {
            by = t / tiles_x;
            bx = t % tiles_x;
        }
        const long long r0 = by * kTile, c0 = bx * kTile;
        const long long c = c0 + tx;
#pragma unroll
        for (int j = 0; j < kTile; j += kRows) {
            const long long r = r0 + ty + j;
            if (r < rows && c < cols) tile[ty + j][tx] = A[r * lda + c];
        }
        __syncthreads();
        const long long bc = r0 + tx;
#pragma unroll
        for (int j = 0; j < kTile; j += kRows) {
            const long long br = c0 + ty + j;
            if (br < cols && bc < rows) B[br * ldb + bc] = tile[tx][ty + j];
        }
        __syncthreads();
    }
}

template <bool Diagonal>
void launch(const char* fn, const TransposeArgs& a, cudaStream_t stream) {
    check_transpose_args(fn, a);
    if (a.rows == 0 || a.cols == 0) return;
    const long long tiles_x = (a.cols + kTile - 1) / kTile;
    const long long tiles_y = (a.rows + kTile - 1) / kTile;
    const dim3 block(kTile, kRows);
    transpose_padded<Diagonal><<<grid_for(tiles_x * tiles_y, 1), block, 0, stream>>>(
        a.A, a.rows, a.cols, a.lda, a.B, a.ldb, tiles_x, tiles_y);
    WB_CHECK_LAUNCH();
}

}  // namespace

void transpose(const TransposeArgs& a, cudaStream_t stream) { launch<false>("ch04 transpose", a, stream); }

void transpose_diagonal(const TransposeArgs& a, cudaStream_t stream) {
    launch<true>("ch04 transpose_diagonal", a, stream);
}

}  // namespace wb::ex::WB_EX_NS
