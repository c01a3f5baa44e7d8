/// \file tuned/gemm_fragments.cuh
/// \brief The tuned GEMM's warp-level fragments: the operands of one k-step of a thread's tile,
///        read from a stage of shared memory into registers with 16-byte loads (undoing the
///        swizzle of a swizzled stage). The main loop that calls it: gemm_kernel.cuh.
#pragma once

#include "gemm_common.cuh"
#include "tuned/gemm_swizzle.hpp"

namespace wb::tuned::gemm_impl {

/// The fragments of k-step p of one stage: a[TM] (rows ra + q*4*LM .. +3 of op(A)) and b[TN]
/// (columns cb + q*4*LN .. +3 of op(B)), 16-byte shared loads.
template <class Cfg, bool SA = false, bool SB = false>
__device__ __forceinline__ void load_frags(const typename Cfg::type* a_s, const typename Cfg::type* b_s, int p,
                                           int ra, int cb, typename Cfg::type (&a)[Cfg::TM],
                                           typename Cfg::type (&b)[Cfg::TN]) {
    using T = typename Cfg::type;
    using V = typename gemm_detail::Vec16<T>::type;
    constexpr int BM = Cfg::BM, BN = Cfg::BN, TM = Cfg::TM, TN = Cfg::TN, LM = Cfg::LM, LN = Cfg::LN, W = Cfg::W;
    // A swizzled operand's element (p, r) is at p * R + (r ^ sw), sw = swizzle_xor(p): it flips
    // bits 2 .. 1 + log2(BK / 4) of r at most (bits 2, 3 for BK = 16; 2 .. 4 for BK = 32), so
    // (r + off) ^ sw = (r ^ sw) + off for the offsets below (multiples of BK, or none where the
    // thread tile is one vector wide) and a 16-byte vector stays whole.
    constexpr int kSwSpan = Cfg::BK;  // 4 x (BK / 4): the span of r the XOR stays within
    static_assert(!SA || (W == 4 && (TM == 4 || (4 * LM) % kSwSpan == 0)), "swizzle commutes with the fragment offsets");
    static_assert(!SB || (W == 4 && (TN == 4 || (4 * LN) % kSwSpan == 0)), "swizzle commutes with the fragment offsets");
    const int ras = SA ? ra ^ gemm_swizzle::swizzle_xor<Cfg::BK / 4>(p) : ra;
    const int cbs = SB ? cb ^ gemm_swizzle::swizzle_xor<Cfg::BK / 4>(p) : cb;
#pragma unroll
    for (int q = 0; q < TM / 4; ++q)
#pragma unroll
        for (int v = 0; v < 4 / W; ++v)
            *reinterpret_cast<V*>(&a[4 * q + v * W]) =
                *reinterpret_cast<const V*>(&a_s[p * BM + ras + q * 4 * LM + v * W]);
#pragma unroll
    for (int q = 0; q < TN / 4; ++q)
#pragma unroll
        for (int v = 0; v < 4 / W; ++v)
            *reinterpret_cast<V*>(&b[4 * q + v * W]) =
                *reinterpret_cast<const V*>(&b_s[p * BN + cbs + q * 4 * LN + v * W]);
}

}  // namespace wb::tuned::gemm_impl
