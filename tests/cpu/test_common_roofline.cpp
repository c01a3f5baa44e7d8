// CPU tests of the useful-work formulas (architecture §5) on small cases worked by hand, including
// the rectangular GEMV where len(x) and len(y) swap with op(A).
#include "catch.hpp"

#include "common/roofline.hpp"

#include <stdexcept>

namespace rl = wb::roofline;

TEST_CASE("gemv_bytes counts A, x, y, and y again when beta != 0", "[cpu][roofline]") {
    // m = 2, n = 3, float: N reads A (6), x (n = 3), writes y (m = 2): 4 * 11 = 44 bytes.
    CHECK(rl::gemv_bytes(false, 2, 3, 4, false) == 44.0);
    // T: x has m = 2, y has n = 3 entries: 4 * (6 + 2 + 3) = 44 as well...
    CHECK(rl::gemv_bytes(true, 2, 3, 4, false) == 44.0);
    // ...but beta != 0 reads y, whose length differs: N 4 * (6 + 3 + 2 + 2), T 4 * (6 + 2 + 3 + 3).
    CHECK(rl::gemv_bytes(false, 2, 3, 4, true) == 52.0);
    CHECK(rl::gemv_bytes(true, 2, 3, 4, true) == 56.0);
    // double, square 16384: 8 (n^2 + 2n).
    CHECK(rl::gemv_bytes(false, 16384, 16384, 8, false) == 8.0 * (16384.0 * 16384.0 + 2 * 16384.0));
    CHECK(rl::gemv_bytes(true, 0, 0, 8, true) == 0.0);
}

TEST_CASE("flop counts", "[cpu][roofline]") {
    CHECK(rl::gemv_flops(2, 3) == 12.0);
    CHECK(rl::gemm_flops(2, 3, 4) == 48.0);
    // No integer overflow: 2 * 2^20 * 2^20 * 2^20 = 2^61.
    CHECK(rl::gemm_flops(1 << 20, 1 << 20, 1 << 20) == 2305843009213693952.0);
    CHECK(rl::conv_flops(10, 10, 3) == 1800.0);  // 2 * 100 * 9
    CHECK(rl::conv_flops(3, 7, 5) == 1050.0);    // 2 * 21 * 25
}

TEST_CASE("symv and convolution bytes", "[cpu][roofline]") {
    CHECK(rl::symv_bytes(4, 8) == 8.0 * (10 + 12));  // one triangle 4*5/2, x, y in, y out
    CHECK(rl::conv_bytes(10, 10, 3, 4) == 4.0 * (200 + 9));
    CHECK(rl::conv_bytes(3, 7, 5, 8) == 8.0 * (42 + 25));  // rows x cols, double
}

TEST_CASE("rates from bytes and milliseconds", "[cpu][roofline]") {
    CHECK(rl::gbs(1e9, 1.0) == Approx(1000.0));     // 1 GB in 1 ms = 1000 GB/s
    CHECK(rl::gflops(2e9, 4.0) == Approx(500.0));
}

TEST_CASE("negative sizes are rejected", "[cpu][roofline]") {
    CHECK_THROWS_AS(rl::gemv_bytes(false, -1, 3, 4, false), std::invalid_argument);
    CHECK_THROWS_AS(rl::gemv_flops(2, -3), std::invalid_argument);
    CHECK_THROWS_AS(rl::gemm_flops(2, 3, -4), std::invalid_argument);
    CHECK_THROWS_AS(rl::symv_bytes(-4, 8), std::invalid_argument);
    CHECK_THROWS_AS(rl::conv_bytes(10, 10, -3, 4), std::invalid_argument);
    CHECK_THROWS_AS(rl::conv_bytes(-1, 10, 3, 4), std::invalid_argument);
    CHECK_THROWS_AS(rl::conv_flops(10, -1, 3), std::invalid_argument);
}
