/// \file tuned/gemv_t_shapes.cuh
/// \brief The tuned GEMV's T kernels for the shapes the teaching kernel (tuned/gemv.cu,
///        gemv_t_kernel) does not fit, chosen by the launch rules (kernels/gemv_rules.hpp):
///        - gemv_t_shifted_kernel: columns that do not start on a 16-byte boundary (odd lda, a
///          submatrix at an offset) or an unaligned x. Each column's head (the rows before its
///          first 16-byte boundary) and tail are peeled and added with element loads; its aligned
///          part streams with 16-byte loads (KBLAS TOMS §6.6, Eq. 10, Fig. 11, the offset
///          interface, done per column since an odd lda gives every column its own offset).
///          x is read one element at a time (from L1: the C columns of a block share it); where
///          lda % W == 0 every column has the same head, x's rows load once for the C columns
///          and the steps are double-buffered, A's loads with the aligned kernel's policy
///          (SAME_HEAD).
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
/// 32 Q W rows), block 0 also the peeled heads and tails. SAME_HEAD (lda % W == 0: A at an
/// offset, or only x unaligned): every column has the same head, so a step's W rows of x are
/// the same for the C columns and load once, and the steps are double-buffered as in
/// gemv_t_kernel; otherwise (odd lda) each column's rows of x load with it.
template <class T, int C, bool SAME_HEAD, int POL>
__global__ void __launch_bounds__(512, SAME_HEAD && C <= 4 ? 2 : 1) gemv_t_shifted_kernel(int m, int n, int k_per_block, T alpha,
                                                             const T* __restrict__ A, int lda, const T* __restrict__ x,
                                                             T beta, T* __restrict__ y, detail::SplitWorkspace<T> ws,
                                                             bool cluster) {
    constexpr int W = detail::Vec16<T>::width;
    using V = typename detail::Vec16<T>::type;
    const int lane = threadIdx.x, warp = threadIdx.y, Q = blockDim.y, tid = warp * 32 + lane;
    const int j0 = blockIdx.x * C;
    const T* col[C];  // column start (columns past n re-read column n-1)
    int head[C], nvec[C];
    int nv_min = m, nv_max = 0;
    const int head0 = head_rows(A + static_cast<long long>(min(j0, n - 1)) * lda, m);
#pragma unroll
    for (int c = 0; c < C; ++c) {
        col[c] = A + static_cast<long long>(min(j0 + c, n - 1)) * lda;
        head[c] = SAME_HEAD ? head0 : head_rows(col[c], m);
        nvec[c] = (m - head[c]) / W;
        nv_min = min(nv_min, nvec[c]);
        nv_max = max(nv_max, nvec[c]);
    }
    T acc[C];
#pragma unroll
    for (int c = 0; c < C; ++c) acc[c] = 0;
    const bool direct = gridDim.y == 1 && !cluster;
    const T yb = (direct && tid < C && j0 + tid < n && beta != T(0)) ? beta * y[j0 + tid] : T(0);

    const int per_block = k_per_block / W, vb = blockIdx.y * per_block, stride = 32 * Q;
    const int v_full = min(vb + per_block, nv_min), v_end = min(vb + per_block, nv_max);
    int v = vb + tid;
    if constexpr (SAME_HEAD) {
        // One head h: x's rows h + v W .. h + v W + W - 1 serve every column. Each thread's
        // next vector (A's C, x's W elements) loads while the current one is multiplied. A's
        // vectors load with the aligned kernel's policy (streaming where A is at most 8 L2s);
        // C <= 4 is held to 64 registers (4 blocks of 256 threads per SM, as gemv_t_kernel).
        const T* xh = x + head0;
        const unsigned long long pol = load_policy<POL>();
        const int steps = v < v_full ? (v_full - v + stride - 1) / stride : 0;
        V a_cur[C], a_nxt[C];
        T x_cur[W], x_nxt[W];
        auto load = [&](int vv, V(&a)[C], T(&xs)[W]) {
#pragma unroll
            for (int c = 0; c < C; ++c) a[c] = load_a<POL>(col[c] + head0 + static_cast<long long>(vv) * W, pol);
#pragma unroll
            for (int k = 0; k < W; ++k) xs[k] = __ldg(xh + vv * W + k);
        };
        if (steps > 0) load(v, a_cur, x_cur);
        for (int s = 0; s < steps; ++s) {
            const bool more = s + 1 < steps;
            if (more) load(v + stride, a_nxt, x_nxt);
#pragma unroll
            for (int c = 0; c < C; ++c)
#pragma unroll
                for (int k = 0; k < W; ++k) acc[c] += elem(a_cur[c], k) * x_cur[k];
            if (more) {
#pragma unroll
                for (int c = 0; c < C; ++c) a_cur[c] = a_nxt[c];
#pragma unroll
                for (int k = 0; k < W; ++k) x_cur[k] = x_nxt[k];
            }
            v += stride;
        }
    } else {
        // Vectors every column has: C 16-byte loads of A and C x W element loads of x per step.
#pragma unroll 2
        for (; v < v_full; v += stride) {
            V a[C];
            T xs[C][W];
#pragma unroll
            for (int c = 0; c < C; ++c) a[c] = __ldg(reinterpret_cast<const V*>(col[c] + head[c]) + v);
#pragma unroll
            for (int c = 0; c < C; ++c)
#pragma unroll
                for (int k = 0; k < W; ++k) xs[c][k] = __ldg(x + head[c] + v * W + k);
#pragma unroll
            for (int c = 0; c < C; ++c)
#pragma unroll
                for (int k = 0; k < W; ++k) acc[c] += elem(a[c], k) * xs[c][k];
        }
        // The one vector that only the columns with the smaller head have.
        if (v < v_end) {
#pragma unroll
            for (int c = 0; c < C; ++c)
                if (v < nvec[c]) {
                    const V a = __ldg(reinterpret_cast<const V*>(col[c] + head[c]) + v);
#pragma unroll
                    for (int k = 0; k < W; ++k) acc[c] += elem(a, k) * __ldg(x + head[c] + v * W + k);
                }
        }
    }
    // The peeled heads and tails: fewer than W rows each, element loads, in block 0.
    if (blockIdx.y == 0 && tid < 2 * W) {
#pragma unroll
        for (int c = 0; c < C; ++c) {
            const int row = tid < W ? tid : head[c] + nvec[c] * W + (tid - W);
            if (tid < W ? tid < head[c] : row < m) acc[c] += __ldg(col[c] + row) * __ldg(x + row);
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
