/// \file tuned/symv_small.cuh
/// \brief Chapter 5's SYMV below the crossover n: one kernel, no workspace, every element of the
///        stored triangle read twice (once for its row, once for its column).
///
/// Why: at small n a call's time is latency, not bytes. The KBLAS design (symv.cu) reads the
/// triangle once but then needs its partial results added by a second kernel (the deterministic
/// pass); the launch gap, the wait for the first kernel's last block and the pass's own round trip
/// are several microseconds, more than the whole triangle takes to stream at n = 1024 (2 MB float:
/// under 0.5 us at the read ceiling). Reading the triangle twice in one kernel costs a few more
/// bytes and saves that second launch, and each y(i) is summed by one block in a fixed order, so
/// the result is bit-identical run to run with no reduction pass. The default (chapter 6's
/// derivation, derive/symv.cpp) picks R = 8 where its grid is one wave (n <= 8 x resident blocks
/// x SMs: 1056 on an H200) and the triangle's second read costs less than the second kernel,
/// measured up to 1.6x the two kernels there and losing beyond; R = 16 (one
/// wave to 2112) is a launch option: faster in a cold call at float 1536-2048, slower in CG's
/// L2-resident iterations (docs/notes/symv.md, "SYMV at small n").
/// Layout: a block owns R = 8 (or 16) consecutive rows i0 ... i0 + R - 1 of y and kThreads = 1024
/// threads; below, R = 8 (R = 16: 64 column lanes, 64 threads per column).
///   - Row part, the stored elements of row i (lower: A(i, j), j <= i; upper: j >= i): thread t
///     takes row i0 + t % 8 and the columns t / 8, t / 8 + 128, ...: a warp's load reads 8
///     consecutive rows of 4 columns, four segments of 8 elements (32 bytes or more each: whole
///     sectors), so the strided row is read at full sector efficiency.
///   - Column part, the rest of row i read down column i (lower: A(k, i), k > i; upper: k < i):
///     the 128 threads t / 128 = c read column i0 + c, rows t % 128, t % 128 + 128, ...: coalesced.
///   - Every element of a row's sum meets in a fixed order: the row part over the 4 lanes of a warp
///     that share the row (shuffles), the column part over the warp (shuffles), then over the 32
///     warps in shared memory, in warp order, by thread r < 8.
/// Loads: about n / 128 of A per thread in all (n / 64 with R = 16; a row's two parts add to n
/// elements), in one loop whose step issues kUnroll of each part together: one DRAM round trip
/// per step, one step at n <= 1024 with R = 8. (Two loops, row part then column part, measured
/// 1.08x-1.21x slower at n = 1024: two round trips.)
#pragma once

#include "symv_common.cuh"
#include "symv_layout.hpp"

#include "model/symv.hpp"

namespace wb::tuned::small {

constexpr int kUnroll = model::kSymvPanelUnroll;  // kRows, kRowsWide, kThreads: symv_layout.hpp
constexpr int kWarps = kThreads / 32;

template <class T, int R = kRows>
__global__ void __launch_bounds__(kThreads)
symv_kernel(bool lower, int n, T alpha, const T* __restrict__ A, int lda, const T* __restrict__ x, T beta,
            T* __restrict__ y) {
    constexpr int kLanes = kThreads / R, kWarpsPerColumn = kLanes / 32;  // R rows per block
    static_assert(kLanes % 32 == 0 && 32 % R == 0, "a column's threads are whole warps; a warp holds whole rows");
    __shared__ T row_part[kWarps][R];
    __shared__ T col_part[kWarps];
    const int t = threadIdx.x, lane = t & 31, w = t >> 5;
    const int i0 = static_cast<int>(blockIdx.x) * R;
    // Row part: row i = i0 + r, columns j in the block's range [j_lo, j_hi) that row i stores.
    const int r = t % R, i = i0 + r;
    const int j_lo = lower ? 0 : i0, j_hi = lower ? min(i0 + R, n) : n;
    // Column part: column c = i0 + t / kLanes below (lower) or above (upper) its diagonal.
    const int c = i0 + t / kLanes;
    const int k_lo = lower ? i0 + 1 : 0, k_hi = lower ? n : min(i0 + R - 1, n);
    const T* Ai = A + min(i, n - 1);
    const T* Ac = A + static_cast<long long>(min(c, n - 1)) * lda;
    // Both parts in one loop, so that a step's loads of both are in flight together (one DRAM
    // round trip per step, not two): a block's rows near one end of the triangle have a long row
    // part and a short column part, and the other way round at the other end.
    T rs = 0, cs = 0;
    for (int j = j_lo + t / R, k = k_lo + t % kLanes; j < j_hi || k < k_hi;
         j += kLanes * kUnroll, k += kLanes * kUnroll) {
        T ar[kUnroll], xr[kUnroll], ac[kUnroll], xc[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            const int jj = j + u * kLanes, kk = k + u * kLanes;
            const bool row_stored = i < n && jj < j_hi && (lower ? jj <= i : jj >= i);
            const bool col_stored = c < n && kk < k_hi && (lower ? kk > c : kk < c);
            ar[u] = row_stored ? __ldg(Ai + static_cast<long long>(jj) * lda) : T(0);
            xr[u] = row_stored ? __ldg(x + jj) : T(0);
            ac[u] = col_stored ? __ldg(Ac + kk) : T(0);
            xc[u] = col_stored ? __ldg(x + kk) : T(0);
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            rs += ar[u] * xr[u];
            cs += ac[u] * xc[u];
        }
    }
    // A row's row-part sums: lanes r, r + R, ... of each warp.
#pragma unroll
    for (int off = R; off < 32; off <<= 1) rs += __shfl_xor_sync(0xffffffffu, rs, off);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) cs += __shfl_xor_sync(0xffffffffu, cs, off);
    if (lane < R) row_part[w][lane] = rs;
    if (lane == 0) col_part[w] = cs;
    __syncthreads();
    if (t < R && i0 + t < n) {
        T s = 0;
#pragma unroll 8
        for (int v = 0; v < kWarps; ++v) s += row_part[v][t];
#pragma unroll
        for (int v = 0; v < kWarpsPerColumn; ++v) s += col_part[t * kWarpsPerColumn + v];
        y[i0 + t] = beta == T(0) ? alpha * s : alpha * s + beta * y[i0 + t];
    }
}

}  // namespace wb::tuned::small
