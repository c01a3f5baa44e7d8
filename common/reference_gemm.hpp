/// \file reference_gemm.hpp
/// \brief The float64 CPU reference of GEMM, C = alpha*op(A)*op(B) + beta*C (column-major, as
///        BLAS), whole or for selected columns of C only.
#pragma once

#include "blas_types.hpp"

#include <vector>

namespace wb::ref {

/// The operands of one GEMM as host arrays (column-major, BLAS's conventions): A holds op(A)
/// (m x k) as A (op_a = N, lda >= m) or A^T (op_a = T, lda >= k); B holds op(B) (k x n) as B
/// (op_b = N, ldb >= k) or B^T (op_b = T, ldb >= n); C is m x n with ldc >= m. `offset` is the
/// index of element (0, 0) in each array (a submatrix's base).
template <class T>
struct GemmOperands {
    Op op_a = Op::N, op_b = Op::N;
    int m = 0, n = 0, k = 0;
    const std::vector<T>* A = nullptr;
    int lda = 1;
    const std::vector<T>* B = nullptr;
    int ldb = 1;
    const std::vector<T>* C = nullptr;  ///< C before the call (read only when beta != 0)
    int ldc = 1;
    std::size_t offset = 0;
};

/// Columns `cols` of alpha*op(A)*op(B) + beta*C in float64, column after column: the result has
/// cols.size() x m entries, column c of the result at [c*m, (c+1)*m). beta == 0 ignores C (it may
/// hold NaN). With `absolute`, every operand is replaced by its absolute value (and alpha, beta by
/// theirs): that is |alpha||op(A)||op(B)| + |beta||C|, the scale of BLAS's error bound.
/// Cost: m k multiply-adds per column, the inner loop always running down a contiguous column of
/// A: loop order j, p, i for op_a = N (axpy of columns of A), j, i, p for op_a = T (dot products
/// of columns of A with the column of op(B)).
/// A chapter at 8192^3 checks a seeded sample of columns (each costs m k, ~67 M at 8192).
/// With `scale` (and not `absolute`), the same columns of that scale are written to *scale in the
/// same pass (cheaper than a second call). Columns are spread over the host's cores; each
/// column's sum runs in a fixed order, so the result does not depend on the number of threads.
template <class T>
std::vector<double> gemm_columns(const GemmOperands<T>& o, double alpha, double beta, const std::vector<int>& cols,
                                 bool absolute = false, std::vector<double>* scale = nullptr);

/// The whole of C (every column), m x n column-major with leading dimension m.
/// BLAS's quick return: m == 0 or n == 0 gives an empty result.
template <class T>
std::vector<double> gemm(const GemmOperands<T>& o, double alpha, double beta);

}  // namespace wb::ref
