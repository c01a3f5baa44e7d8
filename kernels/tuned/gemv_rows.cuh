/// \file tuned/gemv_rows.cuh
/// \brief How a thread of the tuned GEMV reads W consecutive rows of one column of A (N), for
///        each of the three load kinds the launch rules choose (GemvLoads, kernels/gemv_rules.hpp):
///        - aligned: the column starts on a 16-byte boundary: one 16-byte load;
///        - shifted: it does not (odd lda, a submatrix at an offset): the two aligned 16-byte
///          vectors around the rows, realigned in registers (KBLAS TOMS §6.6 keeps wide loads
///          over the aligned part the same way). The second vector is the next thread's first,
///          so it comes from L1: DRAM still moves each byte once;
///        - element: one element (W = 1), for matrices of fewer than 2W rows.
#pragma once

#include "gemv_load_policy.cuh"
#include "gemv_rules.hpp"

#include <cstdint>
#include <type_traits>

namespace wb::tuned {

constexpr int kElement = static_cast<int>(GemvLoads::kElement);
constexpr int kAligned16 = static_cast<int>(GemvLoads::kAligned16);
constexpr int kShifted16 = static_cast<int>(GemvLoads::kShifted16);

/// What one load of load kind K returns: a 16-byte vector of W elements, or one element.
template <class T, int K>
struct Rows {
    static constexpr int width = K == kElement ? 1 : detail::Vec16<T>::width;
    using type = typename std::conditional<K == kElement, T, typename detail::Vec16<T>::type>::type;
};

/// Element k of what a load returned (k a compile-time constant after unrolling).
__device__ __forceinline__ float elem(const float4& v, int k) { return detail::vget(v, k); }
__device__ __forceinline__ double elem(const double2& v, int k) { return detail::vget(v, k); }
__device__ __forceinline__ float elem(float v, int) { return v; }
__device__ __forceinline__ double elem(double v, int) { return v; }

/// Dot product of two 16-byte vectors.
template <class V, class T>
__device__ __forceinline__ T dot(const V& a, const V& b);
template <>
__device__ __forceinline__ float dot<float4, float>(const float4& a, const float4& b) {
    return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
template <>
__device__ __forceinline__ double dot<double2, double>(const double2& a, const double2& b) {
    return a.x * b.x + a.y * b.y;
}

/// 16-byte load of data that is reused (x): through the read-only path, cached normally.
template <class T>
__device__ __forceinline__ typename detail::Vec16<T>::type ldv(const T* p) {
    return __ldg(reinterpret_cast<const typename detail::Vec16<T>::type*>(p));
}

/// The W elements that start `off` elements into `lo` and continue into `hi` (off < W).
__device__ __forceinline__ float4 realign(const float4& lo, const float4& hi, int off) {
    float4 r;
    r.x = off == 0 ? lo.x : off == 1 ? lo.y : off == 2 ? lo.z : lo.w;
    r.y = off == 0 ? lo.y : off == 1 ? lo.z : off == 2 ? lo.w : hi.x;
    r.z = off == 0 ? lo.z : off == 1 ? lo.w : off == 2 ? hi.x : hi.y;
    r.w = off == 0 ? lo.w : off == 1 ? hi.x : off == 2 ? hi.y : hi.z;
    return r;
}
__device__ __forceinline__ double2 realign(const double2& lo, const double2& hi, int off) {
    return off == 0 ? lo : make_double2(lo.y, hi.x);
}

/// W rows of a column starting at p, with load kind K (and, for aligned loads, policy P).
/// Shifted loads read up to W - 1 elements before p and 2W - 1 after p + W - 1: the caller keeps
/// those inside the matrix (the tuned N kernel peels its first and last column, and needs m >= 2W).
template <int K, int P, class T>
__device__ __forceinline__ typename Rows<T, K>::type load_rows(const T* p, unsigned long long pol) {
    using V = typename detail::Vec16<T>::type;
    if constexpr (K == kAligned16) {
        return load_a<P>(p, pol);
    } else if constexpr (K == kElement) {
        return __ldg(p);
    } else {
        const std::uintptr_t addr = reinterpret_cast<std::uintptr_t>(p);
        const V* base = reinterpret_cast<const V*>(addr & ~std::uintptr_t(15));
        const int off = static_cast<int>((addr & 15) / sizeof(T));
        const V lo = __ldg(base);
        const V hi = __ldg(base + (off != 0));  // off == 0: lo again, from L1
        return realign(lo, hi, off);
    }
}

}  // namespace wb::tuned
