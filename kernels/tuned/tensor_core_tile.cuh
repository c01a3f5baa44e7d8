/// \file tuned/tensor_core_tile.cuh
/// \brief The device side the tensor-core GEMMs share (the FP64 DGEMM, dgemm_tensor_core.cu; the
///        3xTF32 SGEMM, sgemm_3xtf32.cu): both issue `mma.sync.m16n8k8` on operands kept in shared
///        memory in their stored order, so they share the tiles' layout and copies, the fragments'
///        places, the order blocks take tiles in, the slice of k a split gives a block, the
///        pipeline of the main loop and the epilogue. Each kernel's k-step (its multiply) stays
///        in its own file; the host side they share is tensor_core_launch.hpp.
///
/// The fragments of m16n8k8 (either element type): with g = lane / 4 and t = lane % 4, lane (g, t)
/// brings A[g][t], A[g+8][t], A[g][t+4], A[g+8][t+4] and B[t][g], B[t+4][g], and keeps C[g][2t],
/// C[g][2t+1], C[g+8][2t], C[g+8][2t+1].
#pragma once

#include "cp_async.cuh"
#include "gemm.hpp"

#include <algorithm>
#include <cstdint>

namespace wb::tuned::tc {

/// A shared tile of ROWS (m or n) x BK (k) elements of T, kept k-contiguous (KC: an operand
/// stored k-contiguous) or row-contiguous, so that the copies into it are 16-byte whatever op(A)
/// and op(B) are. The pitches make a warp's fragment loads conflict-free: k-contiguous rows of
/// BK + 4 elements (doubles: 4 mod 16 8-byte slots, lane (g, t) at slot 4 g + t of a half warp;
/// floats: 4 mod 32 banks, bank 4 g + t), row-contiguous ones of ROWS + 4 doubles (slot 4 t + g)
/// or ROWS + 8 floats (8 mod 32: bank 8 t + g).
template <class T, int ROWS, int BK, bool KC>
struct SmemTile {
    static constexpr int PITCH = KC ? BK + 4 : ROWS + (sizeof(T) == 4 ? 8 : 4);
    static constexpr int ELEMS = KC ? ROWS * PITCH : BK * PITCH;
    __device__ static int at(int row, int k) { return KC ? row * PITCH + k : k * PITCH + row; }
};

/// Dynamic shared memory of a kernel with Cfg::STAGES stages of an A tile (Cfg::BM x Cfg::BK, AKC)
/// and a B tile (Cfg::BN x Cfg::BK, BKC) of T.
template <class T, class Cfg, bool AKC, bool BKC>
constexpr int smem_bytes() {
    return Cfg::STAGES *
           (SmemTile<T, Cfg::BM, Cfg::BK, AKC>::ELEMS + SmemTile<T, Cfg::BN, Cfg::BK, BKC>::ELEMS) *
           static_cast<int>(sizeof(T));
}

/// Copies rows [r0, r0 + ROWS) x k [k0, k0 + BK) of an operand into a shared tile. The operand is
/// stored k-contiguous (KC: element (r, k) at p[k + r ld]) or row-contiguous (p[r + k ld]); `rows`
/// and `depth` bound it: what lies outside is zero-filled by the copy's byte count (zeros add
/// nothing to C), so the main loop needs no bounds checks. VEC: 16-byte copies.
template <class T, int ROWS, int BK, bool KC, bool VEC, int THREADS>
__device__ __forceinline__ void load_tile(T* s, const T* p, int ld, int r0, int k0, int rows, int depth) {
    using Tile = SmemTile<T, ROWS, BK, KC>;
    constexpr int E = static_cast<int>(sizeof(T));
    constexpr int W = VEC ? 16 / E : 1;    // elements per copy
    constexpr int CONTIG = KC ? BK : ROWS;  // extent along the contiguous direction
    constexpr int CHUNKS = ROWS * BK / W;   // copies per tile
    // Where the threads do not divide the chunks (96 x 128 x 32 over 384 threads: 5 1/3 chunks of
    // B each) the last round is partial; the test is resolved at compile time for the others.
#pragma unroll
    for (int i = 0; i < (CHUNKS + THREADS - 1) / THREADS; ++i) {
        const int c = threadIdx.x + i * THREADS;
        if (CHUNKS % THREADS != 0 && c >= CHUNKS) break;
        const int along = (c % (CONTIG / W)) * W;  // position along the contiguous direction
        const int across = c / (CONTIG / W);
        const int r = KC ? across : along, k = KC ? along : across;
        const int gr = r0 + r, gk = k0 + k;
        // Elements left along the contiguous direction, 0 when the other one is outside.
        const int left = KC ? (gr < rows ? depth - gk : 0) : (gk < depth ? rows - gr : 0);
        const int n = std::max(0, std::min(W, left));
        const T* src = n > 0 ? (KC ? p + gk + static_cast<std::int64_t>(gr) * ld
                                   : p + gr + static_cast<std::int64_t>(gk) * ld)
                             : p;  // nothing is read at a zero byte count
        detail::cp_async(s + Tile::at(r, k), src, E * W, E * n);
    }
}

/// One k-step's fragments of a warp's tile (wm, wn) from shared tiles A and B: MT instructions
/// along m (4 elements each), NT along n (2 each), at k offset kk.
template <class TA, class TB, int MT, int NT, class T>
__device__ __forceinline__ void load_fragments(T (&fa)[MT][4], T (&fb)[NT][2], const T* A, const T* B, int wm,
                                               int wn, int g, int t, int kk) {
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int q = 0; q < 4; ++q) fa[i][q] = A[TA::at(wm + 16 * i + g + 8 * (q % 2), kk + t + 4 * (q / 2))];
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
        for (int q = 0; q < 2; ++q) fb[j][q] = B[TB::at(wn + 8 * j + g, kk + t + 4 * q)];
}

