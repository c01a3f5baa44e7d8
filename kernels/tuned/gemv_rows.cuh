/// \file tuned/gemv_rows.cuh
/// \brief How a thread of the tuned GEMV reads W consecutive rows of one column of A (N), for
///        each of the two load kinds the launch rules choose for N (GemvLoads,
///        kernels/gemv_rules.hpp):
///        - aligned: the column starts on a 16-byte boundary: one 16-byte load;
///        - element: it does not (odd lda, a submatrix at an offset), or m < 2W: one element
///          (W = 1). A warp of the tile reads 32 consecutive rows of one column per load
///          instruction, 128 or 256 contiguous bytes: one 32-byte sector more than an aligned
///          run (the L2 serves 25% or 12.5% more sector requests, DRAM sees every byte once),
///          and no shuffles or selects. (A first version kept 16-byte loads and realigned two
///          neighbouring lanes' vectors by shuffles, KBLAS TOMS §6.6 style; on an H200 it ran at
///          0.55-0.89x cuBLAS: docs/notes/gemv.md.)
///        Plus the small vector helpers the T kernels share (dot, ldv, elem).
#pragma once

#include "gemv_load_policy.cuh"
#include "gemv_rules.hpp"

#include <cstdint>
#include <type_traits>

namespace wb::tuned {

constexpr int kElement = static_cast<int>(GemvLoads::kElement);
constexpr int kAligned16 = static_cast<int>(GemvLoads::kAligned16);

/// What one load of load kind K gives: a 16-byte vector of W elements, or one element.
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

/// Issues the load of W rows of a column starting at p, with load kind K and policy P: aligned
/// loads through load_a (tuned/gemv_load_policy.cuh); element loads cached (__ldg) or, for every
/// other policy, streaming (__ldcs).
template <int K, int P, class T>
__device__ __forceinline__ typename Rows<T, K>::type load_rows(const T* p, unsigned long long pol) {
    if constexpr (K == kAligned16) {
        return load_a<P>(p, pol);
    } else {
        (void)pol;
        return P == kCached ? __ldg(p) : __ldcs(p);
    }
}

}  // namespace wb::tuned
