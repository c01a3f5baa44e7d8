// CG speed as ratios measured in one run on one GPU (architecture §7), ms per iteration
// (cg_problem.hpp: the difference of two fixed-iteration solves), the perf tests:
// - pattern >= 2x shared per iteration at n = 2048 (scalars kept on the device: 1 round trip per
//   8 iterations instead of 2 per iteration, 4 launches instead of 8);
// - tuned >= 2x the cuBLAS-composed CG per iteration at n = 4096.
// Measured on an H200 (2026-11-23, docs/results/h200/perf-cg-16edb31.log): pattern 5.26x (float)
// and 7.11x (double) shared at 2048; tuned 3.69x (float) and 2.57x (double) the composed CG at
// 4096. The thresholds are the (2x), well under both. Absolute goals (tuned within 1.15x
// of the roofline at n >= 8192, >= 3x the composed CG at n <= 4096) are the chapter binaries'
// benchmark, printed here, not asserted (float 1.76x / 1.31x of the roofline at 8192 / 16384 and
// double 2.57x at 4096: not met).
#include "catch.hpp"

#include "ceilings.hpp"
#include "cg_problem.hpp"
#include "model/cg.hpp"
#include "random.hpp"

#include <iostream>

namespace {

template <class T>
const wb::CgStep<T>& step_of(int chapter) {
    return chapter == 0 ? wb::peer_step<wb::CgArgs<T>>() : wb::step<wb::CgArgs<T>>(chapter);
}

template <class T>
double ms_per_iteration(int chapter, wb::CgProblem<T>& p) {
    wb::BenchOptions bo;
    bo.min_reps = 15;
    const auto& s = step_of<T>(chapter);
    return wb::time_cg(s, s.default_launch(p.args()), p, bo).median_ms;
}

/// ms(slow) / ms(fast) per iteration at n.
template <class T>
double speedup(int fast, int slow, int n) {
    auto p = wb::make_cg_problem<T>(n, n, 100, sizeof(T) == 4 ? 1e-5 : 1e-9, 2000, wb::fresh_seed());
    const double f = ms_per_iteration<T>(fast, p), s = ms_per_iteration<T>(slow, p);
    std::cout << (sizeof(T) == 4 ? "float" : "double") << " n=" << n << ": " << step_of<T>(fast).stage << " "
              << f * 1e3 << " us/iter, " << step_of<T>(slow).stage << " " << s * 1e3 << " us/iter: " << s / f
              << "x\n";
    return s / f;
}

}  // namespace

TEST_CASE("perf: pattern CG is at least 2x shared per iteration at n = 2048", "[perf][cg]") {
    CHECK(speedup<float>(3, 2, 2048) >= 2.0);
    CHECK(speedup<double>(3, 2, 2048) >= 2.0);
}

TEST_CASE("perf: tuned CG is at least 2x the cuBLAS-composed CG per iteration at n = 4096", "[perf][cg]") {
    CHECK(speedup<float>(5, 0, 4096) >= 2.0);
    CHECK(speedup<double>(5, 0, 4096) >= 2.0);
}

TEST_CASE("perf: tuned CG against the roofline and the composed CG (printed, not asserted)", "[perf][cg]") {
    for (int n : {1024, 4096, 8192, 16384}) {
        auto p = wb::make_cg_problem<float>(n, n, 100, 1e-5, 2000, wb::fresh_seed());
        const double t = ms_per_iteration<float>(5, p), c = ms_per_iteration<float>(0, p);
        const double roof = 4.0 * (n * (n + 1.0) / 2 + 13.0 * n) / (wb::measured_ceilings().read_gbs * 1e6);
        std::cout << "float n=" << n << ": tuned " << t * 1e3 << " us/iter = " << t / roof << "x the roofline ("
                  << roof * 1e3 << " us), " << c / t << "x the composed CG\n";
    }
}
