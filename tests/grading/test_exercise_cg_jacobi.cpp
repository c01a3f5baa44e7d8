// CPU tests of chapter 4's CG-update exercise: the argument rules its launcher checks (padding,
// alignment) and the float64 reference of the fused preconditioned step
// (exercises/exercise_cg_jacobi.hpp).
#include "catch.hpp"
#include "exercise_cg_jacobi.hpp"

#include <limits>

using wb::ex::CgJacobiArgs;
using wb::ex::cg_jacobi_reference;
using wb::ex::check_cg_jacobi_args;

namespace {

float* const kDev = reinterpret_cast<float*>(0x1000);  // 16-byte aligned; never dereferenced by the checks

CgJacobiArgs valid() {
    CgJacobiArgs a;
    a.n = 3; a.len = 4; a.alpha = 0.5f;
    a.x = a.r = a.z = a.rz = kDev;
    a.p = a.q = a.dinv = kDev;
    return a;
}

void rejects(const CgJacobiArgs& a, const std::string& what) {
    CHECK_THROWS_WITH(check_cg_jacobi_args("ch04 cg_jacobi", a), Catch::Contains("ch04 cg_jacobi: " + what));
}

}  // namespace

TEST_CASE("cg_jacobi: every argument rule names its argument", "[cpu][grading]") {
    CHECK_NOTHROW(check_cg_jacobi_args("ch04 cg_jacobi", valid()));
    auto a = valid(); a.n = -1; rejects(a, "n (-1) must be >= 0");
    a = valid(); a.len = 2; rejects(a, "len (2) must be >= n (3)");
    a = valid(); a.len = 6; rejects(a, "len (6) must be a multiple of 4");
    a = valid(); a.alpha = std::numeric_limits<float>::quiet_NaN(); rejects(a, "alpha must be finite");
    a = valid(); a.rz = nullptr; rejects(a, "rz (null) must point to device memory");
    a = valid(); a.q = nullptr; rejects(a, "q (null) must point to device memory when len (4) > 0");
    a = valid(); a.dinv = nullptr; rejects(a, "dinv (null) must point to device memory when len (4) > 0");
    a = valid(); a.z = kDev + 1; rejects(a, "z (0x1004) must be 16-byte aligned");
    a = valid(); a.p = kDev + 2; rejects(a, "p (0x1008) must be 16-byte aligned");
    a = valid(); a.x = a.r = a.z = nullptr; a.p = a.q = a.dinv = nullptr; a.n = a.len = 0;
    CHECK_NOTHROW(check_cg_jacobi_args("ch04 cg_jacobi", a));
}

TEST_CASE("cg_jacobi reference: x, r, z from the new r, and r.z", "[cpu][grading]") {
    CgJacobiArgs a = valid();  // n = 3, len = 4 (one entry of padding), alpha = 0.5
    const std::vector<float> x = {1, 2, 3, 0}, r = {4, -2, 1, 0}, p = {2, 2, -2, 0}, q = {2, 4, 6, 0};
    const std::vector<float> dinv = {0.5f, 0.25f, 1, 0};
    const auto out = cg_jacobi_reference(a, x, r, p, q, dinv);
    REQUIRE(out.size() == 13);
    CHECK(out == std::vector<double>{2, 3, 2, 0,      // x + p / 2
                                     3, -4, -2, 0,    // r - q / 2
                                     1.5, -1, -2, 0,  // dinv * (new r)
                                     4.5 + 4 + 4});   // r.z
    SECTION("too short host vectors are rejected") {
        CHECK_THROWS_WITH(cg_jacobi_reference(a, x, r, p, {1, 2, 3}, dinv), Catch::Contains("q (3 entries) must hold len (4)"));
    }
}
