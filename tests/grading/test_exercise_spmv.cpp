// CPU tests of chapter 3's SPMV exercise: the argument rules its launcher checks and the float64
// reference in packed storage (exercises/exercise_spmv.hpp); chapter 4's workspace rules
// (exercises/exercise_spmv_workspace.hpp).
#include "catch.hpp"
#include "exercise_spmv_workspace.hpp"

#include <limits>

using wb::ex::SpmvArgs;
using wb::ex::check_spmv_args;
using wb::ex::spmv_packed_index;
using wb::ex::spmv_reference;

namespace {

const float* const kDev = reinterpret_cast<const float*>(0x1000);  // never dereferenced by the checks

SpmvArgs valid() {
    SpmvArgs a;
    a.n = 3;
    a.AP = a.x = kDev;
    a.y = const_cast<float*>(kDev);
    return a;
}

void rejects(const SpmvArgs& a, const std::string& what) {
    CHECK_THROWS_WITH(check_spmv_args("ch03 spmv", a), Catch::Contains("ch03 spmv: " + what));
}

// A = [1 2 3; 2 4 5; 3 5 6], packed column by column.
const std::vector<float> kUpper = {1, 2, 4, 3, 5, 6};  // (0,0) | (0,1) (1,1) | (0,2) (1,2) (2,2)
const std::vector<float> kLower = {1, 2, 3, 4, 5, 6};  // (0,0) (1,0) (2,0) | (1,1) (2,1) | (2,2)

}  // namespace

TEST_CASE("spmv: every argument rule names its argument", "[cpu][grading]") {
    CHECK_NOTHROW(check_spmv_args("ch03 spmv", valid()));
    auto a = valid(); a.uplo = 'X'; rejects(a, "uplo ('X') must be 'U' or 'L'");
    a = valid(); a.n = -1; rejects(a, "n (-1) must be >= 0");
    a = valid(); a.alpha = std::numeric_limits<float>::infinity(); rejects(a, "alpha and beta must be finite");
    a = valid(); a.AP = nullptr; rejects(a, "AP (null) must point to device memory when n (3) > 0");
    a = valid(); a.x = nullptr; rejects(a, "x (null) must point to device memory when n (3) > 0");
    a = valid(); a.y = nullptr; rejects(a, "y (null) must point to device memory when n (3) > 0");
    a = valid(); a.AP = a.x = nullptr; a.y = nullptr; a.n = 0; CHECK_NOTHROW(check_spmv_args("ch03 spmv", a));
    a = valid(); a.AP = a.x = nullptr; a.y = nullptr; a.alpha = 0; a.beta = 1; CHECK_NOTHROW(check_spmv_args("ch03 spmv", a));
}

TEST_CASE("spmv: the packed index of both triangles", "[cpu][grading]") {
    CHECK(spmv_packed_index('U', 3, 1, 2) == 4);  // A(1, 2) = 5
    CHECK(spmv_packed_index('L', 3, 2, 1) == 4);  // A(2, 1) = 5
    CHECK(spmv_packed_index('L', 3, 2, 2) == 5);  // the last stored entry of either
    CHECK(spmv_packed_index('U', 3, 2, 2) == 5);
    for (char uplo : {'U', 'L'}) {  // every stored entry once, with no gaps
        const long long n = 7;
        std::vector<int> seen(static_cast<std::size_t>(wb::ex::spmv_packed_size(n)), 0);
        for (long long j = 0; j < n; ++j)
            for (long long i = uplo == 'U' ? 0 : j; i <= (uplo == 'U' ? j : n - 1); ++i)
                ++seen[static_cast<std::size_t>(spmv_packed_index(uplo, n, i, j))];
        CHECK(seen == std::vector<int>(seen.size(), 1));
    }
}

TEST_CASE("spmv reference: both triangles give the symmetric product", "[cpu][grading]") {
    SpmvArgs a = valid();
    a.alpha = 2; a.beta = 0.5f;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (char uplo : {'U', 'L'}) {
        a.uplo = uplo;
        const std::vector<float>& AP = uplo == 'U' ? kUpper : kLower;
        SECTION(std::string("uplo ") + uplo + ": y = 2 A (1, 1, 1) + y / 2") {
            const auto r = spmv_reference(a, AP, {1, 1, 1}, {10, 20, 30});
            REQUIRE(r.size() == 3);
            CHECK(r[0] == 2 * 6 + 5);
            CHECK(r[1] == 2 * 11 + 10);
            CHECK(r[2] == 2 * 14 + 15);
        }
        SECTION(std::string("uplo ") + uplo + ", beta 0: y = 2 A e_0, a NaN in y ignored") {
            a.beta = 0;
            const auto r = spmv_reference(a, AP, {1, 0, 0}, {nan, nan, nan});
            CHECK(r == std::vector<double>{2, 4, 6});
        }
    }
    SECTION("a quick return gives y back unchanged") {
        a.alpha = 0; a.beta = 1;
        CHECK(spmv_reference(a, {}, {}, {nan, 7, 8})[1] == 7);
    }
    SECTION("too short host arrays are rejected") {
        CHECK_THROWS_WITH(spmv_reference(a, std::vector<float>(5), {1, 1, 1}, {0, 0, 0}),
                          Catch::Contains("AP (5 entries) must hold 6"));
    }
}

TEST_CASE("spmv_workspace: the workspace's size and rule, after chapter 3's rules", "[cpu][grading]") {
    using wb::ex::SpmvWorkspaceArgs;
    CHECK(wb::ex::spmv_workspace_panels(3) == 3);
    CHECK(wb::ex::spmv_workspace_panels(100000) == wb::ex::kSpmvPanels);
    CHECK(wb::ex::spmv_workspace_size(8192) == wb::ex::kSpmvPanels * 8192);
    SpmvWorkspaceArgs a;
    static_cast<SpmvArgs&>(a) = valid();
    a.work = const_cast<float*>(kDev);
    CHECK_NOTHROW(wb::ex::check_spmv_workspace_args("ch04 spmv_workspace", a));
    a.work = nullptr;
    CHECK_THROWS_WITH(wb::ex::check_spmv_workspace_args("ch04 spmv_workspace", a),
                      Catch::Contains("ch04 spmv_workspace: work (null) must point to spmv_workspace_size(n) (9)"));
    a.alpha = 0; a.beta = 1;  // BLAS's quick return: nothing is read, work may be null
    CHECK_NOTHROW(wb::ex::check_spmv_workspace_args("ch04 spmv_workspace", a));
    a.uplo = 'X';  // chapter 3's rules come first
    CHECK_THROWS_WITH(wb::ex::check_spmv_workspace_args("ch04 spmv_workspace", a), Catch::Contains("uplo ('X')"));
}
