/// \file tuned/gemm_kernel.cuh
/// \brief Chapter 5's GEMM kernel: one block's tile of C, in three phases: the prologue (the
///        slice of k, the stages, the thread's place in the tile), the main loop over k-tiles in
///        the order that fits the configuration's blocks per SM, and the epilogue. The copies into
///        shared memory: gemm_tile_loader.cuh; the fragments out of it: gemm_fragments.cuh. The
///        teaching header and the launcher: tuned/gemm.cu.
///
/// The main loop and the epilogue stay in the kernel's body. Moved into functions of their own,
/// even forceinline ones, they compile to other machine code: the same instructions with other
/// registers and order in most of the kernels (the compiler optimizes such a function before it
/// inlines it), a change this file's measurements would not cover.
#pragma once

#include "tuned/dependent_launch.cuh"
#include "tuned/gemm_fragments.cuh"
#include "tuned/gemm_tile_loader.cuh"

namespace wb::tuned::gemm_impl {
namespace {

//! [tuned-gemm]
template <class Cfg, bool TransA, bool TransB, bool VEC, bool SPLIT>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS)
gemm_kernel(int m, int n, int k, typename Cfg::type alpha, const typename Cfg::type* __restrict__ A, int lda,
            const typename Cfg::type* __restrict__ B, int ldb, typename Cfg::type beta,
            typename Cfg::type* __restrict__ C, int ldc, bool vec_c, int k_slice, long long c_slice) {
    using T = typename Cfg::type;
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, TM = Cfg::TM, TN = Cfg::TN, S = Cfg::STAGES;
    constexpr int LM = Cfg::LM, LN = Cfg::LN, W = Cfg::W;
    using V = typename gemm_detail::Vec16<T>::type;
    // Split k (SPLIT, gridDim.z slices > 1): slice z multiplies op(A)(:, z kc ...) by
    // op(B)(z kc ..., :) into its own m x n partial (C is the workspace, ldc = m, alpha 1, beta 0);
    // splitk_sum adds the partials in slice order. kc is a multiple of BK: the slices' operands
    // keep the alignment the full operands have. A kernel of its own, so that the unsplit
    // kernel's schedule does not pay for it.
    if constexpr (SPLIT) {
        // The second pass may launch once every block of this grid has started (it waits for
        // the partials itself): its launch overlaps this grid's last blocks (splitk::sum).
        dependent_trigger();
        const int k0 = static_cast<int>(blockIdx.z) * k_slice;
        A += TransA ? k0 : static_cast<long long>(k0) * lda;
        B += TransB ? static_cast<long long>(k0) * ldb : k0;
        C += blockIdx.z * c_slice;
        k = min(k_slice, k - k0);
    }
    using Sw = OperandSwizzle<Cfg, TransA, TransB, VEC>;  // which stages are stored swizzled
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* sA = reinterpret_cast<T*>(smem_raw);  // S stages of [BK][BM]
    T* sB = sA + S * BK * BM;                // S stages of [BK][BN]

    const int i0 = blockIdx.x * BM, j0 = blockIdx.y * BN;
    const bool interior = i0 + BM <= m && j0 + BN <= n;
    // Which operand's copies need checks: both wherever the tile of C crosses an edge, or, in the
    // skinny configurations (OPERAND_GUARD), each by its own extent only: with C 4 rows tall every
    // tile crosses m, and the long operand's 16-byte loads would become element loads.
    const bool inside_a = Cfg::OPERAND_GUARD ? i0 + BM <= m : interior;
    const bool inside_b = Cfg::OPERAND_GUARD ? j0 + BN <= n : interior;
    // op(A) rows are r = i (A stored i-contiguous when op_a = N); op(B) rows are r = j (B stored
    // j-contiguous when op_b = T).
    TileLoader<Cfg, BM, !TransA, VEC, Sw::A> la{A, lda, i0, m, k, {}};
    TileLoader<Cfg, BN, TransB, VEC, Sw::B, Sw::ASYNC_B> lb{B, ldb, j0, n, k, {}};

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wm0 = (warp % Cfg::WARPS_M) * Cfg::WM, wn0 = (warp / Cfg::WARPS_M) * Cfg::WN;
    const int lm = lane % LM, ln = lane / LM;
    const int ra = wm0 + 4 * lm, cb = wn0 + 4 * ln;  // first row / column of this thread's sub-blocks

    T acc[TM][TN];
#pragma unroll
    for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int c = 0; c < TN; ++c) acc[r][c] = 0;

