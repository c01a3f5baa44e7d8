/// \file tuned/gemv_t_loop.cuh
/// \brief The tuned GEMV's looping T kernel (launch rule 8, kernels/gemv_rules.hpp): for T with
///        short columns and many of them (a wide matrix of a few dozen to a few hundred rows,
///        and the skinny double shapes), where a block that owns one tile of columns spends its
///        whole life on one or two DRAM round trips, then a barrier and a reduction: such
///        launches are limited by block turnover, not by the bytes a resident block has in
///        flight (docs/notes/gemv.md: "predictions for the fourth run", then "what the
///        fourth run measured": 0.95x-1.44x cuBLAS where rule 8 takes it, against 0.47x-1.20x).
///
/// The kernel, and its launcher (launch_t_loop): a resident wave of blocks (the launcher sizes the
/// grid by the occupancy API);
/// each group of L lanes (L = blockDim.x, a power of two in 4 ... 32; blockDim.y = 256 / L
/// groups) walks a column tile of C columns at a time, tile after tile (a grid-stride loop over
/// the tiles, the same trip count for every group of a warp, so the L-lane shuffles stay
/// converged). Each tile is S steps of L vectors; the steps of consecutive tiles form one
/// stream, double-buffered: the next step's loads (the next tile's first step included, and the
/// next tile's beta * y) are issued before the current step is multiplied and before the
/// current tile's lanes meet by shuffles and write y. No shared memory, no barrier.
///
/// Columns that do not start on a 16-byte boundary: a tile's C columns are taken W apart
/// (columns b, b + W, ..., b + (C-1) W; W consecutive tiles cover W C consecutive columns), so
/// they share one head (W lda elements are 16 lda bytes): one load of x serves the C columns,
/// as in gemv_t_shifted_kernel's SAME_HEAD path, for odd lda too. The head (rows before the
/// first 16-byte boundary) and the tail (rows after the last whole vector) are two partial
/// vectors of the same stream, filled with guarded element loads (zeros outside [0, m)).
#pragma once

#include "gemv_common.cuh"
#include "gemv_rows.cuh"
#include "gemv_cluster_launch.cuh"
#include "gemv_t_shapes.cuh"

#include <algorithm>

