/// \file exercise_gbmv.hpp
/// \brief Chapter 3's GEMV exercise: GBMV, the matrix-vector product of a banded matrix in BLAS
///        band storage (the contract, the rules the launcher checks, the float64 reference).
///
/// `y = alpha * op(A) * x + beta * y` with A `m x n`, nonzero only for `-kl <= j - i <= ku`
/// (kl subdiagonals, ku superdiagonals), stored as BLAS's sgbmv stores it: column j of A's band
/// is column j of the `(kl + ku + 1) x n` array AB (column-major, leading dimension `lda`), with
/// A(i, j) at `AB[(ku + i - j) + j * lda]` for `max(0, j - ku) <= i <= min(m - 1, j + kl)`
/// (the rest of AB is never read). `trans == 'N'`: x has n entries, y m; `'T'`: x has m, y n;
/// entry k of a vector v at `v[k * inc]`. BLAS conventions: when `beta == 0` y is only written;
/// when m or n is 0, or `alpha == 0` and `beta == 1`, nothing is touched.
///
/// Each file defines, in `namespace wb::ex::WB_EX_NS`:
/// \code
///   void gbmv(const GbmvArgs& args, cudaStream_t stream);
/// \endcode
/// kernels/ sums whole rows of a dense A; here a result's sum runs only over the band, at most
/// kl + ku + 1 terms between bounds that depend on the row: chapter 3's Q threads per result,
/// on such a sum.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
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

/// Arguments of one GBMV (see the file comment).
struct GbmvArgs {
    char trans = 'N';          ///< 'N' or 'T'
    int m = 0, n = 0;          ///< A is m x n; >= 0
    int kl = 0, ku = 0;        ///< sub- and superdiagonals; >= 0
    float alpha = 1, beta = 0;
    const float* A = nullptr;  ///< device: the band array AB, (kl + ku + 1) x n
    int lda = 1;               ///< >= kl + ku + 1
    const float* x = nullptr;  ///< device
    int incx = 1;              ///< >= 1
    float* y = nullptr;        ///< device
    int incy = 1;              ///< >= 1
};

/// The launcher every gbmv.cu defines.
using GbmvFn = void (*)(const GbmvArgs&, cudaStream_t);

/// Whether BLAS returns at once: nothing is read nor written.
inline bool gbmv_quick_return(const GbmvArgs& a) {
    return a.m == 0 || a.n == 0 || (a.alpha == 0.0f && a.beta == 1.0f);
}

/// Checks `a` before anything touches the GPU; throws std::invalid_argument naming the
/// function, the argument, its value and the rule, e.g.
/// "ch03 gbmv: lda (3) must be >= kl + ku + 1 (4)".
inline void check_gbmv_args(const char* fn, const GbmvArgs& a) {
    auto fail = [fn](const std::string& what) { throw std::invalid_argument(std::string(fn) + ": " + what); };
    if (a.trans != 'N' && a.trans != 'T') fail(std::string("trans ('") + a.trans + "') must be 'N' or 'T'");
    if (a.m < 0) fail("m (" + std::to_string(a.m) + ") must be >= 0");
    if (a.n < 0) fail("n (" + std::to_string(a.n) + ") must be >= 0");
    if (a.kl < 0) fail("kl (" + std::to_string(a.kl) + ") must be >= 0");
    if (a.ku < 0) fail("ku (" + std::to_string(a.ku) + ") must be >= 0");
    const long long min_lda = static_cast<long long>(a.kl) + a.ku + 1;
    if (a.lda < min_lda) fail("lda (" + std::to_string(a.lda) + ") must be >= kl + ku + 1 (" + std::to_string(min_lda) + ")");
    if (a.incx < 1) fail("incx (" + std::to_string(a.incx) + ") must be >= 1");
    if (a.incy < 1) fail("incy (" + std::to_string(a.incy) + ") must be >= 1");
    if (!std::isfinite(a.alpha) || !std::isfinite(a.beta)) fail("alpha and beta must be finite");
    if (gbmv_quick_return(a)) return;
    if (a.A == nullptr || a.x == nullptr || a.y == nullptr)
        fail("A, x and y must point to device memory when m and n are > 0");
}

/// The float64 reference on host copies of AB, x and y (laid out as on the device): returns
/// y's entries in order (len(y) of them), computed in double; with `beta == 0` the old y is not
/// read; on a quick return the old entries come back unchanged.
inline std::vector<double> gbmv_reference(const GbmvArgs& a, const std::vector<float>& AB, const std::vector<float>& x,
                                          const std::vector<float>& y) {
    check_gbmv_args("gbmv_reference", a);
    const long long ylen = a.trans == 'N' ? a.m : a.n, xlen = a.trans == 'N' ? a.n : a.m;
    auto need = [](const std::vector<float>& v, long long last, const char* name) {
        if (last >= static_cast<long long>(v.size()))
            throw std::invalid_argument(std::string("gbmv_reference: ") + name + " (" + std::to_string(v.size()) +
                                        " entries) must hold entry " + std::to_string(last));
    };
    need(y, (ylen - 1) * a.incy, "y");
    std::vector<double> out(static_cast<std::size_t>(ylen));
    for (long long k = 0; k < ylen; ++k) out[static_cast<std::size_t>(k)] = y[static_cast<std::size_t>(k * a.incy)];
    if (gbmv_quick_return(a)) return out;
    need(x, (xlen - 1) * a.incx, "x");
    need(AB, static_cast<long long>(a.n - 1) * a.lda + a.kl + a.ku, "A");
    for (long long k = 0; k < ylen; ++k) {
        double dot = 0;
        // 'N': row k, columns j in [k - kl, k + ku]; 'T': column k, rows i in [k - ku, k + kl].
        const long long lo = std::max(0LL, k - (a.trans == 'N' ? a.kl : a.ku));
        const long long hi = std::min(xlen - 1, k + (a.trans == 'N' ? a.ku : a.kl));
        for (long long l = lo; l <= hi; ++l) {
            const long long i = a.trans == 'N' ? k : l, j = a.trans == 'N' ? l : k;
            dot += static_cast<double>(AB[static_cast<std::size_t>(a.ku + i - j + j * a.lda)]) *
                   x[static_cast<std::size_t>(l * a.incx)];
        }
        const std::size_t at = static_cast<std::size_t>(k);
        out[at] = a.alpha * dot + (a.beta == 0.0f ? 0.0 : a.beta * out[at]);
    }
    return out;
}

}  // namespace wb::ex
