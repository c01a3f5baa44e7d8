// CPU tests of wb::ref::gemv, the float64 reference every GPU GEMV is checked against: small
// cases computed by hand (N and T, lda > m, beta == 0 with NaN in y, alpha == 0), argument
// validation, and the accuracy that makes it a reference (a sum where plain double fails).
#include "catch.hpp"

#include "common/random.hpp"
#include "common/reference.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// The 2 x 3 matrix [[1, 2, 3], [4, 5, 6]], column-major with lda = 2.
const std::vector<double> kA23 = {1, 4, 2, 5, 3, 6};

std::string thrown_message(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "(nothing thrown)";
}

}  // namespace

TEST_CASE("ref::gemv N on a 2x3 example computed by hand", "[cpu][reference]") {
    // A x = [1*1 + 2*2 + 3*3, 4*1 + 5*2 + 6*3] = [14, 32]; 2*[14, 32] + 3*[1, -1] = [31, 61].
    const auto y = wb::ref::gemv<double>(false, 2, 3, 2.0, kA23, 2, {1, 2, 3}, 3.0, {1, -1});
    REQUIRE(y.size() == 2);
    CHECK(y[0] == 31.0);
    CHECK(y[1] == 61.0);
}

TEST_CASE("ref::gemv T on a 2x3 example computed by hand", "[cpu][reference]") {
    // A^T x = [1 + 8, 2 + 10, 3 + 12] = [9, 12, 15]; 0.5*[9, 12, 15] - [1, 2, 3] = [3.5, 4, 4.5].
    const auto y = wb::ref::gemv<double>(true, 2, 3, 0.5, kA23, 2, {1, 2}, -1.0, {1, 2, 3});
    REQUIRE(y.size() == 3);
    CHECK(y[0] == 3.5);
    CHECK(y[1] == 4.0);
    CHECK(y[2] == 4.5);
}

TEST_CASE("ref::gemv float inputs give the same hand-computed result", "[cpu][reference]") {
    const std::vector<float> A = {1, 4, 2, 5, 3, 6};
    const auto y = wb::ref::gemv<float>(false, 2, 3, 2.0, A, 2, {1, 2, 3}, 3.0, {1, -1});
    REQUIRE(y.size() == 2);
    CHECK(y[0] == 31.0);
    CHECK(y[1] == 61.0);
}

TEST_CASE("ref::gemv with lda > m skips the padding rows", "[cpu][reference]") {
    // Same matrix with lda = 4; the padding holds NaN so reading it would poison the result.
    const std::vector<double> A = {1, 4, kNaN, kNaN, 2, 5, kNaN, kNaN, 3, 6};  // last column: m only
    const auto yn = wb::ref::gemv<double>(false, 2, 3, 2.0, A, 4, {1, 2, 3}, 3.0, {1, -1});
    REQUIRE(yn.size() == 2);
    CHECK(yn[0] == 31.0);
    CHECK(yn[1] == 61.0);
    const auto yt = wb::ref::gemv<double>(true, 2, 3, 0.5, A, 4, {1, 2}, -1.0, {1, 2, 3});
    REQUIRE(yt.size() == 3);
    CHECK(yt[0] == 3.5);
    CHECK(yt[1] == 4.0);
    CHECK(yt[2] == 4.5);
}

TEST_CASE("ref::gemv with beta == 0 never reads y", "[cpu][reference]") {
    const auto yn = wb::ref::gemv<double>(false, 2, 3, 2.0, kA23, 2, {1, 2, 3}, 0.0, {kNaN, kNaN});
    REQUIRE(yn.size() == 2);
    CHECK(yn[0] == 28.0);
    CHECK(yn[1] == 64.0);
    // y may even be empty then.
    const auto yt = wb::ref::gemv<double>(true, 2, 3, 1.0, kA23, 2, {1, 2}, 0.0, {});
    REQUIRE(yt.size() == 3);
    CHECK(yt[0] == 9.0);
    CHECK(yt[1] == 12.0);
    CHECK(yt[2] == 15.0);
}

TEST_CASE("ref::gemv with alpha == 0 scales y only (BLAS: A and x not read)", "[cpu][reference]") {
    const std::vector<double> A(6, kNaN);
    const auto y = wb::ref::gemv<double>(false, 2, 3, 0.0, A, 2, {kNaN, kNaN, kNaN}, -2.5, {2, 4});
    REQUIRE(y.size() == 2);
    CHECK(y[0] == -5.0);
    CHECK(y[1] == -10.0);
}

