/// \file l2_policy.cuh
/// \brief L2 eviction policies (createpolicy, sm_80+) and the loads and stores that carry
///        one: how a kernel tells the L2 what to let go first (a matrix read once) and what to
///        keep (the tuned SYMV's partials, read again by the reduction pass). Beside cp_async.cuh.
#pragma once

namespace wb::detail {

/// Every line accessed with this policy is evicted before normal ones.
__device__ __forceinline__ unsigned long long l2_evict_first() {
    unsigned long long pol;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    return pol;
}
/// The normal priority (what a load without a hint gets), as a policy to select at run time.
__device__ __forceinline__ unsigned long long l2_evict_normal() {
    unsigned long long pol;
    asm("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l"(pol));
    return pol;
}
/// evict_last for the share `fraction` (0 < fraction <= 1) of the lines accessed, the others'
/// priority unchanged.
__device__ __forceinline__ unsigned long long l2_evict_last(float fraction) {
    unsigned long long pol;
    asm("createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %0, %1;" : "=l"(pol) : "f"(fraction));
    return pol;
}

/// A float or double load with L2 policy `pol` through the read-only path: for data no thread
/// writes while the kernel runs.
template <class T>
__device__ __forceinline__ T load_l2(const T* p, unsigned long long pol) {
    T v;
    if constexpr (sizeof(T) == 4)
        asm("ld.global.nc.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(v) : "l"(p), "l"(pol));
    else
        asm("ld.global.nc.L2::cache_hint.f64 %0, [%1], %2;" : "=d"(v) : "l"(p), "l"(pol));
    return v;
}

/// The same load through the coherent path, as a volatile asm with a memory clobber: for data
/// another grid wrote, read after a wait for it (griddepcontrol.wait) that the load must not be
/// moved above (a load that only names its pointer carries no memory dependency the compiler sees).
template <class T>
__device__ __forceinline__ T load_l2_ordered(const T* p, unsigned long long pol) {
    T v;
    if constexpr (sizeof(T) == 4)
        asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(v) : "l"(p), "l"(pol) : "memory");
    else
        asm volatile("ld.global.L2::cache_hint.f64 %0, [%1], %2;" : "=d"(v) : "l"(p), "l"(pol) : "memory");
    return v;
}

/// A 16-byte load (float4 or double2; p 16-byte aligned) with L2 policy `pol` through the
/// read-only path.
__device__ __forceinline__ float4 load_l2_16(const float* p, unsigned long long pol) {
    float4 v;
    asm("ld.global.nc.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
        : "l"(p), "l"(pol));
    return v;
}
__device__ __forceinline__ double2 load_l2_16(const double* p, unsigned long long pol) {
    double2 v;
    asm("ld.global.nc.L2::cache_hint.v2.f64 {%0,%1}, [%2], %3;" : "=d"(v.x), "=d"(v.y) : "l"(p), "l"(pol));
    return v;
}

/// The same 16-byte loads as volatile asm: for a load under a condition that guards its address
/// or alignment. A non-volatile asm has no side effects as far as the compiler knows, so it may
/// run it on the other path too (if-conversion), where the address may be outside A or not
/// 16-byte aligned.
__device__ __forceinline__ float4 load_l2_16_guarded(const float* p, unsigned long long pol) {
    float4 v;
    asm volatile("ld.global.nc.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p), "l"(pol));
    return v;
}
__device__ __forceinline__ double2 load_l2_16_guarded(const double* p, unsigned long long pol) {
    double2 v;
    asm volatile("ld.global.nc.L2::cache_hint.v2.f64 {%0,%1}, [%2], %3;" : "=d"(v.x), "=d"(v.y) : "l"(p), "l"(pol));
    return v;
}

/// A float or double store with L2 policy `pol`.
template <class T>
__device__ __forceinline__ void store_l2(T* p, T v, unsigned long long pol) {
    if constexpr (sizeof(T) == 4)
        asm volatile("st.global.L2::cache_hint.f32 [%0], %1, %2;" ::"l"(p), "f"(v), "l"(pol) : "memory");
    else
        asm volatile("st.global.L2::cache_hint.f64 [%0], %1, %2;" ::"l"(p), "d"(v), "l"(pol) : "memory");
}

}  // namespace wb::detail
