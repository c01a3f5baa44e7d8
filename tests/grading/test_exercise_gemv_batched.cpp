// CPU tests of chapter 1's batched-GEMV exercise: the argument rules its launcher checks and the
// float64 reference the grader compares with (exercises/exercise_gemv_batched.hpp).
#include "catch.hpp"
#include "exercise_gemv_batched.hpp"

#include <cmath>
#include <limits>

using wb::ex::GemvBatchedArgs;
using wb::ex::check_gemv_batched_args;
using wb::ex::gemv_batched_reference;

namespace {

const float* const kDev = reinterpret_cast<const float*>(0x1000);  // never dereferenced by the checks

GemvBatchedArgs valid() {
    GemvBatchedArgs a;
    a.trans = 'N';
    a.m = 4; a.n = 3; a.batch = 2;
    a.A = kDev; a.lda = 5; a.strideA = 15;
    a.x = kDev; a.incx = 1; a.stridex = 3;
    a.y = const_cast<float*>(kDev); a.incy = 2; a.stridey = 7;
    return a;
}

void rejects(const GemvBatchedArgs& a, const std::string& what) {
    CHECK_THROWS_WITH(check_gemv_batched_args("ch01 gemv_batched", a), Catch::Contains("ch01 gemv_batched: " + what));
}

}  // namespace

TEST_CASE("gemv_batched: every argument rule names its argument", "[cpu][grading]") {
    CHECK_NOTHROW(check_gemv_batched_args("ch01 gemv_batched", valid()));
    auto a = valid(); a.trans = 'C'; rejects(a, "trans ('C') must be 'N' or 'T'");
    a = valid(); a.m = -1; rejects(a, "m (-1) must be >= 0");
    a = valid(); a.n = -2; rejects(a, "n (-2) must be >= 0");
    a = valid(); a.batch = -1; rejects(a, "batch (-1) must be >= 0");
    a = valid(); a.lda = 3; rejects(a, "lda (3) must be >= max(1, m) (4)");
    a = valid(); a.incx = 0; rejects(a, "incx (0) must be >= 1");
    a = valid(); a.incy = -1; rejects(a, "incy (-1) must be >= 1");
    a = valid(); a.strideA = 14; rejects(a, "strideA (14) must be >= lda * n (15)");
    a = valid(); a.stridex = 2; rejects(a, "stridex (2) must be >= (len(x) - 1) * incx + 1 (3)");
    a = valid(); a.stridey = 6; rejects(a, "stridey (6) must be >= (len(y) - 1) * incy + 1 (7)");
    a = valid(); a.trans = 'T'; a.stridex = 3; rejects(a, "stridex (3) must be >= (len(x) - 1) * incx + 1 (4)");
    a = valid(); a.y = nullptr; rejects(a, "A, x and y must point to device memory");
    a = valid(); a.alpha = std::numeric_limits<float>::quiet_NaN(); rejects(a, "alpha and beta must be finite");
    // BLAS's quick returns touch nothing: null pointers and any strides are fine there.
    for (int k = 0; k < 4; ++k) {
        a = valid(); a.A = nullptr; a.x = nullptr; a.y = nullptr; a.strideA = a.stridex = a.stridey = 0;
        if (k == 0) a.m = 0;
        if (k == 1) a.n = 0;
        if (k == 2) a.batch = 0;
        if (k == 3) { a.alpha = 0; a.beta = 1; }
        CHECK_NOTHROW(check_gemv_batched_args("ch01 gemv_batched", a));
    }
    // one product needs no strides
    a = valid(); a.batch = 1; a.strideA = a.stridex = a.stridey = 0;
    CHECK_NOTHROW(check_gemv_batched_args("ch01 gemv_batched", a));
}

