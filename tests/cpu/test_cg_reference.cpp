// The CPU side of CG's checks (common/reference_cg, chapters/runner/cg_problem's bounds):
// - the SPD test matrices are exactly symmetric and have the promised spectrum (checked through
//   two invariants of an orthogonal similarity: the trace and the Frobenius norm), are dense, and
//   are positive (negative with `negate`) definite on random vectors;
// - the float64 CG reference converges to the tolerance within the classical bound, handles
//   n == 1, b == 0, max_iter, tol == 0, and reports a breakdown on a negative definite matrix;
// - the bound the gpu tests put on a float solve's true residual (cg_residual_bound) holds for a
//   float CG on the CPU, and a float solve needs at most 1.1x + 2 the float64 iterations on
//   well-conditioned problems: the gpu tests' criteria, calibrated here.
#include "catch.hpp"

#include "cg_problem.hpp"
#include "model/cg.hpp"
#include "random.hpp"
#include "reference_cg.hpp"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace {

template <class T>
std::vector<T> matrix(int n, int lda, double kappa, std::uint64_t seed, bool negate = false) {
    std::vector<T> A(static_cast<std::size_t>(lda) * n, std::numeric_limits<T>::quiet_NaN());
    wb::ref::spd_matrix<T>(n, kappa, seed, A.data(), lda, 3, negate);
    return A;
}

template <class T>
std::vector<T> times(int n, const std::vector<T>& A, int lda, const std::vector<T>& x) {
    std::vector<double> b(n, 0.0);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) b[i] += static_cast<double>(A[i + static_cast<std::size_t>(j) * lda]) * x[j];
    return std::vector<T>(b.begin(), b.end());
}

}  // namespace

TEST_CASE("spd_matrix: exactly symmetric, dense, with the geometric spectrum from 1 to 1/kappa", "[cpu][cg]") {
    for (int n : {1, 2, 17, 100, 257}) {
        for (double kappa : {1.0, 10.0, 1e4}) {
            const int lda = n + 3;
            const auto A = matrix<double>(n, lda, kappa, 42 + n);
            const auto l = wb::ref::spd_spectrum(n, kappa);
            double trace = 0, fro = 0, ltr = 0, lfro = 0;
            int zeros = 0;
            for (int j = 0; j < n; ++j)
                for (int i = 0; i < n; ++i) {
                    const double a = A[i + static_cast<std::size_t>(j) * lda];
                    REQUIRE(a == A[j + static_cast<std::size_t>(i) * lda]);
                    fro += a * a;
                    if (i == j) trace += a;
                    if (a == 0) ++zeros;
                }
            for (double v : l) {
                ltr += v;
                lfro += v * v;
            }
            INFO("n=" << n << " kappa=" << kappa);
            CHECK(l.front() == 1.0);
            if (n > 1) CHECK(std::abs(l.back() - 1 / kappa) <= 1e-12);
            CHECK(std::abs(trace - ltr) <= 1e-12 * ltr);
            CHECK(std::abs(fro - lfro) <= 1e-12 * lfro);
            if (n > 1 && kappa > 1) CHECK(zeros == 0);  // kappa == 1: A = I (reflections of I are I)
            CHECK(std::isnan(A[n == 0 ? 0 : n]));  // padding rows untouched (NaN)
            // x^T A x > 0 (positive definite) on random vectors; < 0 for the negated matrix.
            const auto x = wb::random_vector<double>(n, 7);
            const auto Ax = times(n, A, lda, x);
            double q = 0;
            for (int i = 0; i < n; ++i) q += x[i] * Ax[i];
            CHECK(q > 0);
            const auto N = matrix<double>(n, lda, kappa, 42 + n, true);
            CHECK(N[0] == -A[0]);
        }
    }
    std::vector<double> A(4);
    CHECK_THROWS_WITH(wb::ref::spd_matrix<double>(2, 0.5, 1, A.data(), 2),
                      Catch::Matchers::Contains("kappa (0.5") && Catch::Matchers::Contains("must be finite and >= 1"));
    CHECK_THROWS_WITH(wb::ref::spd_matrix<double>(2, 10, 1, A.data(), 1),
                      Catch::Matchers::Contains("lda (1) must be >= max(1, n) (2)"));
}

