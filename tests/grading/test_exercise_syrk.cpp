// CPU tests of chapter 2's SYRK exercise: the argument rules its launcher checks and the float64
// reference the grader compares with (exercises/exercise_syrk.hpp).
#include "catch.hpp"
#include "exercise_syrk.hpp"

#include <cmath>
#include <limits>

using wb::ex::SyrkArgs;
using wb::ex::check_syrk_args;
using wb::ex::syrk_reference;

namespace {

const float* const kDev = reinterpret_cast<const float*>(0x1000);  // never dereferenced by the checks

SyrkArgs valid() {
    SyrkArgs a;
    a.n = 4; a.k = 3; a.lda = 5; a.ldc = 4;
    a.A = kDev; a.C = const_cast<float*>(kDev);
    return a;
}

void rejects(const SyrkArgs& a, const std::string& what) {
    CHECK_THROWS_WITH(check_syrk_args("ch02 syrk", a), Catch::Contains("ch02 syrk: " + what));
}

}  // namespace

TEST_CASE("syrk: every argument rule names its argument", "[cpu][grading]") {
    CHECK_NOTHROW(check_syrk_args("ch02 syrk", valid()));
    auto a = valid(); a.uplo = 'X'; rejects(a, "uplo ('X') must be 'L' or 'U'");
    a = valid(); a.trans = 'C'; rejects(a, "trans ('C') must be 'N' or 'T'");
    a = valid(); a.n = -1; rejects(a, "n (-1) must be >= 0");
    a = valid(); a.k = -3; rejects(a, "k (-3) must be >= 0");
    a = valid(); a.lda = 3; rejects(a, "lda (3) must be >= max(1, n) (4)");
    a = valid(); a.trans = 'T'; a.lda = 2; rejects(a, "lda (2) must be >= max(1, k) (3)");
    a = valid(); a.trans = 'T'; a.lda = 3; CHECK_NOTHROW(check_syrk_args("ch02 syrk", a));
    a = valid(); a.ldc = 3; rejects(a, "ldc (3) must be >= max(1, n) (4)");
    a = valid(); a.beta = std::numeric_limits<float>::infinity(); rejects(a, "alpha and beta must be finite");
    a = valid(); a.C = nullptr; rejects(a, "C (null) must point to device memory");
    a = valid(); a.A = nullptr; rejects(a, "A (null) must point to device memory");
    // A is not read when alpha or k is 0; nothing is touched on BLAS's quick returns.
    a = valid(); a.A = nullptr; a.alpha = 0; CHECK_NOTHROW(check_syrk_args("ch02 syrk", a));
    a = valid(); a.A = nullptr; a.k = 0; CHECK_NOTHROW(check_syrk_args("ch02 syrk", a));
    a = valid(); a.A = nullptr; a.C = nullptr; a.n = 0; CHECK_NOTHROW(check_syrk_args("ch02 syrk", a));
    a = valid(); a.A = nullptr; a.C = nullptr; a.k = 0; a.beta = 1; CHECK_NOTHROW(check_syrk_args("ch02 syrk", a));
}

TEST_CASE("syrk reference: one triangle, both transposes, beta", "[cpu][grading]") {
    // op(A) is 3 x 2: rows (1, 2), (3, 4), (5, 6).
    SyrkArgs a;
    a.n = 3; a.k = 2; a.ldc = 4; a.alpha = 2; a.beta = 0.5f;
    a.A = kDev; a.C = const_cast<float*>(kDev);
    std::vector<float> C(12);
    for (std::size_t e = 0; e < C.size(); ++e) C[e] = static_cast<float>(100 + e);
    const double G[3][3] = {{5, 11, 17}, {11, 25, 39}, {17, 39, 61}};  // op(A) op(A)^T
    auto expect = [&](const std::vector<double>& r, char uplo) {
        for (int j = 0; j < 3; ++j)
            for (int i = 0; i < 4; ++i) {
                const std::size_t at = static_cast<std::size_t>(i + 4 * j);
                const bool entry = i < 3 && (uplo == 'L' ? i >= j : i <= j);
                CHECK(r[at] == (entry ? 2 * G[i][j] + 0.5 * C[at] : C[at]));
            }
    };
    SECTION("'N', lower, lda 4") {
        a.uplo = 'L'; a.trans = 'N'; a.lda = 4;
        const std::vector<float> A = {1, 3, 5, -9, 2, 4, 6, -9};
        expect(syrk_reference(a, A, C), 'L');
    }
    SECTION("'T', upper, lda 3") {
        a.uplo = 'U'; a.trans = 'T'; a.lda = 3;
        const std::vector<float> A = {1, 2, -9, 3, 4, -9, 5, 6, -9};
        expect(syrk_reference(a, A, C), 'U');
    }
    SECTION("beta 0 ignores a NaN in the triangle") {
        a.uplo = 'L'; a.trans = 'N'; a.lda = 3; a.beta = 0;
        std::vector<float> Cn(12, std::numeric_limits<float>::quiet_NaN());
        const auto r = syrk_reference(a, {1, 3, 5, 2, 4, 6}, Cn);
        CHECK(r[0] == 10);
        CHECK(r[1 + 4 * 0] == 22);
        CHECK(std::isnan(r[0 + 4 * 1]));  // the upper triangle is kept as it was
    }
    SECTION("k = 0 scales the triangle by beta; alpha = 0 does not read A") {
        a.uplo = 'U'; a.trans = 'N'; a.lda = 3; a.k = 0;
        const auto r = syrk_reference(a, {}, C);
        CHECK(r[0 + 4 * 2] == 0.5 * C[8]);
        CHECK(r[2] == C[2]);  // lower: untouched
        a.k = 2; a.alpha = 0;
        CHECK(syrk_reference(a, {}, C)[4 + 1] == 0.5 * C[5]);
    }
    SECTION("too small host arrays are rejected") {
        a.lda = 3;
        CHECK_THROWS_WITH(syrk_reference(a, {1, 2, 3, 4, 5}, C), Catch::Contains("A (5 entries) must hold entry 5"));
        CHECK_THROWS_WITH(syrk_reference(a, {1, 2, 3, 4, 5, 6}, std::vector<float>(11)), Catch::Contains("C (11 entries) must hold ldc * n (12)"));
    }
}