TEST_CASE("gemv_batched reference: both transposes, strides, increments, beta", "[cpu][grading]") {
    // Two 2x3 column-major matrices with lda 3 (one padding row) and strideA 10.
    GemvBatchedArgs a;
    a.m = 2; a.n = 3; a.batch = 2; a.lda = 3; a.strideA = 10; a.alpha = 2; a.beta = 0.5f;
    a.A = a.x = kDev;
    a.y = const_cast<float*>(kDev);
    std::vector<float> A(20, 99.0f);
    const float A0[2][3] = {{1, 2, 3}, {4, 5, 6}}, A1[2][3] = {{-1, 0, 1}, {2, -2, 0.5f}};
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j) {
            A[static_cast<std::size_t>(i + j * 3)] = A0[i][j];
            A[static_cast<std::size_t>(10 + i + j * 3)] = A1[i][j];
        }
    SECTION("'N' with incx 2, incy 1") {
        a.incx = 2; a.stridex = 6; a.incy = 1; a.stridey = 2;
        const std::vector<float> x = {1, -7, 1, -7, 1, -7, 2, -7, 0, -7, 1, -7};
        const std::vector<float> y = {10, 20, 30, 40};
        const auto r = gemv_batched_reference(a, A, x, y);
        REQUIRE(r.size() == 4);
        CHECK(r[0] == 2 * (1 + 2 + 3) + 5);    // row 0 of A0 . (1,1,1)
        CHECK(r[1] == 2 * (4 + 5 + 6) + 10);
        CHECK(r[2] == 2 * (-2 + 0 + 1) + 15);  // row 0 of A1 . (2,0,1)
        CHECK(r[3] == 2 * (4 + 0 + 0.5) + 20);
    }
    SECTION("'T' with beta 0 ignores a NaN in y") {
        a.trans = 'T'; a.beta = 0; a.incx = 1; a.stridex = 2; a.incy = 1; a.stridey = 3;
        const std::vector<float> x = {1, 1, 1, -1};
        std::vector<float> y(6, std::numeric_limits<float>::quiet_NaN());
        const auto r = gemv_batched_reference(a, A, x, y);
        REQUIRE(r.size() == 6);
        CHECK(r[0] == 2 * (1 + 4));  // column 0 of A0 . (1,1)
        CHECK(r[1] == 2 * (2 + 5));
        CHECK(r[2] == 2 * (3 + 6));
        CHECK(r[3] == 2 * (-1 - 2));
        CHECK(r[4] == 2 * (0 + 2));
        CHECK(r[5] == 2 * (1 - 0.5));
    }
    SECTION("alpha 0, beta 1 leaves y as it is, NaN included") {
        a.alpha = 0; a.beta = 1; a.incx = 1; a.stridex = 3; a.incy = 1; a.stridey = 2;
        const std::vector<float> x(6, 1.0f);
        const std::vector<float> y = {1, std::numeric_limits<float>::quiet_NaN(), 3, 4};
        const auto r = gemv_batched_reference(a, A, x, y);
        CHECK(r[0] == 1);
        CHECK(std::isnan(r[1]));
        CHECK(r[3] == 4);
    }
    SECTION("host arrays too short for the strides are rejected") {
        a.incx = 1; a.stridex = 3; a.incy = 1; a.stridey = 2;
        CHECK_THROWS_WITH(gemv_batched_reference(a, A, std::vector<float>(5), std::vector<float>(4)),
                          Catch::Contains("x (5 entries) must hold entry 5"));
    }
}

TEST_CASE("gemv_batched reference sums in double", "[cpu][grading]") {
    // 1 + 1e8 - 1e8 in float loses the 1; the float64 reference keeps it.
    GemvBatchedArgs a;
    a.m = 1; a.n = 3; a.batch = 1; a.lda = 1; a.alpha = 1; a.beta = 0;
    a.A = a.x = kDev;
    a.y = const_cast<float*>(kDev);
    const auto r = gemv_batched_reference(a, {1.0f, 1e8f, -1e8f}, {1, 1, 1}, {0});
    CHECK(r[0] == 1.0);
}
