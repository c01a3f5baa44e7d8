// The float64 SYMV reference: a hand-computed product, lower and upper storage of the same
// symmetric matrix agreeing with a dense product, NaN in the unread triangle, the padding rows, the
// offset prefix and (with beta == 0) y never reaching the result, the error scale, and argument
// errors.
#include "catch.hpp"

#include "random.hpp"
#include "reference_symv.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace {

using wb::Uplo;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

/// The full symmetric matrix M (n x n) stored in `uplo`'s triangle of an lda x n array after
/// `offset` elements; every other element NaN.
std::vector<double> store(const std::vector<double>& M, int n, int lda, Uplo uplo, std::size_t offset) {
    std::vector<double> A(offset + static_cast<std::size_t>(lda) * n, kNan);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            if (uplo == Uplo::Lower ? i >= j : i <= j) A[offset + i + static_cast<std::size_t>(j) * lda] = M[i + j * n];
    return A;
}

}  // namespace

TEST_CASE("ref::symv: a 3 x 3 product by hand", "[cpu][reference][symv]") {
    // M = [2 1 0; 1 3 4; 0 4 5], x = (1, 2, 3), y = (1, 1, 1): M x = (4, 19, 23).
    const std::vector<double> M = {2, 1, 0, 1, 3, 4, 0, 4, 5};
    const std::vector<double> x = {1, 2, 3}, y = {1, 1, 1};
    for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
        const auto A = store(M, 3, 3, u, 0);
        const auto r = wb::ref::symv<double>(u, 3, 2.0, A, 3, x, 0.5, y);
        REQUIRE(r.size() == 3);
        CHECK(r[0] == 8.5);
        CHECK(r[1] == 38.5);
        CHECK(r[2] == 46.5);
    }
}

TEST_CASE("ref::symv: lower and upper storage agree with the dense product; NaN outside is never read",
          "[cpu][reference][symv]") {
    const int n = 37, lda = 41;
    const std::size_t offset = 5;
    auto R = wb::random_vector<double>(static_cast<std::size_t>(n) * n, 11);
    std::vector<double> M(R.size());
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) M[i + j * n] = R[std::max(i, j) + std::min(i, j) * n];  // symmetric
    const auto x = wb::random_vector<double>(n, 12);
    auto y = wb::random_vector<double>(n, 13);
    std::vector<double> dense(n);
    for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int j = 0; j < n; ++j) s += M[i + j * n] * x[j];
        dense[i] = -0.75 * s + 1.25 * y[i];
    }
    for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
        const auto A = store(M, n, lda, u, offset);
        std::vector<double> scale;
        const auto r = wb::ref::symv<double>(u, n, -0.75, A, lda, x, 1.25, y, offset, &scale);
        REQUIRE(scale.size() == static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) {
            CHECK(r[i] == Approx(dense[i]).epsilon(1e-12));
            CHECK(std::isfinite(scale[i]));
            CHECK(scale[i] >= std::abs(r[i]) * (1 - 1e-12));
        }
        // beta == 0: y is ignored, even when it holds NaN.
        std::vector<double> ynan(n, kNan);
        const auto r0 = wb::ref::symv<double>(u, n, 1.0, A, lda, x, 0.0, ynan, offset);
        for (int i = 0; i < n; ++i) CHECK(std::isfinite(r0[i]));
    }
}

TEST_CASE("ref::symv: float inputs, n = 0 and n = 1", "[cpu][reference][symv]") {
    const std::vector<float> A = {3.0f}, x = {2.0f}, y = {1.0f};
    CHECK(wb::ref::symv<float>(Uplo::Upper, 1, 1.5, A, 1, x, 0.5, y)[0] == 9.5);
    CHECK(wb::ref::symv<float>(Uplo::Lower, 0, 1.5, std::vector<float>{}, 1, std::vector<float>{}, 0.5,
                               std::vector<float>{})
              .empty());
}

TEST_CASE("ref::symv rejects bad arguments", "[cpu][reference][symv]") {
    const std::vector<double> A(16, 1.0), x(4, 1.0), y(4, 1.0);
    CHECK_THROWS_WITH(wb::ref::symv<double>(Uplo::Lower, -1, 1, A, 4, x, 0, y),
                      Catch::Matchers::Contains("n (-1) must be >= 0"));
    CHECK_THROWS_WITH(wb::ref::symv<double>(Uplo::Lower, 4, 1, A, 3, x, 0, y),
                      Catch::Matchers::Contains("lda (3) must be >= max(1, n) (4)"));
    CHECK_THROWS_WITH(wb::ref::symv<double>(Uplo::Lower, 4, 1, A, 4, x, 0, y, 1),
                      Catch::Matchers::Contains("too short"));
    CHECK_THROWS_WITH(wb::ref::symv<double>(Uplo::Lower, 4, 1, A, 4, std::vector<double>(3), 0, y),
                      Catch::Matchers::Contains("x (3 elements) must hold n"));
    CHECK_THROWS_WITH(wb::ref::symv<double>(Uplo::Lower, 4, 1, A, 4, x, 1, std::vector<double>(2)),
                      Catch::Matchers::Contains("y (2 elements) must hold n when beta != 0"));
}
