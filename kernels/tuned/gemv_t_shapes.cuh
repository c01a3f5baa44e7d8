/// \file tuned/gemv_t_shapes.cuh
/// \brief The tuned GEMV's T kernels for the shapes the teaching kernel (tuned/gemv.cu,
///        gemv_t_kernel) does not fit, chosen by the launch rules (kernels/gemv_rules.hpp):
///        - gemv_t_shifted_kernel: columns that do not start on a 16-byte boundary (odd lda, a
///          submatrix at an offset) or an unaligned x. Each column's head (the rows before its
///          first 16-byte boundary) and tail are peeled and added with element loads; its aligned
///          part streams with 16-byte loads (KBLAS TOMS §6.6, Eq. 10, Fig. 11, the offset
///          interface, done per column since an odd lda gives every column its own offset).
///          The steps are double-buffered and A's vectors load with the aligned kernel's
///          policy. x is read one element at a time (from L1: the C columns of a block share
///          it): where lda % W == 0 every column has the same head and the W rows a step needs
///          serve every column (SAME_HEAD); with an odd lda the thread loads the 2 W - 1 rows
///          that cover every head once and each column picks its W.
///        - gemv_t_short_kernel: short columns (m <= 64 W: a wide matrix of a few dozen to a few
///          hundred rows): L <= 16 lanes per column (up to 4 vectors each), so one warp reads
///          32 / L columns at a time and a block of 256 threads covers 256 / L x C columns; no
///          shared memory, no split.
#pragma once

#include "gemv_common.cuh"
#include "gemv_rows.cuh"

#include <cstdint>

