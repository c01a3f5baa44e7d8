/// \file reference_symv.hpp
/// \brief The float64 CPU reference of SYMV, y = alpha*A*x + beta*y with A symmetric (column-major,
///        as BLAS), reading only the triangle `uplo` names: the other triangle may hold anything
///        (the tests fill it with NaN), and so may the padding rows n .. lda-1.
#pragma once

#include "blas_types.hpp"

#include <cstddef>
#include <vector>

namespace wb::ref {

/// alpha*A*x + beta*y in float64 for the n x n symmetric A stored in `uplo`'s triangle of the
/// column-major array A (leading dimension lda >= max(1, n), element (0, 0) at A[offset]); x and y
/// contiguous, n elements. beta == 0 ignores y (it may hold NaN). With `scale` non-null, the same
/// pass also writes |alpha| |A| |x| + |beta| |y| there: the right-hand side of BLAS's error bound
/// (compare.hpp). One pass over the stored triangle, column after column (each stored element
/// used for its own row and, off the diagonal, for its mirror's), in a fixed order: the result
/// does not depend on anything but the inputs. Throws std::invalid_argument on n < 0, lda <
/// max(1, n) or arrays too short for n, lda and offset.
template <class T>
std::vector<double> symv(Uplo uplo, int n, double alpha, const std::vector<T>& A, int lda, const std::vector<T>& x,
                         double beta, const std::vector<T>& y, std::size_t offset = 0,
                         std::vector<double>* scale = nullptr);

}  // namespace wb::ref
