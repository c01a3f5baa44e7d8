// CPU tests of chapter 5's CG-as-a-graph exercise: the argument rules its launcher checks and the
// float64 reference of the preconditioned recurrence (exercises/exercise_cg_graph.hpp).
#include "catch.hpp"
#include "exercise_cg_graph.hpp"

#include <cmath>

using wb::ex::CgGraphArgs;
using wb::ex::cg_graph_reference;
using wb::ex::check_cg_graph_args;

namespace {

const float* const kDev = reinterpret_cast<const float*>(0x1000);  // never dereferenced by the checks

CgGraphArgs valid() {
    CgGraphArgs a;
    a.n = 2; a.lda = 3; a.iters = 4;
    a.A = a.b = a.dinv = kDev;
    a.x = a.work = const_cast<float*>(kDev);
    return a;
}

void rejects(const CgGraphArgs& a, const std::string& what) {
    CHECK_THROWS_WITH(check_cg_graph_args("ch05 cg_graph", a), Catch::Contains("ch05 cg_graph: " + what));
}

}  // namespace

TEST_CASE("cg_graph: every argument rule names its argument", "[cpu][grading]") {
    CHECK_NOTHROW(check_cg_graph_args("ch05 cg_graph", valid()));
    auto a = valid(); a.n = -1; rejects(a, "n (-1) must be >= 0");
    a = valid(); a.lda = 1; rejects(a, "lda (1) must be >= max(1, n) (2)");
    a = valid(); a.iters = -1; rejects(a, "iters (-1) must be >= 0");
    a = valid(); a.work = nullptr; rejects(a, "work (null) must point to device memory when n (2) > 0");
    a = valid(); a.dinv = nullptr; rejects(a, "dinv (null)");
    a = CgGraphArgs{}; a.iters = 3;  // n == 0: nothing is touched, null pointers are fine
    CHECK_NOTHROW(check_cg_graph_args("ch05 cg_graph", a));
    CHECK(wb::ex::cg_graph_workspace_size(100) == 408);
}

TEST_CASE("cg_graph: the float64 reference is preconditioned CG", "[cpu][grading]") {
    // A = [4 1; 1 3] (lda 3: a padding row of other data), b = [1 2], x0 = 0.
    const std::vector<float> A = {4, 1, 99, 1, 3, 99};
    const std::vector<float> b = {1, 2}, dinv = {0.25f, 1.0f / 3}, x0 = {0, 0};
    CgGraphArgs a = valid();
    SECTION("no iterations: x0 back") {
        a.iters = 0;
        CHECK(cg_graph_reference(a, A, b, dinv, {5, 6}) == std::vector<double>{5, 6});
    }
    SECTION("one iteration: x0 + alpha z0, alpha = r.z / (z.Az)") {
        a.iters = 1;
        const double z0 = 0.25, z1 = 2.0 / 3, rz = 1 * z0 + 2 * z1;
        const double q0 = 4 * z0 + z1, q1 = z0 + 3 * z1, alpha = rz / (z0 * q0 + z1 * q1);
        const auto x = cg_graph_reference(a, A, b, dinv, x0);
        CHECK(x[0] == Approx(alpha * z0));
        CHECK(x[1] == Approx(alpha * z1));
    }
    SECTION("n iterations: the exact solution (1/11, 7/11); more change nothing (alpha, beta 0 on a zero residual)") {
        for (int iters : {2, 3, 10}) {
            a.iters = iters;
            const auto x = cg_graph_reference(a, A, b, dinv, x0);
            CHECK(x[0] == Approx(1.0 / 11).margin(1e-12));
            CHECK(x[1] == Approx(7.0 / 11).margin(1e-12));
            CHECK(std::isfinite(x[0]));
        }
    }
    SECTION("too short host arrays are rejected") {
        CHECK_THROWS_WITH(cg_graph_reference(a, std::vector<float>(4), b, dinv, x0), Catch::Contains("A (4 entries) must hold 5"));
    }
}
