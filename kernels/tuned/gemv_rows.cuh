/// \file tuned/gemv_rows.cuh
/// \brief How a thread of the tuned GEMV reads W consecutive rows of one column of A (N), for
///        each of the three load kinds the launch rules choose (GemvLoads, kernels/gemv_rules.hpp):
///        - aligned: the column starts on a 16-byte boundary: one 16-byte load;
///        - shifted: it does not (odd lda, a submatrix at an offset): each thread loads the
///          aligned 16-byte vector at or before its rows, takes the next one from the next lane
///          by shuffles (that lane loaded it) and realigns the two in registers, so every byte
///          is still requested once (KBLAS TOMS §6.6 keeps wide loads over the aligned part the
///          same way). The last lane of a segment, and the thread at the end of the column,
///          load the next vector themselves;
///        - element: one element (W = 1), for matrices of fewer than 2W rows.
///        Loads are issued by load_rows() (and load_next()) and turned into the thread's W rows by
///        rows_of() when used: a batch of loads is in flight before the first shuffle waits.
#pragma once

#include "gemv_load_policy.cuh"
#include "gemv_rules.hpp"

#include <cstdint>
#include <type_traits>

namespace wb::tuned {

constexpr int kElement = static_cast<int>(GemvLoads::kElement);
constexpr int kAligned16 = static_cast<int>(GemvLoads::kAligned16);
constexpr int kShifted16 = static_cast<int>(GemvLoads::kShifted16);

/// What one load of load kind K gives: a 16-byte vector of W elements, or one element.
template <class T, int K>
struct Rows {
    static constexpr int width = K == kElement ? 1 : detail::Vec16<T>::width;
    using type = typename std::conditional<K == kElement, T, typename detail::Vec16<T>::type>::type;
};

/// Where a shifted load finds the next vector: `mask` and `width` name the lanes of the warp
/// that read one column side by side (min(block_x, 32) of them), `own_hi` says that this thread
/// loads the next vector itself (the segment's last lane, or the next lane's rows start past m).
struct Neighbour {
    unsigned mask = 0xffffffffu;
    int width = 32;
    bool own_hi = true;
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

/// Issues the load of W rows of a column starting at p, with load kind K (and, for aligned
/// loads, policy P): aligned and element loads give the rows; a shifted load gives the aligned
/// vector at or before p, which rows_of() turns into the rows. Shifted loads read up to W - 1
/// elements before p (and load_next() up to 2W - 1 after p + W - 1): the caller keeps those
/// inside the matrix (the tuned N kernel peels its first and last column and needs m >= 2W).
template <int K, int P, class T>
__device__ __forceinline__ typename Rows<T, K>::type load_rows(const T* p, unsigned long long pol) {
    using V = typename detail::Vec16<T>::type;
    if constexpr (K == kAligned16) {
        return load_a<P>(p, pol);
    } else if constexpr (K == kElement) {
        return __ldg(p);
    } else {
        return __ldg(reinterpret_cast<const V*>(reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t(15)));
    }
}

/// Shifted loads, in the lanes that load it themselves (`nb.own_hi`): the aligned vector after
/// load_rows()'s. Nothing otherwise (and for the other load kinds: an unused zero).
template <int K, class T>
__device__ __forceinline__ typename Rows<T, K>::type load_next(const T* p, const Neighbour& nb) {
    using V = typename detail::Vec16<T>::type;
    typename Rows<T, K>::type r{};
    if constexpr (K == kShifted16) {
        if (nb.own_hi)
            r = __ldg(reinterpret_cast<const V*>(reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t(15)) + 1);
    } else {
        (void)p, (void)nb;
    }
    return r;
}

/// The next lane's 16-byte vector, within `nb`'s segment.
__device__ __forceinline__ float4 from_next_lane(const float4& v, const Neighbour& nb) {
    return make_float4(__shfl_down_sync(nb.mask, v.x, 1, nb.width), __shfl_down_sync(nb.mask, v.y, 1, nb.width),
                       __shfl_down_sync(nb.mask, v.z, 1, nb.width), __shfl_down_sync(nb.mask, v.w, 1, nb.width));
}
__device__ __forceinline__ double2 from_next_lane(const double2& v, const Neighbour& nb) {
    return make_double2(__shfl_down_sync(nb.mask, v.x, 1, nb.width), __shfl_down_sync(nb.mask, v.y, 1, nb.width));
}

/// The thread's W rows at p from what load_rows() and load_next() gave. Shifted: every lane of
/// the segment must call it together (it shuffles); the other kinds give the load as it is.
template <int K, class T, class R>
__device__ __forceinline__ R rows_of(R loaded, R next, const T* p, const Neighbour& nb) {
    if constexpr (K == kShifted16) {
        // By value, and a select of values: a select of two references would take their
        // addresses and put the arrays they come from in local memory.
        const int off = static_cast<int>((reinterpret_cast<std::uintptr_t>(p) & 15) / sizeof(T));
        R hi = from_next_lane(loaded, nb);
        if (nb.own_hi) hi = next;
        return realign(loaded, hi, off);
    } else {
        (void)next, (void)p, (void)nb;
        return loaded;
    }
}

}  // namespace wb::tuned
