// test_derived_comparison.cpp — chapter 6's rows without a GPU (chapters/runner/derived_comparison):
// every op on every preset gives a derivation whose every parameter names its rule and metric,
// chapter 5's default beside it, and, on the Hopper presets, the model's time for both.
#include "catch.hpp"

#include "derived_comparison.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

TEST_CASE("chapter 6: every op's comparison on every preset", "[cpu][derive][ch06]") {
    for (const std::string& preset : wb::device_preset_names())
        for (const std::string& op : wb::ch06::compared_ops()) {
            INFO(preset << " " << op);
            const auto rows = wb::ch06::compare_op(op, wb::device_preset(preset), {4, 8});
            REQUIRE(!rows.empty());
            for (const auto& c : rows) {
                INFO(c.derived.shape << " " << c.note);
                CHECK(c.derived.op == op);
                CHECK(!c.default_launch.empty());
                CHECK(c.derived_measured_ms < 0);  // nothing measured without --measure
                if (c.derived.params.empty()) continue;  // a derivation the device cannot hold (noted)
                for (const auto& p : c.derived.params) {
                    CHECK(!p.rule.empty());
                    CHECK(!p.metric.empty());
                }
                if (preset != "t10") {
                    CHECK(std::isfinite(c.derived_ms));
                    CHECK(c.derived_ms > 0);
                }
            }
        }
    CHECK_THROWS_AS(wb::ch06::compare_op("gemv2", wb::device_preset("h200"), {4}), std::invalid_argument);
}

TEST_CASE("chapter 6 comparison: derived / best from the sweep's own times", "[cpu][derive]") {
    wb::ch06::Comparison c;
    c.best_ms = 1.0;
    c.derived_measured_ms = 1.1;  // the separate timing of the launch the sweep found best
    c.default_measured_ms = 1.2;
    CHECK(c.derived_vs_best() == Approx(1.0 / 1.1));  // no sweep time: the separate one
    c.swept_launches.push_back({"derived", "", true, false, -1, 1.0});  // the sweep's own times
    c.swept_launches.push_back({"default", "", false, true, -1, 1.25});
    CHECK(c.derived_vs_best() == Approx(1.0));  // one campaign of timings
    CHECK(c.default_vs_best() == Approx(0.8));
    CHECK(c.derived_time() == 1.0);
    c.best_ms = -1;
    CHECK(c.derived_vs_best() < 0);  // not swept
}
