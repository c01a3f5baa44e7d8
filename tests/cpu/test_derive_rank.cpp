// test_derive_rank.cpp — Spearman's rank correlation (common/derive/rank_correlation), which
// chapter 6 asks of the model's predicted times against the measured ones over a case's legal
// launches: hand-computed values, ties as mean ranks, and the cases with no order to compare.
#include "catch.hpp"

#include "derive/rank_correlation.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

using wb::derive::ranks;
using wb::derive::spearman_rho;

TEST_CASE("rank correlation: ranks share ties as their mean", "[cpu][derive][rank]") {
    CHECK(ranks({5, 1, 5}) == std::vector<double>{2.5, 1, 2.5});
    CHECK(ranks({0.3, 0.1, 0.2}) == std::vector<double>{3, 1, 2});
    CHECK(ranks({7, 7, 7, 7}) == std::vector<double>{2.5, 2.5, 2.5, 2.5});
    CHECK(ranks({}).empty());
}

TEST_CASE("rank correlation: Spearman's rho by hand", "[cpu][derive][rank]") {
    // The same order, reversed, and one swap of neighbours in five: 1 - 6 x 4 / (5 x 24) = 0.8.
    CHECK(spearman_rho({1, 2, 3, 4, 5}, {10, 20, 30, 40, 50}) == Approx(1.0).epsilon(1e-15));
    CHECK(spearman_rho({1, 2, 3, 4, 5}, {9, 7, 5, 3, 1}) == Approx(-1.0).epsilon(1e-15));
    CHECK(spearman_rho({1, 2, 3, 4, 5}, {2, 1, 4, 3, 5}) == Approx(0.8).epsilon(1e-15));
    // Only the order counts: a monotone map of either list leaves rho as it is.
    CHECK(spearman_rho({0.011, 0.02, 0.5, 0.9, 3.0}, {2, 1, 4, 3, 5}) == Approx(0.8).epsilon(1e-15));
    // Ties: ranks {1, 2.5, 2.5, 4} and {1, 3, 2, 4}: 4.5 / sqrt(4.5 x 5) = 0.948683...
    CHECK(spearman_rho({1, 2, 2, 3}, {1, 3, 2, 4}) == Approx(4.5 / std::sqrt(22.5)).epsilon(1e-14));
}

TEST_CASE("rank correlation: no order to compare, and bad input", "[cpu][derive][rank]") {
    CHECK(std::isnan(spearman_rho({}, {})));
    CHECK(std::isnan(spearman_rho({1}, {2})));
    CHECK(std::isnan(spearman_rho({3, 3, 3}, {1, 2, 3})));  // the model predicts every launch alike
    CHECK_THROWS_AS(spearman_rho({1, 2}, {1, 2, 3}), std::invalid_argument);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_AS(spearman_rho({1, nan}, {1, 2}), std::invalid_argument);
}
