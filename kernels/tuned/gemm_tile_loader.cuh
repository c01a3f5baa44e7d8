/// \file tuned/gemm_tile_loader.cuh
/// \brief The tuned GEMM's tile loaders: how one operand's tile of BK x R elements gets from
///        global memory into a stage of the shared-memory ring (cp.async 16-byte straight into
///        place, or 16-byte vectors through registers stored transposed, or element copies that
///        stay coalesced), and which operands a kernel stores swizzled (OperandSwizzle).
#pragma once

#include "gemm_common.cuh"
#include "cp_async.cuh"
#include "tuned/gemm_config.hpp"
#include "tuned/gemm_swizzle.hpp"

namespace wb::tuned::gemm_impl {

using detail::cp_async;
using detail::cp_async_commit;
using detail::cp_async_wait;

/// One operand's tile loader. The tile is s[p][r] = op(X)(r0 + r, p0 + p), p < BK, r < R (R = BM
/// for op(A), BN for op(B)), k-major in shared memory. `ContigR`: X is stored with r contiguous
/// (A with op N, B with op T) -> cp.async straight into place. Otherwise p is contiguous (A with
/// op T, B with op N) -> vectors along p through registers, stored transposed.
template <class Cfg, int R, bool ContigR, bool VEC, bool Swizzle = false, bool Async = false>
struct TileLoader {
    using T = typename Cfg::type;
    using V = typename gemm_detail::Vec16<T>::type;
    static constexpr int THREADS = Cfg::THREADS, BK = Cfg::BK;
    // Swizzle without VEC: the element path of a transposing operand (columns not 16-byte
    // aligned) in the 16-byte path's slots and stage layout, each slot's W elements copied by W
    // cp.async of one element straight into their swizzled places (no registers), coalesced along
    // k. Async: the same on the 16-byte path (the configuration asks for it, long_side_async_b).
    static constexpr bool ELEM_SWIZZLE = Swizzle && (!VEC || Async);
    static constexpr int W = VEC || Swizzle ? Cfg::W : 1;     // elements per slot
    static constexpr int PER_THREAD = BK * R / W / THREADS;   // slots per thread per tile
    static constexpr int REGS = ContigR || ELEM_SWIZZLE ? 1 : PER_THREAD * W;  // staging registers (transposing path)
    // The element path of an operand stored along r (ContigR, W = 1): each warp copies whole
    // columns p of the tile, 32 consecutive r per copy, so that a thread's copies of one column lie
    // at immediate offsets (32 elements apart) from one address, E / C addresses per tile (E copies
    // per thread, C = R / 32 per column). The 16-byte path's mapping (consecutive warps along r,
    // then p) would give each of a thread's copies its own column: E 64-bit addresses live across
    // the main loop, which pushes the largest tiles to the register cap.
    static constexpr int C32 = R / 32;
    // Float only: in double this mapping makes some kernels spill (ptxas, sm_90), and the double
    // element path is not measured.
    static constexpr bool ELEM_COLUMNS =
        sizeof(T) == 4 && ContigR && W == 1 && R % 32 == 0 && PER_THREAD % (C32 > 0 ? C32 : 1) == 0;
    // Swizzle (the kernel decides, OperandSwizzle): the transposing path, coalesced and swizzled: a row's
    // BK contiguous elements come from G = BK / 4 lanes (BK = 16: 4 lanes, 64 bytes), so a warp's
    // 16-byte loads cover 32 / G whole rows (full sectors instead of half-used ones); the stage
    // holds element (p, r) at s[p][r ^ swizzle_xor(p)], so that the rows of one store instruction
    // land in distinct banks, and the fragment loads undo the XOR (load_frags<Cfg, SA, SB>; the
    // index map: gemm_swizzle.hpp, checked on the host by tests/cpu/test_gemm_swizzle.cpp).
    static constexpr int G = BK / 4;  // lanes per row of the swizzled path (float, 16-byte vectors)
    static_assert(!Swizzle || (!ContigR && sizeof(T) == 4 && (G == 2 || G == 4 || G == 8) && R % 32 == 0 &&
                               (THREADS / G) % gemm_swizzle::rows_per_pass_multiple<G>() == 0),
                  "the coalesced mapping is written for float, BK = 8, 16 or 32, 16-byte vectors, R a multiple of 32 "
                  "rows, passes a multiple of gemm_swizzle::rows_per_pass_multiple rows");