TEST_CASE("ref::cg converges within the classical bound and handles the edge cases", "[cpu][cg]") {
    for (int n : {1, 2, 17, 100, 300}) {
        for (double kappa : {1.0, 10.0, 100.0, 1e4}) {
            const auto A = matrix<double>(n, n, kappa, 9 + n);
            const auto xt = wb::random_vector<double>(n, 3);
            const auto b = times(n, A, n, xt);
            const std::vector<double> x0(n, 0.0);
            const double tol = 1e-10;
            const auto r = wb::ref::cg<double, double>(n, A.data(), n, b, x0, tol, 10 * n + 100);
            INFO("n=" << n << " kappa=" << kappa << " iterations " << r.iterations);
            CHECK(r.status == wb::CgStatus::Converged);
            CHECK(r.residual <= tol);
            CHECK(wb::ref::true_residual<double>(n, A.data(), n, b.data(), std::vector<double>(r.x).data()) <= 2 * tol + 1e-14 * kappa);
            // The residual bound: ||r|| / ||b|| <= sqrt(kappa) ||e||_A / ||e_0||_A.
            CHECK(r.iterations <= wb::model::cg_iteration_bound(kappa, tol / std::sqrt(kappa)) + 2);
            if (kappa == 1.0) CHECK(r.iterations <= 1);
        }
    }
    const int n = 17;
    const auto A = matrix<double>(n, n, 100, 5);
    const auto b = times(n, A, n, wb::random_vector<double>(n, 4));
    const std::vector<double> zero(n, 0.0);
    // b == 0: x = 0 at once.
    auto r = wb::ref::cg<double, double>(n, A.data(), n, zero, wb::random_vector<double>(n, 1), 1e-8, 50);
    CHECK(r.status == wb::CgStatus::Converged);
    CHECK(r.iterations == 0);
    for (double v : r.x) CHECK(v == 0);
    // max_iter reached.
    r = wb::ref::cg<double, double>(n, A.data(), n, b, zero, 1e-14, 3);
    CHECK(r.status == wb::CgStatus::MaxIter);
    CHECK(r.iterations == 3);
    // max_iter == 0: nothing but the initial residual.
    r = wb::ref::cg<double, double>(n, A.data(), n, b, zero, 1e-8, 0);
    CHECK(r.status == wb::CgStatus::MaxIter);
    CHECK(r.iterations == 0);
    CHECK(std::abs(r.residual - 1.0) < 1e-15);
    // Negative definite: a breakdown at the first iteration, x finite.
    const auto N = matrix<double>(n, n, 100, 5, true);
    r = wb::ref::cg<double, double>(n, N.data(), n, b, zero, 1e-8, 50);
    CHECK(r.status == wb::CgStatus::Breakdown);
    CHECK(r.iterations == 0);
    for (double v : r.x) CHECK(std::isfinite(v));
    CHECK_THROWS_WITH((wb::ref::cg<double, double>(n, A.data(), n, b, zero, -1, 5)),
                      Catch::Matchers::Contains("tol must be finite and >= 0"));
}

TEST_CASE("a float CG meets the gpu tests' residual bound and iteration criterion", "[cpu][cg]") {
    std::mt19937_64 rng(20261123);
    for (int c = 0; c < 40; ++c) {
        const int n = 1 + static_cast<int>(rng() % 400);
        const double kappa = std::pow(10.0, 3.0 * static_cast<double>(rng() % 1000) / 1000.0);  // 1 .. 1000
        const double tol = std::pow(10.0, -5.0 + 2.0 * static_cast<double>(rng() % 1000) / 1000.0);  // 1e-5 .. 1e-3
        const auto A = matrix<float>(n, n, kappa, rng());
        const auto b = times(n, A, n, wb::random_vector<float>(n, rng()));
        const std::vector<float> x0(n, 0.0f);
        const int max_iter = 10 * n + 100;
        const auto rf = wb::ref::cg<float, float>(n, A.data(), n, b, x0, tol, max_iter);
        const auto rd = wb::ref::cg<double, float>(n, A.data(), n, b, x0, tol, max_iter);
        std::vector<float> xf(rf.x.begin(), rf.x.end());
        const double res = wb::ref::true_residual<float>(n, A.data(), n, b.data(), xf.data());
        INFO("n=" << n << " kappa=" << kappa << " tol=" << tol << " float it " << rf.iterations << " double it "
                  << rd.iterations << " true residual " << res);
        CHECK(rf.status == wb::CgStatus::Converged);
        CHECK(res <= wb::cg_residual_bound<float>(tol, kappa));
        if (kappa <= 100) CHECK(rf.iterations <= 1.1 * rd.iterations + 2);
    }
}