/// The first row and column of this block's tile of C. Tiles are numbered in groups of `group`
/// tile-rows, down a group's rows before across its columns: blocks launch in x-fastest order,
/// so the blocks resident at one time cover a square of C rather than a few whole columns of
/// tiles, and the slabs of A and B they read at one k are shared through the L2 (at 8192^3 a
/// column of 128 tiles rereads all of A per 3 columns otherwise). group = sqrt(resident blocks
/// of the GPU), from the host (configure_groups).
template <int BM, int BN>
__device__ __forceinline__ void grouped_tile(int group, int& m0, int& n0) {
    const long long pid = blockIdx.x + static_cast<long long>(blockIdx.y) * gridDim.x;
    const long long per_group = static_cast<long long>(group) * gridDim.y;
    const int first = static_cast<int>(pid / per_group) * group;
    const int rows = min(static_cast<int>(gridDim.x) - first, group);
    const int in_group = static_cast<int>(pid % per_group);
    m0 = (first + in_group % rows) * BM;
    n0 = (in_group / rows) * BN;
}

/// Split k: slice blockIdx.z covers k [z kc, z kc + kc) of `a` (op(A) stored k-contiguous: AKC;
/// op(B): BKC) and, where `partials` is given, writes its partial C there (ld m, alpha 1, beta 0);
/// splitk::sum adds the slices in order. kc is a multiple of BK, so the shifted operands keep
/// their 16-byte alignment.
template <bool AKC, bool BKC, class T>
__device__ __forceinline__ void slice_of_k(GemmArgs<T>& a, int kc, T* partials) {
    const long long kbeg = static_cast<long long>(blockIdx.z) * kc;
    a.A += AKC ? kbeg : kbeg * a.lda;
    a.B += BKC ? kbeg : kbeg * a.ldb;
    a.k = static_cast<int>(min(static_cast<long long>(kc), a.k - kbeg));
    if (partials != nullptr) {
        a.C = partials + static_cast<long long>(blockIdx.z) * a.m * a.n;
        a.ldc = a.m;
        a.alpha = T(1);
        a.beta = T(0);
    }
}

/// One block of a tensor-core GEMM before and around its main loop: its STAGES shared tiles of
/// A and B, its tile of C (grouped_tile), its warp's place (wm, wn) and its lane's fragment
/// coordinates (g, t) in it, its slice of k (slice_of_k, applied to `a`) and the k-tiles of that
/// slice. issue(a, tile) copies k-tile `tile` into its stage and commits the group (an empty group
/// past the last tile keeps the wait counts uniform); fragments() loads one k-step's fragments;
/// main_loop() runs the pipeline around a kernel's k-step. What the kernels do with the
/// fragments, their multiplies, stays in their files.
template <class T, class Cfg, bool AKC, bool BKC, bool VEC_A, bool VEC_B>
struct BlockTile {
    using TA = SmemTile<T, Cfg::BM, Cfg::BK, AKC>;
    using TB = SmemTile<T, Cfg::BN, Cfg::BK, BKC>;
    T* sa;  // STAGES A tiles, then STAGES B tiles
    T* sb;
    int m0, n0, g, t, wm, wn, tiles;

    __device__ __forceinline__ BlockTile(T* smem, GemmArgs<T>& a, int kc, T* partials, int group)
        : sa(smem), sb(smem + Cfg::STAGES * TA::ELEMS) {
        grouped_tile<Cfg::BM, Cfg::BN>(group, m0, n0);  // the blocks resident at once share slabs in the L2
        const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
        g = lane / 4;
        t = lane % 4;
        wm = (warp % Cfg::WARPS_M) * Cfg::WM;
        wn = (warp / Cfg::WARPS_M) * Cfg::WN;
        slice_of_k<AKC, BKC>(a, kc, partials);  // split k: this block's slice
        tiles = (a.k + Cfg::BK - 1) / Cfg::BK;
    }

    __device__ __forceinline__ void issue(const GemmArgs<T>& a, int tile) const {
        const int stage = tile % Cfg::STAGES, k0 = tile * Cfg::BK;
        if (tile < tiles) {
            load_tile<T, Cfg::BM, Cfg::BK, AKC, VEC_A, Cfg::THREADS>(sa + stage * TA::ELEMS, a.A, a.lda, m0, k0, a.m, a.k);
            load_tile<T, Cfg::BN, Cfg::BK, BKC, VEC_B, Cfg::THREADS>(sb + stage * TB::ELEMS, a.B, a.ldb, n0, k0, a.n, a.k);
        }
        detail::cp_async_commit();
    }

