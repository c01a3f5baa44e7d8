/// \file exercise_spmv.hpp
/// \brief Chapter 3's SYMV exercise: SPMV, the product of a symmetric matrix held in BLAS packed
///        storage (the contract, the rules the launcher checks, the float64 reference).
///
/// `y = alpha * A * x + beta * y` with A `n x n` symmetric, of which only one triangle is stored,
/// column by column and without gaps, as BLAS's sspmv stores it (column-major packed):
///   - `uplo == 'U'`: A(i, j) for `0 <= i <= j` at `AP[i + j * (j + 1) / 2]`;
///   - `uplo == 'L'`: A(i, j) for `j <= i < n` at `AP[i + (2 * n - j - 1) * j / 2]`;
/// AP has `n * (n + 1) / 2` entries and A(j, i) = A(i, j). x and y have n entries each, contiguous
/// (BLAS's incx = incy = 1; other increments are not part of this exercise). BLAS conventions:
/// when `beta == 0` y is only written (a NaN in it must not come through); when n is 0, or
/// `alpha == 0` and `beta == 1`, nothing is read nor written (so the pointers may be null).
///
/// Each file defines, in `namespace wb::ex::WB_EX_NS`:
/// \code
///   void spmv(const SpmvArgs& args, cudaStream_t stream);
/// \endcode
/// kernels/ solves SYMV on a dense array with a leading dimension; here the stored triangle has no
/// padding, its columns have n - j (lower) or j + 1 (upper) entries, and each stored element
/// A(i, j), i != j, is read once and serves both y[i] (as A(i, j) x[j]) and y[j] (as A(j, i) x[i]).
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

namespace wb::ex {

/// Arguments of one SPMV (see the file comment).
struct SpmvArgs {
    char uplo = 'L';            ///< 'U' or 'L': the triangle AP holds
    int n = 0;                  ///< A is n x n; >= 0
    float alpha = 1, beta = 0;
    const float* AP = nullptr;  ///< device: n (n + 1) / 2 entries
    const float* x = nullptr;   ///< device: n entries
    float* y = nullptr;         ///< device: n entries
};

/// The launcher every spmv.cu defines.
using SpmvFn = void (*)(const SpmvArgs&, cudaStream_t);

/// Entries of the packed triangle of an n x n matrix.
inline long long spmv_packed_size(long long n) { return n * (n + 1) / 2; }

/// Where A(i, j) of the stored triangle lies in AP (`i <= j` for 'U', `i >= j` for 'L').
inline long long spmv_packed_index(char uplo, long long n, long long i, long long j) {
    return uplo == 'U' ? i + j * (j + 1) / 2 : i + (2 * n - j - 1) * j / 2;
}

/// Whether BLAS returns at once: nothing is read nor written.
inline bool spmv_quick_return(const SpmvArgs& a) { return a.n == 0 || (a.alpha == 0.0f && a.beta == 1.0f); }

/// Checks `a` before anything touches the GPU; throws std::invalid_argument naming the
/// function, the argument, its value and the rule, e.g. "ch03 spmv: n (-1) must be >= 0".
inline void check_spmv_args(const char* fn, const SpmvArgs& a) {
    auto fail = [fn](const std::string& what) { throw std::invalid_argument(std::string(fn) + ": " + what); };
    if (a.uplo != 'U' && a.uplo != 'L') fail(std::string("uplo ('") + a.uplo + "') must be 'U' or 'L'");
    if (a.n < 0) fail("n (" + std::to_string(a.n) + ") must be >= 0");
    if (!std::isfinite(a.alpha) || !std::isfinite(a.beta)) fail("alpha and beta must be finite");
    if (spmv_quick_return(a)) return;
    if (a.AP == nullptr) fail("AP (null) must point to device memory when n (" + std::to_string(a.n) + ") > 0");
    if (a.x == nullptr) fail("x (null) must point to device memory when n (" + std::to_string(a.n) + ") > 0");
    if (a.y == nullptr) fail("y (null) must point to device memory when n (" + std::to_string(a.n) + ") > 0");
}

/// The float64 reference on host copies of AP, x and y: returns y's n entries computed in double,
/// reading every stored element once for both of its positions; with `beta == 0` the old y is not
/// read; on a quick return the old entries come back unchanged.
inline std::vector<double> spmv_reference(const SpmvArgs& a, const std::vector<float>& AP, const std::vector<float>& x,
                                          const std::vector<float>& y) {
    check_spmv_args("spmv_reference", a);
    const long long n = a.n;
    auto need = [](const std::vector<float>& v, long long count, const char* name) {
        if (count > static_cast<long long>(v.size()))
            throw std::invalid_argument(std::string("spmv_reference: ") + name + " (" + std::to_string(v.size()) +
                                        " entries) must hold " + std::to_string(count));
    };
    need(y, n, "y");
    std::vector<double> out(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(n));
    if (spmv_quick_return(a)) return out;
    need(x, n, "x");
    need(AP, spmv_packed_size(n), "AP");
    std::vector<double> ax(static_cast<std::size_t>(n), 0.0);
    for (long long j = 0; j < n; ++j) {
        const long long lo = a.uplo == 'U' ? 0 : j, hi = a.uplo == 'U' ? j : n - 1;
        for (long long i = lo; i <= hi; ++i) {
            const double aij = AP[static_cast<std::size_t>(spmv_packed_index(a.uplo, n, i, j))];
            ax[static_cast<std::size_t>(i)] += aij * x[static_cast<std::size_t>(j)];
            if (i != j) ax[static_cast<std::size_t>(j)] += aij * x[static_cast<std::size_t>(i)];
        }
    }
    for (std::size_t k = 0; k < out.size(); ++k) out[k] = a.alpha * ax[k] + (a.beta == 0.0f ? 0.0 : a.beta * out[k]);
    return out;
}

}  // namespace wb::ex
