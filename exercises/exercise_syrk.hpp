/// \file exercise_syrk.hpp
/// \brief Chapter 2's GEMM exercise: SYRK, the symmetric rank-k update (the contract, the rules
///        the launcher checks, and the float64 reference the grader compares with).
///
/// `C = alpha * op(A) * op(A)^T + beta * C`, C `n x n` symmetric, column-major (element (i, j)
/// at `C[i + j * ldc]`), of which only the `uplo` triangle is read and written:
///   - `trans == 'N'`: op(A) = A, `n x k`, element (i, p) at `A[i + p * lda]`, `lda >= max(1, n)`;
///   - `trans == 'T'`: op(A) = A^T, A is `k x n`, element (p, i) at `A[p + i * lda]`, `lda >= max(1, k)`;
///   - `uplo == 'L'`: entries with i >= j; `uplo == 'U'`: entries with i <= j. The other
///     triangle, and the rows between n and ldc, are not touched.
/// The BLAS conventions (ssyrk, cublasSsyrk): when `beta == 0` C is only written (a NaN in it
/// must not come through); when n is 0, or `alpha == 0` or k is 0 with `beta == 1`, nothing is
/// touched (the pointers may then be null); when alpha or k is 0 otherwise, C = beta * C on the
/// triangle (A is not read).
///
/// Each file defines, in `namespace wb::ex::WB_EX_NS`:
/// \code
///   void syrk(const SyrkArgs& args, cudaStream_t stream);
/// \endcode
/// kernels/ tiles GEMM, whose two operands differ; SYRK reads one operand twice and computes
/// half of C: the exercise is to tile it in shared memory and skip the tiles it does not need.
#pragma once

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef WB_EX_NS
/// The namespace a compiled exercise file lands in (exercise_transpose.hpp says why).
#define WB_EX_NS submission
#endif

#ifdef __CUDACC__
#define WB_EX_HOST_DEVICE __host__ __device__
#else
#define WB_EX_HOST_DEVICE  ///< host and device under nvcc, host under a host compiler
#endif

namespace wb::ex {

/// Arguments of one SYRK (see the file comment).
struct SyrkArgs {
    char uplo = 'L';            ///< 'L' or 'U': the triangle of C read and written
    char trans = 'N';           ///< 'N': C += A A^T with A n x k; 'T': C += A^T A with A k x n
    int n = 0, k = 0;           ///< >= 0
    float alpha = 1, beta = 0;
    const float* A = nullptr;   ///< device
    int lda = 1;                ///< >= max(1, n) ('N') or max(1, k) ('T')
    float* C = nullptr;         ///< device, n x n column-major
    int ldc = 1;                ///< >= max(1, n)
};

/// The launcher every syrk.cu defines.
using SyrkFn = void (*)(const SyrkArgs&, cudaStream_t);

/// Whether BLAS returns at once: nothing is read nor written.
inline bool syrk_quick_return(const SyrkArgs& a) {
    return a.n == 0 || ((a.alpha == 0.0f || a.k == 0) && a.beta == 1.0f);
}

/// Whether (i, j) lies in the triangle that `a.uplo` names.
WB_EX_HOST_DEVICE inline bool syrk_in_triangle(const SyrkArgs& a, long long i, long long j) { return a.uplo == 'L' ? i >= j : i <= j; }

/// Checks `a` before anything touches the GPU; throws std::invalid_argument naming the
/// function, the argument, its value and the rule, e.g. "ch02 syrk: ldc (3) must be >= max(1, n) (4)".
inline void check_syrk_args(const char* fn, const SyrkArgs& a) {
    auto fail = [fn](const std::string& what) { throw std::invalid_argument(std::string(fn) + ": " + what); };
    if (a.uplo != 'L' && a.uplo != 'U') fail(std::string("uplo ('") + a.uplo + "') must be 'L' or 'U'");
    if (a.trans != 'N' && a.trans != 'T') fail(std::string("trans ('") + a.trans + "') must be 'N' or 'T'");
    if (a.n < 0) fail("n (" + std::to_string(a.n) + ") must be >= 0");
    if (a.k < 0) fail("k (" + std::to_string(a.k) + ") must be >= 0");
    const int rows_a = a.trans == 'N' ? a.n : a.k;
    const int min_lda = rows_a > 1 ? rows_a : 1, min_ldc = a.n > 1 ? a.n : 1;
    if (a.lda < min_lda)
        fail("lda (" + std::to_string(a.lda) + ") must be >= max(1, " + (a.trans == 'N' ? "n" : "k") + ") (" +
             std::to_string(min_lda) + ")");
    if (a.ldc < min_ldc) fail("ldc (" + std::to_string(a.ldc) + ") must be >= max(1, n) (" + std::to_string(min_ldc) + ")");
    if (!std::isfinite(a.alpha) || !std::isfinite(a.beta)) fail("alpha and beta must be finite");
    if (syrk_quick_return(a)) return;
    if (a.C == nullptr) fail("C (null) must point to device memory when n > 0");
    if (a.A == nullptr && a.alpha != 0.0f && a.k > 0) fail("A (null) must point to device memory when n, k and alpha are not 0");
}

/// The float64 reference on host copies of A and C (laid out as on the device): returns C
/// (ldc x n, every entry) after the update, computed in double; entries outside the triangle,
/// and all of C on a quick return, keep their old values. With `beta == 0` the old triangle is not read.
inline std::vector<double> syrk_reference(const SyrkArgs& a, const std::vector<float>& A, const std::vector<float>& C) {
    check_syrk_args("syrk_reference", a);
    const std::size_t csize = static_cast<std::size_t>(a.ldc) * static_cast<std::size_t>(a.n);
    if (C.size() < csize)
        throw std::invalid_argument("syrk_reference: C (" + std::to_string(C.size()) + " entries) must hold ldc * n (" +
                                    std::to_string(csize) + ")");
    const bool reads_a = a.alpha != 0.0f && a.k > 0;
    const long long a_last = a.trans == 'N' ? static_cast<long long>(a.k - 1) * a.lda + a.n - 1
                                            : static_cast<long long>(a.n - 1) * a.lda + a.k - 1;
    if (reads_a && !syrk_quick_return(a) && static_cast<long long>(A.size()) <= a_last)
        throw std::invalid_argument("syrk_reference: A (" + std::to_string(A.size()) + " entries) must hold entry " +
                                    std::to_string(a_last));
    std::vector<double> out(C.begin(), C.begin() + static_cast<std::ptrdiff_t>(csize));
    if (syrk_quick_return(a)) return out;
    auto op = [&](long long i, long long p) {
        return static_cast<double>(a.trans == 'N' ? A[static_cast<std::size_t>(i + p * a.lda)]
                                                  : A[static_cast<std::size_t>(p + i * a.lda)]);
    };
    for (long long j = 0; j < a.n; ++j)
        for (long long i = 0; i < a.n; ++i) {
            if (!syrk_in_triangle(a, i, j)) continue;
            double dot = 0;
            if (reads_a)
                for (long long p = 0; p < a.k; ++p) dot += op(i, p) * op(j, p);
            const std::size_t at = static_cast<std::size_t>(i + j * a.ldc);
            out[at] = a.alpha * dot + (a.beta == 0.0f ? 0.0 : a.beta * static_cast<double>(C[at]));
        }
    return out;
}

}  // namespace wb::ex