    const T* X;
    int ldx, r0, rows, k;  // rows: extent of r in the operand (m or n); k: the reduction length
    T reg[REGS];

    // Copy number e of this thread: (p, r) of its first element.
    __device__ __forceinline__ void coords(int e, int& p, int& r) const {
        const int v = threadIdx.x + e * THREADS;
        if constexpr (ELEM_COLUMNS) {  // warp w: columns w, w + THREADS / 32, ...; copy e: chunk e % C32
            p = gemm_swizzle::column_copy_col(threadIdx.x, e, R, THREADS);
            r = gemm_swizzle::column_copy_row(threadIdx.x, e, R);
        } else if constexpr (ContigR) {  // W consecutive r of one p; a warp covers 32W consecutive r
            p = v / (R / W);
            r = (v % (R / W)) * W;
        } else if constexpr (Swizzle) {  // (constexpr: the index map exists for BK = 8, 16, 32 only)
            // G = BK / 4 consecutive lanes read one r's BK contiguous p;
            // a warp covers 32 / G rows per instruction, permuted so that they differ in every
            // bit of r mod 32 but those the swizzle XORs with p / 4 (gemm_swizzle.hpp).
            r = gemm_swizzle::row_of_thread<G>(threadIdx.x) + e * (THREADS / G);
            p = gemm_swizzle::k_of_thread<G>(threadIdx.x);
        } else {        // W consecutive p of one r; consecutive lanes take consecutive r
            r = v % R;
            p = (v / R) * W;
        }
    }

    /// ContigR: issue the cp.async copies of tile p0 into `s` (guarded: edge tiles).
    template <bool Guard>
    __device__ __forceinline__ void async_copy(T* s, int p0) const {
#pragma unroll
        for (int e = 0; e < PER_THREAD; ++e) {
            int p, r;
            coords(e, p, r);
            const int gp = p0 + p, gr = r0 + r;
            int bytes = W * sizeof(T);
            const T* src = X + gr + static_cast<long long>(gp) * ldx;
            if (Guard) {
                const int valid = gp < k ? min(W, max(0, rows - gr)) : 0;
                bytes = valid * static_cast<int>(sizeof(T));
                if (valid == 0) src = X;  // never form an address outside the operand
            }
            cp_async(s + p * R + r, src, W * sizeof(T), bytes);
        }
    }

    /// ELEM_SWIZZLE: issue tile p0's element copies into their swizzled places in `s` (guarded:
    /// edge tiles; cp.async's src-size 0 zero-fills an element outside the operand).
    template <bool Guard>
    __device__ __forceinline__ void async_copy_swizzled(T* s, int p0) const {
#pragma unroll
        for (int e = 0; e < PER_THREAD; ++e) {
            int p, r;
            coords(e, p, r);
            const int gp = p0 + p, gr = r0 + r;
            const int col = r ^ gemm_swizzle::swizzle_xor<G>(p);  // p + c (c < W) shares p / 4
            const T* src = X + gp + static_cast<long long>(gr) * ldx;
#pragma unroll
            for (int c = 0; c < W; ++c) {
                const bool ok = !Guard || (gr < rows && gp + c < k);
                cp_async(s + (p + c) * R + col, ok ? src + c : X, sizeof(T), ok ? sizeof(T) : 0);
            }
        }
    }

    /// !ContigR: load tile p0 into registers (guarded: element by element, zeros outside).
    template <bool Guard>
    __device__ __forceinline__ void load_regs(int p0) {
#pragma unroll
        for (int e = 0; e < PER_THREAD; ++e) {
            int p, r;
            coords(e, p, r);
            const int gp = p0 + p, gr = r0 + r;
            const T* src = X + gp + static_cast<long long>(gr) * ldx;
            if (!Guard) {
                if (W == Cfg::W && W > 1) {
                    const V v = __ldg(reinterpret_cast<const V*>(src));
                    const T* pv = reinterpret_cast<const T*>(&v);
#pragma unroll
                    for (int c = 0; c < W; ++c) reg[e * W + c] = pv[c];
                } else {
#pragma unroll
                    for (int c = 0; c < W; ++c) reg[e * W + c] = __ldg(src + c);
                }
            } else {
#pragma unroll
                for (int c = 0; c < W; ++c) reg[e * W + c] = gr < rows && gp + c < k ? __ldg(src + c) : T(0);
            }
        }
    }