namespace wb::tuned {

/// A 16-byte vector from W elements.
__device__ __forceinline__ float4 make_vec(const float (&e)[4]) { return make_float4(e[0], e[1], e[2], e[3]); }
__device__ __forceinline__ double2 make_vec(const double (&e)[2]) { return make_double2(e[0], e[1]); }

/// One tile of a looping T group: its first column, its head rows, whole vectors, and the
/// vectors of its stream (whole ones plus a partial head and tail; 0: the tile lies past n).
struct LoopTile {
    long long base;
    int head, nvec, nv;
};

/// T with short columns, looping over column tiles. XVEC: every column and x are 16-byte
/// aligned (x loads as vectors); otherwise x loads as W elements per step (from L1: the C
/// columns share them). POL: the policy of A's whole-vector loads (kCached or kStreaming).
template <class T, int C, bool XVEC, int POL>
__global__ void __launch_bounds__(256, C <= 4 ? 3 : 2) gemv_t_loop_kernel(int m, int n, T alpha, const T* __restrict__ A, int lda,
                                                             const T* __restrict__ x, T beta, T* __restrict__ y) {
    constexpr int W = detail::Vec16<T>::width;
    using V = typename detail::Vec16<T>::type;
    const int L = blockDim.x, lane = threadIdx.x, gpw = 32 / L;  // groups per warp
    const int wpb = static_cast<int>(blockDim.y) / gpw;          // warps per block
    const int gw = static_cast<int>(threadIdx.y) % gpw;          // this group's place in its warp
    const long long nwarps = static_cast<long long>(gridDim.x) * wpb;
    const long long span = static_cast<long long>(W) * C;        // columns of W neighbouring tiles
    const long long tiles = (n + span - 1) / span * W;
    const long long wtiles = (tiles + gpw - 1) / gpw;            // warp tiles: gpw tiles each
    // Steps per tile: the same for every tile (a head adds at most one partial vector).
    const int S = ((m + W - 1) / W + (XVEC ? 0 : 1) + L - 1) / L;
    const unsigned long long pol = load_policy<POL>();

    long long wt = static_cast<long long>(blockIdx.x) * wpb + threadIdx.y / gpw;
    if (wt >= wtiles) return;  // the whole warp: wt is the same for its groups

    auto tile_of = [&](long long w) {
        const long long t = w * gpw + gw;
        LoopTile tl{(t / W) * span + (t % W), 0, 0, 0};
        if (tl.base >= n) return tl;
        tl.head = XVEC ? 0 : head_rows(A + tl.base * lda, m);
        tl.nvec = (m - tl.head) / W;
        tl.nv = (tl.head > 0 ? 1 : 0) + tl.nvec + (m - tl.head - tl.nvec * W > 0 ? 1 : 0);
        return tl;
    };
    // Column c of a tile (columns past n re-read the tile's first one: same head, discarded).
    auto column = [&](const LoopTile& tl, int c) {
        const long long j = tl.base + static_cast<long long>(c) * W;
        return A + (j < n ? j : tl.base) * lda;
    };
    // beta * y of the column this lane writes (lane c < C writes column c of the tile).
    auto y_beta = [&](const LoopTile& tl) {
        const long long j = tl.base + static_cast<long long>(lane) * W;
        return (lane < C && tl.nv > 0 && j < n && beta != T(0)) ? beta * y[j] : T(0);
    };
    // Step s of tile tl: lane's vector u = s L + lane of the stream (u = 0 the head when there
    // is one, the last the tail when there is one).
    auto load = [&](const LoopTile& tl, int s, V(&a)[C], V& xv) {
        const int u = s * L + lane;
        const int v = u - (tl.head > 0 ? 1 : 0);  // whole vector index; -1: the head
        if (u >= tl.nv) {
            T z[W];
#pragma unroll
            for (int k = 0; k < W; ++k) z[k] = 0;
            xv = make_vec(z);
#pragma unroll
            for (int c = 0; c < C; ++c) a[c] = xv;
        } else if (v >= 0 && v < tl.nvec) {
            const long long r = tl.head + static_cast<long long>(v) * W;
#pragma unroll
            for (int c = 0; c < C; ++c) a[c] = load_a<POL>(column(tl, c) + r, pol);
            if constexpr (XVEC) {
                xv = ldv(x + r);
            } else {
                T e[W];
#pragma unroll
                for (int k = 0; k < W; ++k) e[k] = __ldg(x + r + k);
                xv = make_vec(e);
            }
        } else {  // a partial vector: rows r0 .. r0 + W - 1, those in [0, m)
            const int r0 = tl.head + v * W;
            T e[W];
#pragma unroll
            for (int k = 0; k < W; ++k) e[k] = (r0 + k >= 0 && r0 + k < m) ? __ldg(x + r0 + k) : T(0);
            xv = make_vec(e);
#pragma unroll
            for (int c = 0; c < C; ++c) {
                const T* p = column(tl, c);
#pragma unroll
                for (int k = 0; k < W; ++k) e[k] = (r0 + k >= 0 && r0 + k < m) ? __ldg(p + r0 + k) : T(0);
                a[c] = make_vec(e);
            }
        }
    };

    LoopTile cur = tile_of(wt), nxt = cur;
    T yb_cur = y_beta(cur), yb_nxt = 0;
    V a_cur[C], a_nxt[C], x_cur, x_nxt;
    T acc[C];
#pragma unroll
    for (int c = 0; c < C; ++c) acc[c] = 0;
    load(cur, 0, a_cur, x_cur);
    int s = 0;
    for (;;) {
        // Issue the next step's loads: step s + 1 of this tile, or the first of the next tile.
        const bool last = s + 1 == S;
        const long long wt_next = last ? wt + nwarps : wt;
        const bool more = wt_next < wtiles;
        if (last && more) {
            nxt = tile_of(wt_next);
            yb_nxt = y_beta(nxt);
        }
        if (more) load(last ? nxt : cur, last ? 0 : s + 1, a_nxt, x_nxt);
#pragma unroll
        for (int c = 0; c < C; ++c) acc[c] += dot<V, T>(a_cur[c], x_cur);
        if (last) {  // the tile's L lanes meet; lane c writes column c
            T out = 0;
#pragma unroll
            for (int c = 0; c < C; ++c) {
                for (int o = L / 2; o > 0; o >>= 1) acc[c] += __shfl_xor_sync(0xffffffffu, acc[c], o, L);
                if (lane == c) out = acc[c];
                acc[c] = 0;
            }
            const long long j = cur.base + static_cast<long long>(lane) * W;
            if (lane < C && cur.nv > 0 && j < n) y[j] = alpha * out + yb_cur;
            if (!more) break;
            cur = nxt;
            yb_cur = yb_nxt;
            wt = wt_next;
            s = 0;
        } else {
            ++s;
        }
#pragma unroll
        for (int c = 0; c < C; ++c) a_cur[c] = a_nxt[c];
        x_cur = x_nxt;
    }
}

/// The looping T kernel (rule 8): a resident wave of blocks (by the occupancy API), no more
/// than the tiles need.
template <class T, int C, bool XVEC, int POL>
void launch_t_loop_kernel(const GemvArgs<T>& a, const GemvLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "tuned::gemv";
    constexpr int W = detail::Vec16<T>::width;
    const int L = l.block_x, G = 256 / L;
    auto kernel = gemv_t_loop_kernel<T, C, XVEC, POL>;
    static int per_sm = [&] {
        int b = 0;
        WB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, kernel, 256, 0));
        return std::max(1, b);
    }();
    auto cdiv = [](long long x, long long y) { return (x + y - 1) / y; };
    const long long tiles = cdiv(a.n, static_cast<long long>(W) * C) * W;  // as the kernel counts them
    const long long warp_tiles = cdiv(tiles, 32 / L);
    const long long blocks =
        std::min(cdiv(warp_tiles, 256 / 32), static_cast<long long>(per_sm) * launch_checks::sm_count());
    launch_kernel(kernel, dim3(detail::grid_dim(blocks, kMaxGridX, fn)), dim3(L, G), 0, s, 1, a.m, a.n, a.alpha,
                  a.A, a.lda, a.x, a.beta, a.y);
}

template <class T, int C>
void launch_t_loop(const GemvArgs<T>& a, const GemvLaunch& l, bool xvec, int pol, cudaStream_t s) {
    if (xvec) {
        if (pol == kCached) return launch_t_loop_kernel<T, C, true, kCached>(a, l, s);
        return launch_t_loop_kernel<T, C, true, kStreaming>(a, l, s);
    }
    if (pol == kCached) return launch_t_loop_kernel<T, C, false, kCached>(a, l, s);
    return launch_t_loop_kernel<T, C, false, kStreaming>(a, l, s);
}

}  // namespace wb::tuned
