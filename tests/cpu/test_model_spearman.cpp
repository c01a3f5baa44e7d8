// test_model_spearman.cpp — Spearman's rho (model/spearman): hand-computed values, ties as mean
// ranks, invariance under monotone maps, and the arguments it rejects.
#include "catch.hpp"

#include "model/spearman.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

using wb::model::ranks;
using wb::model::spearman_rho;

TEST_CASE("spearman: ranks with ties take their mean rank", "[cpu][model]") {
    CHECK(ranks({3.5, 1.25, 2.0, 9.0}) == std::vector<double>{3, 1, 2, 4});
    CHECK(ranks({1.0, 2.0, 2.0, 4.0}) == std::vector<double>{1, 2.5, 2.5, 4});
    CHECK(ranks({7.0, 7.0, 7.0}) == std::vector<double>{2, 2, 2});
    CHECK_THROWS_WITH(ranks({1.0, std::nan("")}), Catch::Matchers::Contains("value 1") &&
                                                      Catch::Matchers::Contains("must be finite"));
}

TEST_CASE("spearman: hand-computed rho, order alike, reversed, unrelated", "[cpu][model]") {
    // No ties: rho = 1 - 6 sum d^2 / (n (n^2 - 1)). Ranks x 1..5, y 2,1,4,3,5: sum d^2 = 4,
    // rho = 1 - 24 / 120 = 0.8.
    CHECK(spearman_rho({0.11, 0.23, 0.35, 0.47, 0.59}, {2.7, 1.9, 4.1, 3.3, 8.0}) == Approx(0.8));
    // Any increasing map of the times keeps the order: 1; a decreasing one reverses it: -1.
    const std::vector<double> t = {0.73, 0.0652, 2.9, 0.19, 0.755, 1.3};
    std::vector<double> up, down;
    for (double v : t) {
        up.push_back(std::exp(3 * v) + 17);
        down.push_back(1 / v);
    }
    CHECK(spearman_rho(t, up) == Approx(1.0));
    CHECK(spearman_rho(t, down) == Approx(-1.0));
    // Ties, Pearson of the ranks: x ranks 1, 2.5, 2.5, 4 and y ranks 2, 3, 1, 4, both about their
    // mean 2.5: products sum to 0.75 + 2.25 = 3, squares to 4.5 and 5: rho = 3 / sqrt(22.5) = 0.632.
    CHECK(spearman_rho({1.0, 2.0, 2.0, 3.0}, {1.5, 2.5, 0.5, 3.5}) == Approx(3.0 / std::sqrt(22.5)));
}

TEST_CASE("spearman: arguments it rejects", "[cpu][model]") {
    CHECK_THROWS_WITH(spearman_rho({1.0, 2.0}, {1.0}), Catch::Matchers::Contains("same size"));
    CHECK_THROWS_WITH(spearman_rho({1.0}, {1.0}), Catch::Matchers::Contains("at least 2"));
    CHECK_THROWS_WITH(spearman_rho({4.0, 4.0, 4.0}, {1.0, 2.0, 3.0}), Catch::Matchers::Contains("x has no spread"));
    CHECK_THROWS_WITH(spearman_rho({1.0, 2.0, 3.0}, {0.5, 0.5, 0.5}), Catch::Matchers::Contains("y has no spread"));
    CHECK_THROWS_AS(spearman_rho({1.0, std::numeric_limits<double>::infinity()}, {1.0, 2.0}), std::invalid_argument);
}
