// Exercise, chapter 4 (the access pattern): chapter 2's separable filter on padded, aligned rows
// with 16-byte loads.
//
// Contract, rules and the float64 reference: exercises/exercise_separable_padded.hpp (chapter 2's
// filter, exercise_separable.hpp; here pitches that are multiples of 32 floats, rows that start
// on 128 bytes, anything in the padding of in's rows, tmp of pitch out_pitch). What is given: the
// launcher (argument checks, the taps in constant memory, blocks of 32 x 8 threads that cover 8
// rows x 128 columns: 4 outputs per thread; the row pass over tmp's whole pitch, the column pass
// over the image). What you write: the two kernels, with chapter 4's step: stage each tile with
// float4 loads (a row starts aligned, so the float4 at a column that is a multiple of 4 lies
// wholly inside the pitch or wholly outside it: test whole float4s, not elements), and read the
// tile so that a warp's 32 threads read 32 neighbouring words (thread tx takes columns tx + 32 k,
// k < 4). The row pass needs an apron of h = fs / 2 <= 31 columns on each side (stage 32: whole
// float4s); zero every element at or past cols, whatever the padding holds. The column pass
// stages 8 + 2h rows of tmp (zeros above and below the image) and writes only the rows x cols
// outputs, never out's padding. Mind the barrier between staging and reading a tile.
#include "exercise_separable_padded.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kThreadsX = 32, kRows = 8, kPer = 4;  // a block: 8 rows x 128 columns
constexpr int kCols = kThreadsX * kPer;             // 128
[[maybe_unused]] constexpr int kApron = 32;         // >= the largest halo, a whole number of float4s
[[maybe_unused]] constexpr int kHalo = kSeparableMaxFs / 2;

__constant__ float c_row_taps[kSeparableMaxFs];
__constant__ float c_col_taps[kSeparableMaxFs];

__global__ void row_pass(SeparableArgs a) {
    (void)a;  // TODO: tmp(r, c) = sum_l c_row_taps[l] in(r, c + l - h) for c < out_pitch, staged with float4 loads
}

__global__ void column_pass(SeparableArgs a) {
    (void)a;  // TODO: out(r, c) = sum_k c_col_taps[k] tmp(r + k - h, c) for c < cols, staged with float4 loads
}

}  // namespace

void separable(const SeparableArgs& a, cudaStream_t stream) {
    check_separable_padded_args("ch04 separable_padded", a);
    if (a.rows == 0 || a.cols == 0) return;
    WB_CUDA(cudaMemcpyToSymbolAsync(c_row_taps, a.row_taps, a.fs * sizeof(float), 0, cudaMemcpyHostToDevice, stream));
    WB_CUDA(cudaMemcpyToSymbolAsync(c_col_taps, a.col_taps, a.fs * sizeof(float), 0, cudaMemcpyHostToDevice, stream));
    const dim3 block(kThreadsX, kRows);
    // The row pass covers the whole pitch of tmp (out_pitch); the column pass only the image.
    const dim3 rows_grid(static_cast<unsigned>((a.out_pitch + kCols - 1) / kCols), static_cast<unsigned>((a.rows + kRows - 1) / kRows));
    const dim3 cols_grid(static_cast<unsigned>((a.cols + kCols - 1) / kCols), static_cast<unsigned>((a.rows + kRows - 1) / kRows));
    row_pass<<<rows_grid, block, 0, stream>>>(a);
    WB_CHECK_LAUNCH();
    column_pass<<<cols_grid, block, 0, stream>>>(a);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
