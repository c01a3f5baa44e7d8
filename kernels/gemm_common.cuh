/// \file gemm_common.cuh
/// \brief Device-side pieces every GEMM step shares: compile-time operand access for each
///        transpose case, the epilogue that applies alpha and beta (never reading C when
///        beta == 0), the launch guards and grid helpers, and the host-side begin() every
///        launcher calls first (validate, then BLAS's degenerate cases).
#pragma once

#include "gemm.hpp"
#include "launch_checks.hpp"
#include "check.hpp"
#include "vec16.cuh"

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace wb::gemm_detail {

using launch_checks::ceil_div;
using launch_checks::grid_dim;
using launch_checks::require_launch;
using launch_checks::sm_count;

/// 16-byte vector of T (vec16.cuh).
using detail::Vec16;

/// op(A)(i, p) for column-major A with leading dimension lda: A(i, p) when op_a = N, A(p, i) when
/// op_a = T. TransA is a template constant, so the index arithmetic is fixed at compile time.
template <bool TransA, class T>
__device__ __forceinline__ T load_op_a(const T* A, int lda, int i, int p) {
    return TransA ? A[p + static_cast<long long>(i) * lda] : A[i + static_cast<long long>(p) * lda];
}
/// op(B)(p, j): B(p, j) when op_b = N, B(j, p) when op_b = T.
template <bool TransB, class T>
__device__ __forceinline__ T load_op_b(const T* B, int ldb, int p, int j) {
    return TransB ? B[j + static_cast<long long>(p) * ldb] : B[p + static_cast<long long>(j) * ldb];
}

/// C(i, j) = alpha*acc + beta*C(i, j); with beta == 0, C is written without being read (BLAS).
template <class T>
__device__ __forceinline__ void store_c(T* C, int ldc, int i, int j, T alpha, T acc, T beta) {
    T* c = C + i + static_cast<long long>(j) * ldc;
    *c = beta == T(0) ? alpha * acc : alpha * acc + beta * *c;
}

/// What every launcher does first: validate (throws before anything touches the GPU), then
/// BLAS's degenerate cases: m == 0 or n == 0 returns at once; k == 0 or alpha == 0 gives
/// C = beta*C without reading A or B. Returns true when the step's kernel must run.
template <class T>
bool gemm_begin(const GemmArgs<T>& a, const char* fn, cudaStream_t s) {
    if (!validate_gemm(a, fn)) return false;
    if (a.k == 0 || a.alpha == T(0)) {
        gemm_scale_c(a, s);
        return false;
    }
    return true;
}

}  // namespace wb::gemm_detail
