// Chapter 6's derivation against the exhaustive sweep (issue 40, item 6): for each case of the
// op's chapter 6 set, in one run, the derived launch keeps at least 0.95x the speed of the best of
// the tuned step's legal launches, each checked against the float64 reference before it is timed
// (chapters/runner/derived_comparison.cpp). GEMV so far: its derivation is the one measured (an
// H200 run of `ch06_derived --op gemv --quick --sweep`, docs/results/h200/ch06-sweep-gemv-quick.txt:
// derived 0.97-0.98x the best of 73-112 launches on all six cases); the threshold is the issue's
// goal, 2-3% below what was measured, above the 2% run-to-run noise of these 20-80 us calls.
// Run: ./build/bin/wb_perf_tests "[derive]"
#include "catch.hpp"

#include "derived_comparison.hpp"
#include "device_profile.hpp"

#include <iostream>

TEST_CASE("perf: derived GEMV launches keep 0.95x the sweep's best", "[perf][derive][gemv]") {
    const wb::DeviceProfile dev = wb::device_profile_from_device(0);
    const auto rows = wb::ch06::compare_op("gemv", dev, {4}, /*measure=*/true, /*sweep=*/true);
    REQUIRE(rows.size() >= 2);  // at least two shapes
    for (const auto& c : rows) {
        INFO(c.derived.shape << ": derived " << c.derived_launch << " " << c.derived_measured_ms << " ms, best "
                             << c.best_launch << " " << c.best_ms << " ms of " << c.swept << " launches ("
                             << c.measured_note << c.sweep_note << ")");
        REQUIRE(c.swept > 0);
        REQUIRE(c.derived_measured_ms > 0);
        std::cout << "derived vs sweep best, " << c.derived.shape << ": " << c.best_ms / c.derived_measured_ms
                  << "x\n";
        CHECK(c.best_ms / c.derived_measured_ms >= 0.95);
    }
}
