/// \file reference_cg.hpp
/// \brief The CPU side of CG's checks: SPD test matrices with a chosen condition number, the
///        float64 CG reference, and the true residual ||b - A x|| / ||b|| in float64.
///
/// The test matrices. A = H_k ... H_1 D H_1 ... H_k: D = diag(lambda) with a geometric spectrum,
/// lambda_i = kappa^(-i / (n - 1)), i = 0 .. n-1 (from 1 down to 1/kappa: the 2-norm condition
/// number is kappa exactly), and k = 3 random Householder reflections H = I - 2 v v^T (v seeded,
/// full mantissas, normalized). A similarity by orthogonal matrices keeps the spectrum, and each
/// reflection makes A denser: after one, every element is non-zero. The eigenvectors are not
/// Haar-random (three reflections do not mix the basis completely), but CG only sees the spectrum
/// and the components of b along the eigenvectors, which b = A x_true with a random x_true spreads.
/// Built without forming H: A = D + W S W^T with W n x 2k and S block diagonal (each reflection
/// adds v and A v to W), then the lower triangle is filled, O(k n^2), and mirrored, so A is exactly
/// symmetric in every precision. n = 16384 takes about a second on one core.
#pragma once

#include "cg_status.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace wb::ref {

/// The geometric spectrum lambda_i = kappa^(-i / (n - 1)) (lambda_0 = 1; n == 1: {1}).
std::vector<double> spd_spectrum(int n, double kappa);

/// Writes the SPD matrix described above (both triangles) into the n x n part of A (column-major,
/// leading dimension lda >= max(1, n)); the padding rows are left as they are. `negate` stores -A
/// (negative definite: CG breaks down at its first iteration). Throws std::invalid_argument on
/// n < 0, lda < max(1, n), kappa < 1, or reflections < 0.
template <class T>
void spd_matrix(int n, double kappa, std::uint64_t seed, T* A, int lda, int reflections = 3, bool negate = false);

/// The outcome of the CPU CG.
struct CgReference {
    std::vector<double> x;
    int iterations = 0;
    double residual = 0;  ///< recursive ||r|| / ||b||
    CgStatus status = CgStatus::MaxIter;
};

/// CG on the CPU in the arithmetic of S (double: the float64 reference; float: what a float solve
/// can do, for calibrating the tests' bounds), the same algorithm and stopping rules as the steps
/// (kernels/cg.hpp), reading the whole n x n matrix A (T elements, leading dimension lda).
/// Throws std::invalid_argument on bad sizes, tol or max_iter.
template <class S, class T>
CgReference cg(int n, const T* A, int lda, const std::vector<T>& b, const std::vector<T>& x0, double tol,
               int max_iter);

/// ||b - A x|| / ||b|| in float64 with the whole matrix A (0 when b == 0 and A x == 0).
template <class T>
double true_residual(int n, const T* A, int lda, const T* b, const T* x);

}  // namespace wb::ref
