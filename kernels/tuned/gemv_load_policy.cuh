/// \file tuned/gemv_load_policy.cuh
/// \brief Exploration kept for the launch sweeps (GemvLaunch::cache): how the 16-byte loads of
///        A, which the tuned GEMV reads exactly once, treat the caches. Only a sweep reaches the
///        policies other than kCached and kStreaming; the teaching kernel calls `load_a<P>()` and
///        needs nothing else from here.
///
/// Why it matters at all: the L2 a GEMV meets is usually full of dirty lines (the previous
/// kernel's output; in the benchmarks, the flush's buffer), and every line of A brought in
/// evicts one: a dirty victim costs a DRAM write inside the GEMV. The hints decide which victims
/// A's lines pick. Measured on an H200 (the chapter 5 sweep, \ref notes_gemv):
/// streaming helps while A is at most 8 times the L2, and costs a few percent beyond.
#pragma once

#include "gemv_common.cuh"
#include "l2_policy.cuh"

#include <cstring>

namespace wb::tuned {

/// GemvLaunch::cache - 1.
enum LoadPolicy : int {
    kCached = 0,       ///< ld.global.nc (__ldg): the read-only path, normal L2 priority
    kStreaming = 1,    ///< ld.global.cs (__ldcs): evict-first in L1 and L2
    kEvictFirst = 2,   ///< ld.global.nc.L1::no_allocate.L2::cache_hint, createpolicy evict_first
    kStreaming256 = 3  ///< ld.global.cs.L2::256B: evict-first, and the L2 fetches 256-byte blocks
};

/// The L2 policy descriptor of kEvictFirst (all of A's lines evict-first); 0 for the others.
template <int P>
__device__ __forceinline__ unsigned long long load_policy() {
    if constexpr (P == kEvictFirst) return detail::l2_evict_first();
    return 0;
}

/// A 16-byte load of A (p 16-byte aligned) with policy P (`pol`: `load_policy<P>()`).
template <int P, class T>
__device__ __forceinline__ typename detail::Vec16<T>::type load_a(const T* p, unsigned long long pol) {
    using V = typename detail::Vec16<T>::type;
    if constexpr (P == kCached) {
        return __ldg(reinterpret_cast<const V*>(p));
    } else if constexpr (P == kStreaming) {
        return __ldcs(reinterpret_cast<const V*>(p));
    } else {
        uint4 r;
        if constexpr (P == kEvictFirst)
            asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
                         : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                         : "l"(p), "l"(pol));
        else
            asm volatile("ld.global.cs.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
                         : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                         : "l"(p));
        V v;
        static_assert(sizeof(V) == sizeof(uint4), "16-byte vectors");
        memcpy(&v, &r, sizeof(v));
        return v;
    }
}

}  // namespace wb::tuned
