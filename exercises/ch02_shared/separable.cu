// Exercise, chapter 2 (shared memory): a separable filter as a row pass and a column pass.
//
// Contract, rules and the float64 reference: exercises/exercise_separable.hpp. What is given:
// the launcher (argument checks, the taps copied to constant memory, both passes launched on
// blocks of 32 x 8 threads, one output each). What you write: the two kernels, with chapter 2's
// convolution step in each direction: a block stages the input its outputs need -- the tile and
// its halo of h = fs / 2 values on each side, zeros outside the image -- in shared memory, waits
// at a barrier, and sums the fs taps from shared memory, reading the taps from constant memory.
// The row pass writes tmp (pitch cols), the column pass reads it and writes out. Mind the
// halo at the image's edges, rows and cols that are no multiple of the block, and the pitches.
#include "exercise_separable.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kCols = 32, kRows = 8;  // outputs per block: threadIdx.x, threadIdx.y
[[maybe_unused]] constexpr int kHalo = kSeparableMaxFs / 2;  // the widest halo: size the shared tiles with it

__constant__ float c_row_taps[kSeparableMaxFs];
__constant__ float c_col_taps[kSeparableMaxFs];

__global__ void row_pass(SeparableArgs a) {
    (void)a;  // TODO: tmp(r, c) = sum_l c_row_taps[l] in(r, c + l - h), from a shared row tile with its halo
}

__global__ void column_pass(SeparableArgs a) {
    (void)a;  // TODO: out(r, c) = sum_k c_col_taps[k] tmp(r + k - h, c), from a shared column tile with its halo
}

}  // namespace

void separable(const SeparableArgs& a, cudaStream_t stream) {
    check_separable_args("ch02 separable", a);
    if (a.rows == 0 || a.cols == 0) return;
    WB_CUDA(cudaMemcpyToSymbolAsync(c_row_taps, a.row_taps, a.fs * sizeof(float), 0, cudaMemcpyHostToDevice, stream));
    WB_CUDA(cudaMemcpyToSymbolAsync(c_col_taps, a.col_taps, a.fs * sizeof(float), 0, cudaMemcpyHostToDevice, stream));
    const dim3 block(kCols, kRows);
    const dim3 grid(static_cast<unsigned>((a.cols + kCols - 1) / kCols), static_cast<unsigned>((a.rows + kRows - 1) / kRows));
    row_pass<<<grid, block, 0, stream>>>(a);
    WB_CHECK_LAUNCH();
    column_pass<<<grid, block, 0, stream>>>(a);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
