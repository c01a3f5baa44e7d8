// CPU tests of chapter 3's GBMV exercise: the argument rules its launcher checks and the float64
// reference in band storage (exercises/exercise_gbmv.hpp).
#include "catch.hpp"
#include "exercise_gbmv.hpp"

#include <cmath>
#include <limits>

using wb::ex::GbmvArgs;
using wb::ex::check_gbmv_args;
using wb::ex::gbmv_reference;

namespace {

const float* const kDev = reinterpret_cast<const float*>(0x1000);  // never dereferenced by the checks

GbmvArgs valid() {
    GbmvArgs a;
    a.m = 4; a.n = 3; a.kl = 1; a.ku = 1; a.lda = 3;
    a.A = a.x = kDev;
    a.y = const_cast<float*>(kDev);
    return a;
}

void rejects(const GbmvArgs& a, const std::string& what) {
    CHECK_THROWS_WITH(check_gbmv_args("ch03 gbmv", a), Catch::Contains("ch03 gbmv: " + what));
}

}  // namespace

TEST_CASE("gbmv: every argument rule names its argument", "[cpu][grading]") {
    CHECK_NOTHROW(check_gbmv_args("ch03 gbmv", valid()));
    auto a = valid(); a.trans = 'X'; rejects(a, "trans ('X') must be 'N' or 'T'");
    a = valid(); a.m = -1; rejects(a, "m (-1) must be >= 0");
    a = valid(); a.n = -1; rejects(a, "n (-1) must be >= 0");
    a = valid(); a.kl = -1; rejects(a, "kl (-1) must be >= 0");
    a = valid(); a.ku = -2; rejects(a, "ku (-2) must be >= 0");
    a = valid(); a.lda = 2; rejects(a, "lda (2) must be >= kl + ku + 1 (3)");
    a = valid(); a.incx = 0; rejects(a, "incx (0) must be >= 1");
    a = valid(); a.incy = 0; rejects(a, "incy (0) must be >= 1");
    a = valid(); a.beta = std::numeric_limits<float>::quiet_NaN(); rejects(a, "alpha and beta must be finite");
    a = valid(); a.x = nullptr; rejects(a, "A, x and y must point to device memory");
    a = valid(); a.A = a.x = nullptr; a.y = nullptr; a.m = 0; CHECK_NOTHROW(check_gbmv_args("ch03 gbmv", a));
    a = valid(); a.A = a.x = nullptr; a.y = nullptr; a.alpha = 0; a.beta = 1; CHECK_NOTHROW(check_gbmv_args("ch03 gbmv", a));
}

TEST_CASE("gbmv reference: band storage, both transposes, clipped bands", "[cpu][grading]") {
    // A (4 x 3, kl = 1, ku = 1):  [1 2 0; 3 4 5; 0 6 7; 0 0 8], band array AB (lda 4, one padding row):
    //   column 0: (*, 1, 3, -9)  column 1: (2, 4, 6, -9)  column 2: (5, 7, 8, -9)
    GbmvArgs a = valid();
    a.lda = 4; a.alpha = 2; a.beta = 0.5f;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> AB = {nan, 1, 3, -9, 2, 4, 6, -9, 5, 7, 8, -9};  // the * is never read
    SECTION("'N': y (4) = 2 A x + y / 2, x = (1, 1, 1) with incx 2") {
        a.incx = 2;
        const std::vector<float> x = {1, -7, 1, -7, 1};
        const auto r = gbmv_reference(a, AB, x, {10, 20, 30, 40});
        REQUIRE(r.size() == 4);
        CHECK(r[0] == 2 * 3 + 5);
        CHECK(r[1] == 2 * 12 + 10);
        CHECK(r[2] == 2 * 13 + 15);
        CHECK(r[3] == 2 * 8 + 20);
    }
    SECTION("'T' with beta 0: y (3) = 2 A^T x, x = (1, 0, 0, 1), a NaN in y ignored") {
        a.trans = 'T'; a.beta = 0; a.incy = 2;
        const auto r = gbmv_reference(a, AB, {1, 0, 0, 1}, {nan, 0, nan, 0, nan});
        REQUIRE(r.size() == 3);
        CHECK(r[0] == 2 * 1);
        CHECK(r[1] == 2 * 2);
        CHECK(r[2] == 2 * 8);
    }
    SECTION("a band wider than the matrix is clipped to it") {
        a.m = 2; a.n = 2; a.kl = 3; a.ku = 3; a.lda = 7; a.beta = 0;
        std::vector<float> wide(14, nan);
        wide[3] = 1; wide[4] = 3;   // column 0: A(0,0) at row ku, A(1,0) at ku + 1
        wide[9] = 2; wide[10] = 4;  // column 1: A(0,1) at ku - 1, A(1,1) at ku
        const auto r = gbmv_reference(a, wide, {1, 1}, {0, 0});
        CHECK(r[0] == 2 * 3);
        CHECK(r[1] == 2 * 7);
    }
    SECTION("too short host arrays are rejected") {
        CHECK_THROWS_WITH(gbmv_reference(a, std::vector<float>(9), {1, 1, 1}, {0, 0, 0, 0}),
                          Catch::Contains("A (9 entries) must hold entry 10"));
    }
}
