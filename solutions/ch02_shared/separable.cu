// Solution, chapter 2 (shared memory): a separable filter as a row pass and a column pass.
//
// Chapter 2's convolution step, once per direction. The taps go to constant memory: every
// thread of a warp reads the same tap at the same time, which the constant cache broadcasts.
// The row pass stages, per block of 8 rows x 32 outputs, the 32 + 2h input values of each row
// (the tile and its halo, zeros outside the image) in shared memory and sums fs taps from
// there; the column pass does the same down the columns of tmp with an (8 + 2h) x 32 tile.
// Each input value is read from global memory about once per pass instead of fs times.
// Contract and rules: exercises/exercise_separable.hpp.
#include "exercise_separable.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kCols = 32, kRows = 8;  // outputs per block: threadIdx.x, threadIdx.y
constexpr int kHalo = kSeparableMaxFs / 2;

__constant__ float c_row_taps[kSeparableMaxFs];
__constant__ float c_col_taps[kSeparableMaxFs];

__global__ void row_pass(SeparableArgs a) {
    __shared__ float tile[kRows][kCols + 2 * kHalo];
    const int tx = threadIdx.x, ty = threadIdx.y, h = a.fs / 2;
    const long long r = static_cast<long long>(blockIdx.y) * kRows + ty;
    const long long c0 = static_cast<long long>(blockIdx.x) * kCols;
    for (int t = tx; t < kCols + 2 * h; t += kCols) {
        const long long c = c0 + t - h;
        tile[ty][t] = (r < a.rows && c >= 0 && c < a.cols) ? a.in[r * a.in_pitch + c] : 0.0f;
    }
    __syncthreads();  // the row tile and its halo are in
    if (r >= a.rows || c0 + tx >= a.cols) return;
    float s = 0.0f;
    for (int l = 0; l < a.fs; ++l) s += c_row_taps[l] * tile[ty][tx + l];
    a.tmp[r * a.cols + c0 + tx] = s;
}

__global__ void column_pass(SeparableArgs a) {
    __shared__ float tile[kRows + 2 * kHalo][kCols];
    const int tx = threadIdx.x, ty = threadIdx.y, h = a.fs / 2;
    const long long r0 = static_cast<long long>(blockIdx.y) * kRows;
    const long long c = static_cast<long long>(blockIdx.x) * kCols + tx;
    for (int t = ty; t < kRows + 2 * h; t += kRows) {
        const long long r = r0 + t - h;
        tile[t][tx] = (c < a.cols && r >= 0 && r < a.rows) ? a.tmp[r * a.cols + c] : 0.0f;
    }
    __syncthreads();  // the column tile and its halo are in
    const long long r = r0 + ty;
    if (r >= a.rows || c >= a.cols) return;
    float s = 0.0f;
    for (int k = 0; k < a.fs; ++k) s += c_col_taps[k] * tile[ty + k][tx];
    a.out[r * a.out_pitch + c] = s;
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