TEST_CASE("ref::gemv sizes of zero", "[cpu][reference]") {
    SECTION("m = 0, N: empty result") {
        CHECK(wb::ref::gemv<double>(false, 0, 3, 1.0, {}, 1, {1, 2, 3}, 1.0, {}).empty());
    }
    // BLAS's quick return (reference xGEMV, cuBLAS): m == 0 or n == 0 leaves y as it is.
    SECTION("n = 0, N: y unchanged, not scaled by beta") {
        const auto y = wb::ref::gemv<double>(false, 2, 0, 1.0, {}, 2, {}, 3.0, {1, -2});
        REQUIRE(y.size() == 2);
        CHECK(y[0] == 1.0);
        CHECK(y[1] == -2.0);
    }
    SECTION("m = 0, T: y of n entries, unchanged") {
        const auto y = wb::ref::gemv<double>(true, 0, 2, 1.0, {}, 1, {}, 0.5, {4, 8});
        REQUIRE(y.size() == 2);
        CHECK(y[0] == 4.0);
        CHECK(y[1] == 8.0);
    }
}

TEST_CASE("ref::gemv rejects bad arguments naming them", "[cpu][reference]") {
    const std::vector<double> x3 = {1, 2, 3}, y2 = {1, 1};
    CHECK(thrown_message([&] { wb::ref::gemv<double>(false, -1, 3, 1.0, kA23, 2, x3, 0.0, y2); })
              .find("m (-1) must be >= 0") != std::string::npos);
    CHECK(thrown_message([&] { wb::ref::gemv<double>(false, 2, -3, 1.0, kA23, 2, x3, 0.0, y2); })
              .find("n (-3) must be >= 0") != std::string::npos);
    CHECK(thrown_message([&] { wb::ref::gemv<double>(false, 2, 3, 1.0, kA23, 1, x3, 0.0, y2); })
              .find("lda (1) must be >= max(1, m) (2)") != std::string::npos);
    CHECK(thrown_message([&] { wb::ref::gemv<double>(false, 0, 3, 1.0, {}, 0, x3, 0.0, {}); })
              .find("lda (0) must be >= max(1, m) (1)") != std::string::npos);
    CHECK(thrown_message([&] { wb::ref::gemv<double>(false, 2, 3, 1.0, {1, 2, 3, 4, 5}, 2, x3, 0.0, y2); })
              .find("A (5 elements)") != std::string::npos);
    CHECK(thrown_message([&] { wb::ref::gemv<double>(false, 2, 3, 1.0, kA23, 2, {1, 2}, 0.0, y2); })
              .find("x (2 elements)") != std::string::npos);
    CHECK(thrown_message([&] { wb::ref::gemv<double>(true, 2, 3, 1.0, kA23, 2, {1, 2}, 1.0, y2); })
              .find("y (2 elements) must hold at least n (3) when beta != 0") != std::string::npos);
    CHECK(thrown_message([&] { wb::ref::gemv<double>(false, 2, 3, 1.0, kA23, 2, x3, 0.0, y2); }) ==
          "(nothing thrown)");
}

TEST_CASE("ref::gemv is more accurate than a plain double sum", "[cpu][reference]") {
    // 1e16 + 1 - 1e16: a plain double sum loses the 1 (1e16 + 1 rounds to 1e16); the reference
    // must not, or it could not judge a double GEMV.
    const std::vector<double> A = {1e16, 1.0, -1e16};  // 1 x 3
    const auto y = wb::ref::gemv<double>(false, 1, 3, 1.0, A, 1, {1, 1, 1}, 0.0, {});
    REQUIRE(y.size() == 1);
    CHECK(y[0] == 1.0);
    // The same through T (one column of 3 rows).
    const auto yt = wb::ref::gemv<double>(true, 3, 1, 1.0, A, 3, {1, 1, 1}, 0.0, {});
    REQUIRE(yt.size() == 1);
    CHECK(yt[0] == 1.0);
}

TEST_CASE("ref::gemv T equals N on the explicitly transposed matrix", "[cpu][reference]") {
    const std::uint64_t seed = wb::fresh_seed();
    INFO("seed " << seed << " (replay with WB_SEED=" << seed << ")");
    const int m = 37, n = 23, lda = 41;
    const auto A = wb::random_vector<float>(static_cast<std::size_t>(lda) * n, seed);
    const auto x = wb::random_vector<float>(m, seed + 1);
    const auto y = wb::random_vector<float>(n, seed + 2);
    std::vector<float> At(static_cast<std::size_t>(n) * m);  // n x m, lda = n
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) At[static_cast<std::size_t>(i) * n + j] = A[static_cast<std::size_t>(j) * lda + i];
    const auto yt = wb::ref::gemv<float>(true, m, n, 1.5, A, lda, x, -0.75, y);
    const auto yn = wb::ref::gemv<float>(false, n, m, 1.5, At, n, x, -0.75, y);
    REQUIRE(yt.size() == static_cast<std::size_t>(n));
    REQUIRE(yn.size() == static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j) CHECK(yt[j] == Approx(yn[j]).epsilon(1e-15));
}
