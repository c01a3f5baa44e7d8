// Solution, chapter 4 (the access pattern): chapter 2's separable filter on padded, aligned rows
// with 16-byte loads.
//
// Chapter 4's step: the rows are padded to 128 bytes and start aligned, so both passes stage
// their tiles with float4 loads (a warp reads 512 contiguous bytes, a quarter of the load
// instructions of scalar staging) and test only whole float4s against the pitch, never single
// elements against the image inside a row. A block of 32 x 8 threads covers 8 rows x 128
// columns: thread (tx, ty) computes columns tx + 32 k (k < 4) of row ty, so the shared-memory
// reads of a warp are 32 neighbouring words (no bank conflict) and its stores 32 neighbouring
// floats. The row pass stages the 128 columns and a 32-column apron on each side (whole float4s:
// h <= 31), zeroing what lies at or past cols (the padding's contents must not count); it writes
// tmp, whose pitch is out_pitch, over the whole pitch. The column pass stages 8 + 2h rows of 128
// columns of tmp, zeros above and below the image, and writes only the rows x cols outputs.
// The taps stay in constant memory (chapter 2).
// Contract and rules: exercises/exercise_separable_padded.hpp.
#include "exercise_separable_padded.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kThreadsX = 32, kRows = 8, kPer = 4;  // a block: 8 rows x 128 columns
constexpr int kCols = kThreadsX * kPer;             // 128
constexpr int kApron = 32;                          // >= the largest halo, a whole number of float4s
constexpr int kHalo = kSeparableMaxFs / 2;

__constant__ float c_row_taps[kSeparableMaxFs];
__constant__ float c_col_taps[kSeparableMaxFs];

__global__ void row_pass(SeparableArgs a) {
    __shared__ __align__(16) float tile[kRows][kApron + kCols + kApron];
    const int tx = threadIdx.x, ty = threadIdx.y, h = a.fs / 2;
    const long long r = static_cast<long long>(blockIdx.y) * kRows + ty;
    const long long c0 = static_cast<long long>(blockIdx.x) * kCols;
    for (int v = tx; v < (kApron + kCols + kApron) / 4; v += kThreadsX) {
        const long long c = c0 - kApron + 4 * v;  // a multiple of 4: a whole float4 of the row
        float4 f = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (r < a.rows && c >= 0 && c < a.in_pitch) {
            f = *reinterpret_cast<const float4*>(a.in + r * a.in_pitch + c);
            if (c + 0 >= a.cols) f.x = 0.0f;  // the padding: zero, whatever it holds
            if (c + 1 >= a.cols) f.y = 0.0f;
            if (c + 2 >= a.cols) f.z = 0.0f;
            if (c + 3 >= a.cols) f.w = 0.0f;
        }
        *reinterpret_cast<float4*>(&tile[ty][4 * v]) = f;
    }
    __syncthreads();  // the row tile and its aprons are in
    if (r >= a.rows) return;
#pragma unroll
    for (int k = 0; k < kPer; ++k) {
        const int t = tx + kThreadsX * k;
        const long long c = c0 + t;
        if (c >= a.out_pitch) continue;
        float s = 0.0f;
        for (int l = 0; l < a.fs; ++l) s += c_row_taps[l] * tile[ty][kApron + t + l - h];
        a.tmp[r * a.out_pitch + c] = s;
    }
}

__global__ void column_pass(SeparableArgs a) {
    __shared__ __align__(16) float tile[kRows + 2 * kHalo][kCols];
    const int tx = threadIdx.x, ty = threadIdx.y, h = a.fs / 2;
    const long long r0 = static_cast<long long>(blockIdx.y) * kRows;
    const long long c0 = static_cast<long long>(blockIdx.x) * kCols;
    for (int t = ty; t < kRows + 2 * h; t += kRows) {
        const long long r = r0 + t - h, c = c0 + 4 * tx;
        float4 f = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (r >= 0 && r < a.rows && c < a.out_pitch) f = *reinterpret_cast<const float4*>(a.tmp + r * a.out_pitch + c);
        *reinterpret_cast<float4*>(&tile[t][4 * tx]) = f;
    }
    __syncthreads();  // the column tile and its halo are in
    const long long r = r0 + ty;
#pragma unroll
    for (int k = 0; k < kPer; ++k) {
        const long long c = c0 + tx + kThreadsX * k;
        if (r >= a.rows || c >= a.cols) continue;
        float s = 0.0f;
        for (int kk = 0; kk < a.fs; ++kk) s += c_col_taps[kk] * tile[ty + kk][tx + kThreadsX * k];
        a.out[r * a.out_pitch + c] = s;
    }
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
