/// \file vec16.cuh
/// \brief The 16-byte vector of an element type (float4, double2) and element access by a
///        compile-time index: what the steps' 16-byte loads and stores share (GEMV, GEMM,
///        convolution, SYMV).
#pragma once

#include <cuda_runtime.h>

namespace wb::detail {

/// 16-byte vector of T: float4 (4 floats) or double2 (2 doubles).
template <class T> struct Vec16;
template <> struct Vec16<float>  { using type = float4;  static constexpr int width = 4; };
template <> struct Vec16<double> { using type = double2; static constexpr int width = 2; };

/// Element k of a 16-byte vector (k a compile-time constant after unrolling).
__device__ __forceinline__ float  vget(const float4& v, int k)  { return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w; }
__device__ __forceinline__ double vget(const double2& v, int k) { return k == 0 ? v.x : v.y; }
/// Sets element k of a 16-byte vector (k a compile-time constant after unrolling).
__device__ __forceinline__ void vset(float4& v, int k, float s)   { (k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w) = s; }
__device__ __forceinline__ void vset(double2& v, int k, double s) { (k == 0 ? v.x : v.y) = s; }

}  // namespace wb::detail
