/// \file reference.hpp
/// \brief Float64 CPU references: the truth every GPU result is checked against.
#pragma once

#include <vector>

namespace wb::ref {

/// y = alpha*op(A)*x + beta*y computed in double, column-major A (m x n, leading dimension lda).
/// `trans` false: y has m entries, x has n; true: y has n, x has m. beta == 0 ignores y.
/// As in BLAS, m == 0 or n == 0 returns y unchanged (not even scaled by beta).
template <class T>
std::vector<double> gemv(bool trans, int m, int n, double alpha, const std::vector<T>& A, int lda,
                         const std::vector<T>& x, double beta, const std::vector<T>& y);

}  // namespace wb::ref
