// CPU tests of wb::summarize, the statistics behind every timing (median, min, max, mean,
// relative standard error, spread), on samples whose statistics are known by hand.
#include "catch.hpp"

#include "common/bench.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

TEST_CASE("summarize on an odd number of samples", "[cpu][bench]") {
    // {3, 1, 2}: median 2, mean 2, sample sd 1, standard error 1/sqrt(3), rse = that / 2.
    const wb::BenchStats s = wb::summarize({3.0, 1.0, 2.0});
    CHECK(s.reps == 3);
    CHECK(s.median_ms == 2.0);
    CHECK(s.min_ms == 1.0);
    CHECK(s.max_ms == 3.0);
    CHECK(s.mean_ms == Approx(2.0));
    CHECK(s.rse == Approx(1.0 / std::sqrt(3.0) / 2.0));
    CHECK(s.spread == Approx(1.0));  // (3 - 1) / 2
    CHECK_FALSE(s.l2_resident);
}

TEST_CASE("summarize on an even number of samples", "[cpu][bench]") {
    // {4, 1, 3, 2, 10, 4}: sorted 1 2 3 4 4 10, median (3 + 4) / 2, mean 4.
    const wb::BenchStats s = wb::summarize({4.0, 1.0, 3.0, 2.0, 10.0, 4.0});
    CHECK(s.reps == 6);
    CHECK(s.median_ms == 3.5);
    CHECK(s.mean_ms == Approx(4.0));
    // sum of squared deviations: 9 + 4 + 1 + 0 + 0 + 36 = 50; sd = sqrt(50 / 5) = sqrt(10).
    CHECK(s.rse == Approx(std::sqrt(10.0) / std::sqrt(6.0) / 4.0));
    CHECK(s.spread == Approx(9.0 / 3.5));
}

TEST_CASE("summarize on identical and single samples", "[cpu][bench]") {
    const wb::BenchStats same = wb::summarize(std::vector<double>(10, 0.25));
    CHECK(same.median_ms == 0.25);
    CHECK(same.rse == 0.0);
    CHECK(same.spread == 0.0);
    const wb::BenchStats one = wb::summarize({1.5});
    CHECK(one.reps == 1);
    CHECK(one.median_ms == 1.5);
    CHECK(one.rse == 0.0);  // undefined for one sample: reported as 0
}

TEST_CASE("summarize rejects empty, negative and non-finite samples", "[cpu][bench]") {
    CHECK_THROWS_AS(wb::summarize({}), std::invalid_argument);
    CHECK_THROWS_AS(wb::summarize({1.0, -0.5}), std::invalid_argument);
    CHECK_THROWS_AS(wb::summarize({1.0, std::numeric_limits<double>::quiet_NaN()}), std::invalid_argument);
    CHECK_THROWS_AS(wb::summarize({std::numeric_limits<double>::infinity()}), std::invalid_argument);
}
