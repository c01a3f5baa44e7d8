/// \file tuned/symv_warp_rows.cuh
/// \brief A second tile layout of chapter 5's SYMV, without a barrier per tile: a launch option
///        (nb = 64, block = 32 x 8) that the sweep times beside the KBLAS layout of symv.cu.
///
/// Why: in the KBLAS layout (nb x Q threads, a thread column per warp group) the Q partial row sums
/// of a tile meet in shared memory, so every tile costs a barrier; Nsight Compute on the H200
/// (docs/notes/symv.md, SYMV second round) put a third of the float kernel's stall cycles
/// at that barrier and another third on the shared memory around it. Here a warp covers 8 rows x 4
/// column groups of the 64 x 64 tile (lane = 8 g + r): one load instruction reads 8 consecutive rows
/// of 4 adjacent columns (four 32-byte sectors for float), a row's 4 partial sums meet in two
/// shuffles inside the warp, and warps never wait for each other until the block's end, where the
/// column sums cross warps once. Thread (r, g) of warp w holds row 8 w + r of each tile and the
/// columns g + 4 k, k < 16: as many values per thread as the (64, 4) KBLAS layout, so the same
/// register rule (model::tuned_symv_regs) applies.
/// The reduction (deterministic pass or atomics) and the workspace layout are symv.cu's.
#pragma once

#include "symv_common.cuh"
#include "symv_layout.hpp"

#include "model/symv.hpp"