    const int tiles = (k + BK - 1) / BK;
    // Prologue: tiles 0 .. P-1 into stages 0 .. P-1 (one commit group per tile, empty past the
    // end). The one-block order below fills every stage (P = S); the other keeps one free
    // (P = S-1) for the copy it issues at the top of its first iteration.
    constexpr int P = Cfg::PREFETCH_ORDER ? S : S - 1;
#pragma unroll
    for (int t = 0; t < P; ++t) {
        if (t < tiles) {
            const bool kin = (t + 1) * BK <= k, full_a = inside_a && kin, full_b = inside_b && kin;
            la.start(sA + t * BK * BM, t * BK, full_a);
            lb.start(sB + t * BK * BN, t * BK, full_b);
            la.finish(sA + t * BK * BM);
            lb.finish(sB + t * BK * BN);
        }
        cp_async_commit();
    }

    if constexpr (Cfg::PREFETCH_ORDER) {
        // One block per SM: while its warps wait at a barrier and then for their first fragments,
        // no other block's warps can issue. So the barrier sits inside each tile's last k-step,
        // after that step's fragments are loaded, and the next tile's first fragments are loaded
        // before that step's FMAs (CUTLASS's multistage order): the FMAs cover their latency.
        // The four-warp tiles (PREFETCH_ORDER) take this order at three blocks per SM too: twelve
        // warps hide less than the large tiles' sixteen or more, and it measured faster there.
        cp_async_wait<S - 1>();  // tile 0 has landed for this thread
        __syncthreads();         // and for every thread; its k-step 0 fragments into a0, b0
        T a0[TM], b0[TN];  // k-step 0 of the next tile, loaded during the last k-step of this one
        load_frags<Cfg, Sw::A, Sw::B>(sA, sB, 0, ra, cb, a0, b0);

        // At the top of iteration t: the groups of tiles 0 .. t+S-1 are committed, tile t is in
        // stage st = t % S for every thread, a0/b0 hold its k-step 0; the transposing loads of
        // tile t-1+S (issued in iteration t-1) wait in registers for stage sp = (t-1) % S.
        int st = 0, sp = S - 1;
        for (int t = 0; t < tiles; ++t) {
            // C into the L2 four k-tiles before the epilogue, in the unsplit kernels of the
            // configurations that ask for it (prefetch_c: the one-block 256 x 128 float tile)
            // that take op(B) = B^T straight into place (NT, TT: the default rule packs B into
            // that form where it pays, as it does at the squares); beta != 0 only: beta == 0
            // never reads C. The epilogue reads C in dependent
            // batches, one per sub-block row; from DRAM each batch waits a memory latency with
            // no other block on the SM to cover it, a cost each wave of tiles pays once
            // (\ref notes_gemm, the cost per wave). Four k-tiles of main loop are time enough for
            // a wave's C to arrive in the L2 and few enough that it is still there (+2-4% at
            // 4000-8192 squares on an H200). Only these kernels: with the lines in every kernel,
            // the multi-block and split kernels' shapes ran 5-16% slower in one run (their main
            // loops compiled differently; the split kernels never execute the lines), and in
            // the NN and TN kernels of this tile, whose B goes through the transposing registers,
            // the main loop ran 15% slower at beta 0 and 0.5 alike (H200, gemm_beta_probe). The
            // TT kernel with them ran at 0.81x cuBLAS alone (the rule packs A there and runs NT,
            // 1.01x); TT without them is not measured yet.
            if constexpr (Cfg::PREFETCH_C && !SPLIT && TransB) {
                if (beta != T(0) && t == max(tiles - 4, 0)) {
#pragma unroll
                    for (int q = 0; q < TM / 4; ++q)
#pragma unroll
                        for (int c = 0; c < TN; ++c) {
                            const int i = i0 + ra + q * 4 * LM, j = j0 + cb + (c / 4) * 4 * LN + c % 4;
                            if (i < m && j < n)
                                asm volatile("prefetch.global.L2 [%0];" ::"l"(C + i + static_cast<long long>(j) * ldc));
                        }
                }
            }
            const T* a_s = sA + st * BK * BM;
            const T* b_s = sB + st * BK * BN;
            const int s1 = st + 1 == S ? 0 : st + 1;  // stage of tile t+1
            const bool pend = t > 0 && t - 1 + S < tiles;  // tile t-1+S waits in registers
            const int tn = t + S;  // the tile to start, into stage st once everyone has read it
            const bool more = tn < tiles;
            const bool kin = (tn + 1) * BK <= k, full_a = inside_a && kin, full_b = inside_b && kin;
#pragma unroll
            for (int p = 0; p < BK; ++p) {
                T a[TM], b[TN];
                if (p == 0) {
#pragma unroll
                    for (int r = 0; r < TM; ++r) a[r] = a0[r];
#pragma unroll
                    for (int c = 0; c < TN; ++c) b[c] = b0[c];
                } else {
                    load_frags<Cfg, Sw::A, Sw::B>(a_s, b_s, p, ra, cb, a, b);
                }
                if (p == BK - 1) {
                    // Every fragment of tile t is loaded (this step's are in a, b): after the
                    // barrier stage st is free, and tile t+1 has landed for every thread.
                    if (pend) {  // the transposing loads of tile t-1+S to their stage sp
                        la.finish(sA + sp * BK * BM);
                        lb.finish(sB + sp * BK * BN);
                    }
                    cp_async_wait<S - 2>();  // this thread's copies of tile t+1 have landed
                    __syncthreads();         // everyone's have; everyone has read stage st
                    // Tile t+1's first fragments first (in flight during the copies' issue and
                    // this step's FMAs), then the copy of tile t+S into the freed stage st.
                    load_frags<Cfg, Sw::A, Sw::B>(sA + s1 * BK * BM, sB + s1 * BK * BN, 0, ra, cb, a0, b0);
                    if (more) {
                        la.start(sA + st * BK * BM, tn * BK, full_a);
                        lb.start(sB + st * BK * BN, tn * BK, full_b);
                    }
                    cp_async_commit();
                }
                // FMA order: with op(A) = A the inner loop runs along the longer side of the
                // thread tile, so consecutive FMAs share b[c] (runs of TM = 16, the operand reuse
                // cache's longer runs); with op(A) = A^T along the shorter (runs of TN sharing
                // a[r]). Which order is faster was measured, not derived (\ref notes_gemm).
                if constexpr (!TransA) {
#pragma unroll
                    for (int c = 0; c < TN; ++c)
#pragma unroll
                        for (int r = 0; r < TM; ++r) acc[r][c] += a[r] * b[c];
                } else {
#pragma unroll
                    for (int r = 0; r < TM; ++r)
#pragma unroll
                        for (int c = 0; c < TN; ++c) acc[r][c] += a[r] * b[c];
                }
            }
            sp = st;
            st = s1;
        }
    } else {
        // Two or more blocks per SM of eight warps: the barrier at the top of each tile; while
        // this block's warps wait there and for their first fragments, another block's warps
        // issue FMAs (the order above measured slower on 128 x 128 at two blocks per SM: its 128
        // registers leave no room for the prefetched fragments).
        for (int t = 0; t < tiles; ++t) {
            cp_async_wait<S - 2>();  // this thread's copies of tile t have landed
            __syncthreads();         // everyone's have; and everyone is done with tile t-1's stage
            const int tn = t + S - 1, sn = tn % S;  // the tile to start, into the stage freed above
            const bool more = tn < tiles;
            const bool kin = (tn + 1) * BK <= k, full_a = inside_a && kin, full_b = inside_b && kin;
            if (more) {
                la.start(sA + sn * BK * BM, tn * BK, full_a);
                lb.start(sB + sn * BK * BN, tn * BK, full_b);
            }
            cp_async_commit();

            const T* a_s = sA + (t % S) * BK * BM;
            const T* b_s = sB + (t % S) * BK * BN;
#pragma unroll
            for (int p = 0; p < BK; ++p) {
                T a[TM], b[TN];
                load_frags<Cfg, Sw::A, Sw::B>(a_s, b_s, p, ra, cb, a, b);
#pragma unroll
                for (int r = 0; r < TM; ++r)
#pragma unroll
                    for (int c = 0; c < TN; ++c) acc[r][c] += a[r] * b[c];
            }
            if (more) {  // the transposing loads' registers go to their stage after the FMAs
                la.finish(sA + sn * BK * BM);
                lb.finish(sB + sn * BK * BN);
            }
        }
    }
    cp_async_wait<0>();  // nothing may be in flight when the block exits
    // Epilogue: C = alpha*acc + beta*C (C not read when beta == 0); 16-byte stores of each
    // 4-row group where C allows, element by element where it does not (ldc or C not 16-byte
    // aligned: an odd m with ldc = m, for one) and on the edges of C. With beta != 0 old values of
    // C are loaded in batches before the stores that follow them: a load after a store to C cannot
    // be moved above it (the compiler cannot prove the addresses differ), so loading each value
    // just before its store would make one DRAM round trip per store, one after another. The
    // vector path loads a row group's TN vectors at once; the element path half a row group's
    // TN x 4 elements (all of them make ptxas spill in the main loops of the 128 x 128 kernels).
    auto column = [&](int c) { return j0 + cb + (c / 4) * 4 * LN + c % 4; };  // of thread-tile column c
    if (!vec_c) {  // element stores: half the thread tile's columns per batch of loads
        constexpr int H = TN / 2;
#pragma unroll
        for (int q = 0; q < TM / 4; ++q) {
            const int i = i0 + ra + q * 4 * LM;  // first of 4 rows
#pragma unroll
            for (int h = 0; h < TN; h += H) {
                T old[H][4];
                if (beta != T(0)) {
#pragma unroll
                    for (int c = 0; c < H; ++c) {
                        const int j = column(h + c);
#pragma unroll
                        for (int e = 0; e < 4; ++e)
                            if (i + e < m && j < n) old[c][e] = C[i + e + static_cast<long long>(j) * ldc];
                    }
                }
#pragma unroll
                for (int c = 0; c < H; ++c) {
                    const int j = column(h + c);
#pragma unroll
                    for (int e = 0; e < 4; ++e)
                        if (i + e < m && j < n) {
                            const T r = alpha * acc[4 * q + e][h + c];
                            C[i + e + static_cast<long long>(j) * ldc] = beta == T(0) ? r : r + beta * old[c][e];
                        }
                }
            }
        }
        return;
    }
#pragma unroll
    for (int q = 0; q < TM / 4; ++q) {
        const int i = i0 + ra + q * 4 * LM;  // first of 4 rows
        auto whole = [&](int j) { return vec_c && (interior || (i + 3 < m && j < n)); };
        V old[TN][4 / W];
        if (beta != T(0)) {
#pragma unroll
            for (int c = 0; c < TN; ++c)
                if (whole(column(c)))
#pragma unroll
                    for (int v = 0; v < 4 / W; ++v)
                        old[c][v] = *reinterpret_cast<const V*>(C + i + v * W + static_cast<long long>(column(c)) * ldc);
        }
#pragma unroll
        for (int c = 0; c < TN; ++c) {
            const int j = column(c);
            T* cp = C + i + static_cast<long long>(j) * ldc;
            if (whole(j)) {
#pragma unroll
                for (int v = 0; v < 4 / W; ++v) {
                    T out[W];
                    if (beta == T(0)) {
#pragma unroll
                        for (int e = 0; e < W; ++e) out[e] = alpha * acc[4 * q + v * W + e][c];
                    } else {
                        const T* po = reinterpret_cast<const T*>(&old[c][v]);
#pragma unroll
                        for (int e = 0; e < W; ++e) out[e] = alpha * acc[4 * q + v * W + e][c] + beta * po[e];
                    }
                    *reinterpret_cast<V*>(cp + v * W) = *reinterpret_cast<const V*>(out);
                }
            } else if (j < n) {
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    if (i + e < m) gemm_detail::store_c(C, ldc, i + e, j, alpha, acc[4 * q + e][c], beta);
            }
        }
    }

}
//! [tuned-gemm]

}  // namespace
}  // namespace wb::tuned::gemm_impl
