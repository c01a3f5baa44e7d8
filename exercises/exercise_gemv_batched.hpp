/// \file exercise_gemv_batched.hpp
/// \brief Chapter 1's GEMV exercise: a strided batch of matrix-vector products (the contract,
///        the rules the launcher checks, and the float64 reference the grader compares with).
///
/// For every `b < batch`, with `A_b = A + b * strideA` (column-major `m x n`, element (i, j) at
/// `A_b[i + j * lda]`), `x_b = x + b * stridex`, `y_b = y + b * stridey`:
///   - `trans == 'N'`: `y_b = alpha * A_b * x_b + beta * y_b` (x has n entries, y has m);
///   - `trans == 'T'`: `y_b = alpha * A_b^T * x_b + beta * y_b` (x has m entries, y has n);
/// entry k of a vector v at `v[k * inc]`. The BLAS conventions (sgemv, cuBLAS's strided batch):
/// when `beta == 0` y is only written (a NaN in it must not come through); when m or n is 0, or
/// `alpha == 0` and `beta == 1`, nothing is read nor written (so the pointers may be null).
/// Strides between the batch's matrices and vectors keep them apart (the checks below).
///
/// Each file defines, in `namespace wb::ex::WB_EX_NS`:
/// \code
///   void gemv_batched(const GemvBatchedArgs& args, cudaStream_t stream);
/// \endcode
/// kernels/ solves one GEMV per launch; the exercise is the batch: one launch for all of them.
#pragma once

#include "exercise_grid.hpp"

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

/// Arguments of a strided batch of GEMVs (see the file comment).
struct GemvBatchedArgs {
    char trans = 'N';            ///< 'N' or 'T'
    int m = 0, n = 0;            ///< every A_b is m x n, column-major; >= 0
    int batch = 0;               ///< >= 0
    float alpha = 1, beta = 0;
    const float* A = nullptr;    ///< device
    int lda = 1;                 ///< >= max(1, m)
    long long strideA = 0;       ///< >= lda * n: the matrices do not overlap
    const float* x = nullptr;    ///< device
    int incx = 1;                ///< >= 1
    long long stridex = 0;       ///< >= (len(x) - 1) * incx + 1
    float* y = nullptr;          ///< device
    int incy = 1;                ///< >= 1
    long long stridey = 0;       ///< >= (len(y) - 1) * incy + 1: the outputs do not overlap
};

/// The launcher every gemv_batched.cu defines.
using GemvBatchedFn = void (*)(const GemvBatchedArgs&, cudaStream_t);

/// Entries of x and of y of one product.
inline long long gemv_x_len(const GemvBatchedArgs& a) { return a.trans == 'N' ? a.n : a.m; }
inline long long gemv_y_len(const GemvBatchedArgs& a) { return a.trans == 'N' ? a.m : a.n; }

/// Whether BLAS returns at once: nothing is read nor written.
inline bool gemv_batched_quick_return(const GemvBatchedArgs& a) {
    return a.m == 0 || a.n == 0 || a.batch == 0 || (a.alpha == 0.0f && a.beta == 1.0f);
}

/// Checks `a` before anything touches the GPU; throws std::invalid_argument naming the
/// function, the argument, its value and the rule, e.g.
/// "ch01 gemv_batched: lda (3) must be >= max(1, m) (4)".
inline void check_gemv_batched_args(const char* fn, const GemvBatchedArgs& a) {
    auto fail = [fn](const std::string& what) { throw std::invalid_argument(std::string(fn) + ": " + what); };
    if (a.trans != 'N' && a.trans != 'T') fail(std::string("trans ('") + a.trans + "') must be 'N' or 'T'");
    if (a.m < 0) fail("m (" + std::to_string(a.m) + ") must be >= 0");
    if (a.n < 0) fail("n (" + std::to_string(a.n) + ") must be >= 0");
    if (a.batch < 0) fail("batch (" + std::to_string(a.batch) + ") must be >= 0");
    const int min_lda = a.m > 1 ? a.m : 1;
    if (a.lda < min_lda) fail("lda (" + std::to_string(a.lda) + ") must be >= max(1, m) (" + std::to_string(min_lda) + ")");
    if (a.incx < 1) fail("incx (" + std::to_string(a.incx) + ") must be >= 1");
    if (a.incy < 1) fail("incy (" + std::to_string(a.incy) + ") must be >= 1");
    if (!std::isfinite(a.alpha) || !std::isfinite(a.beta)) fail("alpha and beta must be finite");
    if (gemv_batched_quick_return(a)) return;
    const long long min_sa = static_cast<long long>(a.lda) * a.n;
    const long long min_sx = (gemv_x_len(a) - 1) * a.incx + 1;
    const long long min_sy = (gemv_y_len(a) - 1) * a.incy + 1;
    if (a.batch > 1 && a.strideA < min_sa)
        fail("strideA (" + std::to_string(a.strideA) + ") must be >= lda * n (" + std::to_string(min_sa) + ")");
    if (a.batch > 1 && a.stridex < min_sx)
        fail("stridex (" + std::to_string(a.stridex) + ") must be >= (len(x) - 1) * incx + 1 (" + std::to_string(min_sx) + ")");
    if (a.batch > 1 && a.stridey < min_sy)
        fail("stridey (" + std::to_string(a.stridey) + ") must be >= (len(y) - 1) * incy + 1 (" + std::to_string(min_sy) + ")");
    if (a.A == nullptr || a.x == nullptr || a.y == nullptr)
        fail("A, x and y must point to device memory when m, n and batch are > 0");
}

/// The float64 reference on host copies of A, x and y (laid out as on the device): returns
/// every y_b's entries in order (batch-major, len(y) each), computed in double. With
/// `beta == 0` the old y is not read. On a quick return it returns the old y unchanged.
inline std::vector<double> gemv_batched_reference(const GemvBatchedArgs& a, const std::vector<float>& A,
                                                  const std::vector<float>& x, const std::vector<float>& y) {
    check_gemv_batched_args("gemv_batched_reference", a);
    const long long ylen = gemv_y_len(a), xlen = gemv_x_len(a);
    std::vector<double> out(static_cast<std::size_t>(a.batch > 0 ? a.batch * ylen : 0));
    auto need = [](const std::vector<float>& v, long long last, const char* name) {
        if (last >= static_cast<long long>(v.size()))
            throw std::invalid_argument(std::string("gemv_batched_reference: ") + name + " (" +
                                        std::to_string(v.size()) + " entries) must hold entry " + std::to_string(last));
    };
    for (int b = 0; b < a.batch; ++b) {
        for (long long k = 0; k < ylen; ++k) {
            const long long yi = b * a.stridey + k * a.incy;
            need(y, yi, "y");
            const double old = y[static_cast<std::size_t>(yi)];
            if (gemv_batched_quick_return(a)) { out[static_cast<std::size_t>(b * ylen + k)] = old; continue; }
            double dot = 0;
            for (long long l = 0; l < xlen; ++l) {
                const long long i = a.trans == 'N' ? k : l, j = a.trans == 'N' ? l : k;
                const long long ai = b * a.strideA + i + j * a.lda, xi = b * a.stridex + l * a.incx;
                need(A, ai, "A");
                need(x, xi, "x");
                dot += static_cast<double>(A[static_cast<std::size_t>(ai)]) * x[static_cast<std::size_t>(xi)];
            }
            out[static_cast<std::size_t>(b * ylen + k)] = a.alpha * dot + (a.beta == 0.0f ? 0.0 : a.beta * old);
        }
    }
    return out;
}

}  // namespace wb::ex