    __device__ __forceinline__ void fragments(T (&fa)[Cfg::MT][4], T (&fb)[Cfg::NT][2], int stage, int kk) const {
        load_fragments<TA, TB>(fa, fb, sa + stage * TA::ELEMS, sb + stage * TB::ELEMS, wm, wn, g, t, kk);
    }

    /// The pipeline both kernels run: STAGES - 1 k-tiles copied ahead, one barrier per k-tile,
    /// the copy of tile t + STAGES - 1 issued at the top of tile t into the stage every warp
    /// finished reading in tile t - 1, and the fragments double-buffered in registers: while one
    /// k-step's instructions run, the next k-step's fragments load, across the tile boundary too
    /// (the barrier sits in each tile's last k-step, after which the next tile's first fragments
    /// are read). `step(fa, fb, advance)` is one k-step of a kernel's multiply on this k-step's
    /// fragments; it calls advance() once, where its registers allow the next fragments to load
    /// (the DGEMM before its instructions; the 3xTF32 SGEMM after splitting these into TF32
    /// parts). Every copy has landed when it returns.
    template <class Step>
    __device__ __forceinline__ void main_loop(const GemmArgs<T>& a, Step&& step) const {
        constexpr int KSTEPS = Cfg::BK / Cfg::MMA_K;
        static_assert(Cfg::MMA_K == 8, "the fragments of m16n8k8 (load_fragments)");
        static_assert(KSTEPS % 2 == 0, "an even number of k-steps per tile keeps the buffer parity per k-step");
        T fa[2][Cfg::MT][4], fb[2][Cfg::NT][2];
#pragma unroll
        for (int s = 0; s < Cfg::STAGES - 1; ++s) issue(a, s);
        detail::cp_async_wait<Cfg::STAGES - 2>();
        __syncthreads();
        if (tiles > 0) fragments(fa[0], fb[0], 0, 0);
        //! [tc-main-loop]
        for (int tile = 0; tile < tiles; ++tile) {
            issue(a, tile + Cfg::STAGES - 1);
#pragma unroll
            for (int ks = 0; ks < KSTEPS; ++ks) {
                const int cur = ks % 2;
                step(fa[cur], fb[cur], [&] {
                    if (ks == KSTEPS - 1) {
                        detail::cp_async_wait<Cfg::STAGES - 2>();
                        __syncthreads();  // tile + 1 has landed for every thread
                        if (tile + 1 < tiles) fragments(fa[cur ^ 1], fb[cur ^ 1], (tile + 1) % Cfg::STAGES, 0);
                    } else {
                        fragments(fa[cur ^ 1], fb[cur ^ 1], tile % Cfg::STAGES, (ks + 1) * Cfg::MMA_K);
                    }
                });
            }
        }
        //! [tc-main-loop]
        detail::cp_async_wait<0>();
    }
};

/// Epilogue: C = alpha acc + beta C for a warp's MT x NT accumulators of 16 x 8 at (m0 + wm,
/// n0 + wn), C read only where beta != 0, rows and columns past C skipped. Every load of C is
/// issued before the first store: a load after a store to C may alias it, so the compiler would
/// otherwise wait out one memory latency per element (with k of a few elements the epilogue is
/// the whole kernel: 32 dependent round trips per thread ran it at a quarter of the bandwidth).
template <int MT, int NT, class T>
__device__ __forceinline__ void store_c(const GemmArgs<T>& a, T (&acc)[MT][NT][4], int m0, int n0, int g, int t) {
    auto at = [&](int i, int j, int e, int* r, int* c) {
        *r = m0 + 16 * i + g + (e >= 2 ? 8 : 0);
        *c = n0 + 8 * j + 2 * t + (e & 1);
        return *r < a.m && *c < a.n;
    };
    auto each = [&](auto&& f) {  // f(i, j, e) on every accumulator, unrolled
#pragma unroll
        for (int i = 0; i < MT; ++i)
#pragma unroll
            for (int j = 0; j < NT; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e) f(i, j, e);
    };
    if (a.beta != T(0)) {
        T cin[MT][NT][4];
        each([&](int i, int j, int e) {
            int r, c;
            cin[i][j][e] = at(i, j, e, &r, &c) ? a.C[r + static_cast<std::int64_t>(c) * a.ldc] : T(0);
        });
        each([&](int i, int j, int e) { acc[i][j][e] = a.alpha * acc[i][j][e] + a.beta * cin[i][j][e]; });
    } else {
        each([&](int i, int j, int e) { acc[i][j][e] *= a.alpha; });
    }
    each([&](int i, int j, int e) {
        int r, c;
        if (at(i, j, e, &r, &c)) a.C[r + static_cast<std::int64_t>(c) * a.ldc] = acc[i][j][e];
    });
}

}  // namespace wb::tuned::tc