namespace wb::tuned::warp_rows {

constexpr int kRows = 8, kGroups = 4, kL = kNb / kGroups;  // kNb, kWarps: symv_layout.hpp
static_assert(kWarps * kRows == kNb && kRows * kGroups == 32, "a warp is 8 rows x 4 column groups");

template <class T>
constexpr int kMinBlocks = model::tuned_symv_min_blocks(kNb, kGroups, static_cast<int>(sizeof(T)));

/// Row `row` of a tile at the thread's 16 columns (pointer Ac, stepped 4 columns at a time, at most
/// kmax steps: columns beyond n stay at the last one) and x(row); rows beyond n read row n - 1
/// with x = 0.
template <class T>
__device__ __forceinline__ void load_row(const T* __restrict__ Ac, int lda, int kmax, const T* __restrict__ x, int n,
                                         int row, T (&buf)[kL], T& xi) {
    const int rr = min(row, n - 1);
    xi = row < n ? x[row] : T(0);
    const T* p = Ac + rr;
#pragma unroll
    for (int k = 0; k < kL; ++k) {
        buf[k] = *p;
        if (k < kmax) p += 4LL * lda;
    }
}

/// One tile row: its partial row sum over the thread's columns, completed over the 4 column groups
/// with two shuffles (a fixed order), written (or added) by the lanes of group 0; the column sums
/// of A^T x_I accumulate in registers.
template <class T>
__device__ __forceinline__ void use_row(const T (&buf)[kL], T xi, const T* xs, T (&acc)[kL], int row, int J, int n,
                                        bool atomics, T alpha, T* __restrict__ W, T* __restrict__ y) {
    const int g = threadIdx.x / kRows;
    __syncwarp();  // x_J is re-read from shared memory per row, not held in 16 more registers
    T rs = 0;
#pragma unroll
    for (int k = 0; k < kL; ++k) {
        rs += buf[k] * xs[g + 4 * k];
        acc[k] += buf[k] * xi;
    }
    rs += __shfl_xor_sync(0xffffffffu, rs, 8);
    rs += __shfl_xor_sync(0xffffffffu, rs, 16);
    if (g == 0 && row < n) {
        if (atomics) atomicAdd(y + row, alpha * rs);
        else W[row + static_cast<long long>(J) * n] = rs;  // W(rows of I, J)
    }
}

template <class T>
__global__ void __launch_bounds__(kNb * 4, kMinBlocks<T>)
symv_kernel(bool lower, bool atomics, int n, int nt, int Y, T alpha, const T* __restrict__ A, int lda,
            const T* __restrict__ x, T* __restrict__ W, T* __restrict__ y) {
    __shared__ T tile[kNb][kNb + 1];  // the diagonal tile, mirrored (block y == 0 only)
    __shared__ T colsum[kWarps][kNb];
    __shared__ T xs[kNb];
    __shared__ T dsum[kNb];
    const int lane = threadIdx.x, w = threadIdx.y, r = lane % kRows, g = lane / kRows;
    const int t = w * 32 + lane;
    const int tr = w * kRows + r;  // this thread's row of every tile
    const int b = static_cast<int>(blockIdx.x) / Y, yb = static_cast<int>(blockIdx.x) % Y;
    const int J = lower ? b : nt - 1 - b;  // the longest columns first
    if (t < kNb) {
        xs[t] = J * kNb + t < n ? x[J * kNb + t] : T(0);
        dsum[t] = 0;
    }
    const int col0 = J * kNb + g, c0 = min(col0, n - 1), kmax = (n - 1 - c0) / 4;
    const T* Ac = A + static_cast<long long>(c0) * lda;
    T acc[kL];
#pragma unroll
    for (int k = 0; k < kL; ++k) acc[k] = 0;
    __syncthreads();
    const int i0 = (lower ? J + 1 : 0) + yb, i1 = lower ? nt : J;
    T a0[kL], a1[kL], x0 = 0, x1 = 0;
    if (i0 < i1) load_row<T>(Ac, lda, kmax, x, n, i0 * kNb + tr, a0, x0);
    for (int I = i0; I < i1; I += 2 * Y) {
        if (I + Y < i1) load_row<T>(Ac, lda, kmax, x, n, (I + Y) * kNb + tr, a1, x1);
        use_row<T>(a0, x0, xs, acc, I * kNb + tr, J, n, atomics, alpha, W, y);
        if (I + Y >= i1) break;
        if (I + 2 * Y < i1) load_row<T>(Ac, lda, kmax, x, n, (I + 2 * Y) * kNb + tr, a0, x0);
        use_row<T>(a1, x1, xs, acc, (I + Y) * kNb + tr, J, n, atomics, alpha, W, y);
    }
    // The diagonal tile (block yb == 0): mirrored in shared memory, each row's sum over the
    // thread's 16 columns completed with the same two shuffles.
    if (yb == 0) {
        const int r0 = J * kNb;
        for (int e = t; e < kNb * kNb; e += kNb * 4) {
            const int i = e % kNb, c = e / kNb;
            if (lower ? i >= c : i <= c) {
                const T v = A[min(r0 + i, n - 1) + static_cast<long long>(min(r0 + c, n - 1)) * lda];
                tile[i][c] = v;
                tile[c][i] = v;
            }
        }
        __syncthreads();
        T s = 0;
#pragma unroll
        for (int k = 0; k < kL; ++k) s += tile[tr][g + 4 * k] * xs[g + 4 * k];
        s += __shfl_xor_sync(0xffffffffu, s, 8);
        s += __shfl_xor_sync(0xffffffffu, s, 16);
        if (g == 0) dsum[tr] = s;
    }
    // Column sums: over the 8 rows of a warp with shuffles, then over the 8 warps in shared memory.
#pragma unroll
    for (int k = 0; k < kL; ++k) {
        T v = acc[k];
        v += __shfl_xor_sync(0xffffffffu, v, 1);
        v += __shfl_xor_sync(0xffffffffu, v, 2);
        v += __shfl_xor_sync(0xffffffffu, v, 4);
        if (r == 0) colsum[w][g + 4 * k] = v;
    }
    __syncthreads();
    if (t < kNb && J * kNb + t < n) {
        const T s = symv_detail::sum_parts(colsum, kWarps, t) + dsum[t];
        if (atomics) atomicAdd(y + J * kNb + t, alpha * s);
        else W[J * kNb + t + static_cast<long long>(nt + yb) * n] = s;  // W(rows of J, nt + yb)
    }
}

}  // namespace wb::tuned::warp_rows