    /// !ContigR: store the registers transposed: s[p + c][r] (a warp writes 32 consecutive r).
    __device__ __forceinline__ void store_regs(T* s) const {
#pragma unroll
        for (int e = 0; e < PER_THREAD; ++e) {
            int p, r;
            coords(e, p, r);
            if constexpr (Swizzle) {  // p is a multiple of 4, so p + c (c < 4) shares p / 4: one swizzled column
                const int col = r ^ gemm_swizzle::swizzle_xor<G>(p);
#pragma unroll
                for (int c = 0; c < W; ++c) s[(p + c) * R + col] = reg[e * W + c];
            } else {
#pragma unroll
                for (int c = 0; c < W; ++c) s[(p + c) * R + r] = reg[e * W + c];
            }
        }
    }

    /// Starts the copy of tile p0 into stage `s`: cp.async, or the register loads (the
    /// transposed store follows with finish()).
    __device__ __forceinline__ void start(T* s, int p0, bool full) {
        if constexpr (ContigR) {
            if (full) async_copy<false>(s, p0);
            else async_copy<true>(s, p0);
        } else if constexpr (ELEM_SWIZZLE) {
            if (full) async_copy_swizzled<false>(s, p0);
            else async_copy_swizzled<true>(s, p0);
        } else {
            if (full) load_regs<false>(p0);
            else load_regs<true>(p0);
        }
    }
    __device__ __forceinline__ void finish(T* s) const {
        if constexpr (!ContigR && !ELEM_SWIZZLE) store_regs(s);
    }
};

/// Whether the element path may swizzle a transposing operand of R rows per stage (thread tile
/// TT, LL lanes along it): float (4 elements per slot), BK = 8, 16 or 32, whole 32-row passes of
/// the index map (TileLoader's static_assert), and fragment offsets that commute with the XOR
/// (load_frags's static_assert). Every float configuration's long operand qualifies; the short
/// side of the 16-wide tiles (R = 16) keeps the unswizzled element loads.
template <class Cfg, int R, int TT, int LL>
constexpr bool elem_swizzle() {
    constexpr int BK = Cfg::BK, G = BK / 4;
    if constexpr (sizeof(typename Cfg::type) != 4 || !(BK == 8 || BK == 16 || BK == 32)) return false;
    else return R % 32 == 0 && (Cfg::THREADS / G) % gemm_swizzle::rows_per_pass_multiple<G>() == 0 &&
                (TT == 4 || (4 * LL) % BK == 0);
}

/// Which operands' stages a kernel stores swizzled (TileLoader's Swizzle): the transposing ones
/// (op(A) = A^T: SA, op(B) = B: SB), on the 16-byte path where the configuration asks for it
/// (GemmSwizzle), on the element path wherever the index map covers the stage (elem_swizzle): its
/// copies are then coalesced along k and conflict-free in shared memory. The largest float tile
/// (GemmSwizzle::tn) swizzles op(B) = B only where op(A) = A^T too: in NN, where op(B) is the only
/// transposing operand, swizzling it measured slower (\ref notes_gemm).
template <class Cfg, bool TransA, bool TransB, bool VEC>
struct OperandSwizzle {
    static constexpr bool kLong =
        Cfg::SWIZZLE_T == GemmSwizzle::long_side || Cfg::SWIZZLE_T == GemmSwizzle::long_side_async_b;
    static constexpr bool A = TransA && (VEC ? Cfg::SWIZZLE_T == GemmSwizzle::tn || (kLong && Cfg::BM % 32 == 0)
                                             : elem_swizzle<Cfg, Cfg::BM, Cfg::TM, Cfg::LM>());
    static constexpr bool B = !TransB && (VEC ? (Cfg::SWIZZLE_T == GemmSwizzle::tn && TransA) || (kLong && Cfg::BN % 32 == 0)
                                              : elem_swizzle<Cfg, Cfg::BN, Cfg::TN, Cfg::LN>());
    /// NN's op(B) = B copied by 4-byte cp.async into its swizzled stage (long_side_async_b).
    static constexpr bool ASYNC_B = B && VEC && Cfg::SWIZZLE_T == GemmSwizzle::long_side_async_b && !TransA;
};

}  // namespace wb::tuned::gemm_impl