namespace wb::tuned {

/// The rows of column p before its first 16-byte boundary (at most m).
template <class T>
__device__ __forceinline__ int head_rows(const T* p, int m) {
    const int bytes = static_cast<int>((16 - (reinterpret_cast<std::uintptr_t>(p) & 15)) & 15);
    return min(m, bytes / static_cast<int>(sizeof(T)));
}

/// The end of a T kernel of block (32, Q) and C columns: lanes by shuffles, warps through shared
/// memory, then y directly (no split), or the split's fixed-order finish (cluster or partials).
template <class T, int C>
__device__ __forceinline__ void finish_t(T (&acc)[C], int j0, int n, T alpha, T beta, T yb, bool direct, bool cluster,
                                         T* __restrict__ y, detail::SplitWorkspace<T> ws) {
    __shared__ T red[32][C];  // one partial per warp and column
    const int lane = threadIdx.x, warp = threadIdx.y, Q = blockDim.y, tid = warp * 32 + lane;
#pragma unroll
    for (int c = 0; c < C; ++c) {
        T v = acc[c];
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
        if (lane == 0) red[warp][c] = v;
    }
    __syncthreads();
    T v[1] = {0};
    if (tid < C)
        for (int q = 0; q < Q; ++q) v[0] += red[q][tid];
    if (direct) {
        if (tid < C && j0 + tid < n) y[j0 + tid] = alpha * v[0] + yb;
        return;
    }
    if (cluster) {
        if (tid < C) red[0][tid] = v[0];
        detail::cluster_finish<T>(&red[0][0], j0, C, n, alpha, beta, y);
        return;
    }
    detail::split_finish<T, 1>(v, tid < C && j0 + tid < n, j0 + tid, j0, C, n, gridDim.y, blockIdx.y, blockIdx.x,
                               alpha, beta, y, ws);
}

/// T with shifted columns. Block (32, Q) owns C columns; block y of Y takes the vectors
/// [y, y + 1) * k_per_block / W of every column's aligned part (k_per_block: whole steps of
/// 32 Q W rows), block 0 also the peeled heads and tails. Each thread's next step (C vectors
/// of A and the rows of x they meet) loads while the current one is multiplied, A's vectors
/// with the aligned kernel's policy; C <= 4 is held to 64 registers (4 blocks of 256 threads
/// per SM, as gemv_t_kernel). x is read one element at a time (from L1: the C columns of a
/// block share it):
/// - SAME_HEAD (lda % W == 0: A at an offset, or only x unaligned): every column has the same
///   head h, so vector v of every column meets the W rows h + v W ... of x.
/// - otherwise (odd lda): column c's head h_c is one of 0 ... W - 1, so vector v of the C
///   columns meets rows among v W ... v W + 2 W - 2: the thread loads that window of 2 W - 1
///   rows once and each column picks its W rows from it (selects, not C W loads).
template <class T, int C, bool SAME_HEAD, int POL>
__global__ void __launch_bounds__(512, C <= 4 ? 2 : 1) gemv_t_shifted_kernel(int m, int n, int k_per_block, T alpha,
                                                             const T* __restrict__ A, int lda, const T* __restrict__ x,
                                                             T beta, T* __restrict__ y, detail::SplitWorkspace<T> ws,
                                                             bool cluster) {
    constexpr int W = detail::Vec16<T>::width;
    constexpr int XW = SAME_HEAD ? W : 2 * W - 1;  // rows of x per step
    using V = typename detail::Vec16<T>::type;
    const int lane = threadIdx.x, warp = threadIdx.y, Q = blockDim.y, tid = warp * 32 + lane;
    const int j0 = blockIdx.x * C;
    // Column c's aligned part starts at ac[c] (columns past n re-read column n-1); its head,
    // 0 ... W - 1 rows, is bits 2c, 2c + 1 of `heads` (packed: registers are what this kernel
    // runs short of).
    const T* ac[C];
    unsigned heads = 0;
    const int head0 = head_rows(A + static_cast<long long>(min(j0, n - 1)) * lda, m);
#pragma unroll
    for (int c = 0; c < C; ++c) {
        const T* p = A + static_cast<long long>(min(j0 + c, n - 1)) * lda;
        const int h = SAME_HEAD ? head0 : head_rows(p, m);
        ac[c] = p + h;
        heads |= static_cast<unsigned>(h) << (2 * c);
    }
    auto head_of = [&](int c) { return SAME_HEAD ? head0 : static_cast<int>((heads >> (2 * c)) & 3u); };
    // Vectors every column has (the columns with the larger head have nv_min, the others may
    // have one more: nv_max).
    int nv_min = m, nv_max = 0;
#pragma unroll
    for (int c = 0; c < C; ++c) {
        nv_min = min(nv_min, (m - head_of(c)) / W);
        nv_max = max(nv_max, (m - head_of(c)) / W);
    }
    T acc[C];
#pragma unroll
    for (int c = 0; c < C; ++c) acc[c] = 0;
    const bool direct = gridDim.y == 1 && !cluster;
    const T yb = (direct && tid < C && j0 + tid < n && beta != T(0)) ? beta * y[j0 + tid] : T(0);

    const int per_block = k_per_block / W, vb = blockIdx.y * per_block, stride = 32 * Q;
    const int v_full = min(vb + per_block, nv_min), v_end = min(vb + per_block, nv_max);
    int v = vb + tid;
    const unsigned long long pol = load_policy<POL>();
    const int steps = v < v_full ? (v_full - v + stride - 1) / stride : 0;
    const int x0 = SAME_HEAD ? head0 : 0;  // row of x where vector 0's window starts
    V a_cur[C], a_nxt[C];
    T x_cur[XW], x_nxt[XW];
    auto load = [&](int vv, V(&a)[C], T(&xs)[XW]) {
#pragma unroll
        for (int c = 0; c < C; ++c) a[c] = load_a<POL>(ac[c] + static_cast<long long>(vv) * W, pol);
        // The odd-lda window's last rows may pass m where every head is small: clamped, never
        // picked.
#pragma unroll
        for (int k = 0; k < XW; ++k) xs[k] = __ldg(x + (SAME_HEAD ? x0 + vv * W + k : min(vv * W + k, m - 1)));
    };
    if (steps > 0) load(v, a_cur, x_cur);
    for (int s = 0; s < steps; ++s) {
        const bool more = s + 1 < steps;
        if (more) load(v + stride, a_nxt, x_nxt);
#pragma unroll
        for (int c = 0; c < C; ++c)
#pragma unroll
            for (int k = 0; k < W; ++k) {
                T xk = x_cur[k];  // row k of column c's vector: x_cur[head + k], picked by selects
                if constexpr (!SAME_HEAD) {
                    const int h = head_of(c);
#pragma unroll
                    for (int d = 1; d < W; ++d)
                        if (h == d) xk = x_cur[k + d];
                }
                acc[c] += elem(a_cur[c], k) * xk;
            }
        if (more) {
#pragma unroll
            for (int c = 0; c < C; ++c) a_cur[c] = a_nxt[c];
#pragma unroll
            for (int k = 0; k < XW; ++k) x_cur[k] = x_nxt[k];
        }
        v += stride;
    }
    // The one vector that only the columns with the smaller head have (odd lda).
    if (!SAME_HEAD && v < v_end) {
#pragma unroll
        for (int c = 0; c < C; ++c)
            if (v < (m - head_of(c)) / W) {
                const V a = __ldg(reinterpret_cast<const V*>(ac[c]) + v);
#pragma unroll
                for (int k = 0; k < W; ++k) acc[c] += elem(a, k) * __ldg(x + head_of(c) + v * W + k);
            }
    }
    // The peeled heads and tails: fewer than W rows each, element loads, in block 0.
    if (blockIdx.y == 0 && tid < 2 * W) {
#pragma unroll
        for (int c = 0; c < C; ++c) {
            const int h = head_of(c), nv = (m - h) / W;
            const T* col = ac[c] - h;
            const int row = tid < W ? tid : h + nv * W + (tid - W);
            if (tid < W ? tid < h : row < m) acc[c] += __ldg(col + row) * __ldg(x + row);
        }
    }
    finish_t<T, C>(acc, j0, n, alpha, beta, yb, direct, cluster, y, ws);
}

/// T with short columns. Block (L, G): group g of L lanes owns columns j0 + g + c G (c < C,
/// so a warp's groups read neighbouring columns together); lane l takes vectors l, l + L, ...
/// of each column's aligned part (ALIGNED: every column and x aligned, x read as vectors; else
/// heads and tails peeled as in gemv_t_shifted_kernel). The L lanes meet by shuffles.
template <class T, bool ALIGNED, int C>
__global__ void __launch_bounds__(256) gemv_t_short_kernel(int m, int n, T alpha, const T* __restrict__ A, int lda,
                                                           const T* __restrict__ x, T beta, T* __restrict__ y) {
    constexpr int W = detail::Vec16<T>::width;
    using V = typename detail::Vec16<T>::type;
    const int L = blockDim.x, G = blockDim.y, lane = threadIdx.x, g = threadIdx.y;
    const int j0 = blockIdx.x * G * C + g;
    const T* col[C];
    int head[C], nvec[C];
    int nv_max = 0;
#pragma unroll
    for (int c = 0; c < C; ++c) {
        col[c] = A + static_cast<long long>(min(j0 + c * G, n - 1)) * lda;
        head[c] = ALIGNED ? 0 : head_rows(col[c], m);
        nvec[c] = (m - head[c]) / W;
        nv_max = max(nv_max, nvec[c]);
    }
    // beta * y of the columns lane 0 writes, loaded now: read after the reduction, y would add a
    // DRAM round trip to the end of every block (double 64 x 10^6, beta = 0.5, H200: 169 us
    // against 131 us with beta = 0).
    T acc[C], yb[C];
#pragma unroll
    for (int c = 0; c < C; ++c) {
        acc[c] = 0;
        yb[c] = (lane == 0 && j0 + c * G < n && beta != T(0)) ? beta * y[j0 + c * G] : T(0);
    }
    for (int v = lane; v < nv_max; v += L) {
        V a[C];
#pragma unroll
        for (int c = 0; c < C; ++c)
            if (v < nvec[c]) a[c] = __ldg(reinterpret_cast<const V*>(col[c] + head[c]) + v);
        if constexpr (ALIGNED) {  // every column has nv_max vectors
            const V xv = ldv(x + v * W);
#pragma unroll
            for (int c = 0; c < C; ++c) acc[c] += dot<V, T>(a[c], xv);
        } else {
#pragma unroll
            for (int c = 0; c < C; ++c)
                if (v < nvec[c])
#pragma unroll
                    for (int k = 0; k < W; ++k) acc[c] += elem(a[c], k) * __ldg(x + head[c] + v * W + k);
        }
    }
    for (int e = lane; e < 2 * W; e += L) {  // heads and tails: fewer than W rows each
#pragma unroll
        for (int c = 0; c < C; ++c) {
            const int row = e < W ? e : head[c] + nvec[c] * W + (e - W);
            if (e < W ? e < head[c] : row < m) acc[c] += __ldg(col[c] + row) * __ldg(x + row);
        }
    }
#pragma unroll
    for (int c = 0; c < C; ++c)
        for (int o = L / 2; o > 0; o >>= 1) acc[c] += __shfl_xor_sync(0xffffffffu, acc[c], o, L);
    if (lane == 0) {
#pragma unroll
        for (int c = 0; c < C; ++c) {
            const int j = j0 + c * G;
            if (j < n) y[j] = alpha * acc[c] + yb[c];
        }
    }
}

}  // namespace wb::tuned
