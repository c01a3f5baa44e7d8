// CPU tests of two terms of chapter 7's model of CG's split (White §5.2: every product p in, the
// tuned SYMV, q out): SYMV's kernel rate at the rows' n (a second calibration point), and each
// product's fixed cost timed again just before CG's rows ("cg product"). Both read back from the
// lines the chapter prints, on a kept H200 run from before them (tests/data/h200-ch07-5100d36.*).
#include "catch.hpp"
#include "ch07_run_files.hpp"

#include "roofline.hpp"
#include "split_calibrate.hpp"
#include "split_paths.hpp"
#include "split_replay.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace {

wb::ch07::Case cg_float(int n) { return wb::ch07::Case{"cg", n, 4}; }

}  // namespace

TEST_CASE("chapter 7: a GPU class's efficiency between its two points", "[cpu][ch07][split]") {
    wb::ch07::GpuRate one{0.005, 0.5};
    CHECK(one.eff_at(1e3) == 0.5);
    CHECK(one.eff_at(1e12) == 0.5);  // one point: its e at every size
    wb::ch07::GpuRate two{0.005, 0.5, 1e6, 16e6, 0.9};
    CHECK(two.eff_at(1e3) == 0.5);       // below the mid point: flat
    CHECK(two.eff_at(1e6) == 0.5);
    CHECK(two.eff_at(4e6) == Approx(0.7));  // log-linear in the bytes: 4 MB is half way from 1 to 16
    CHECK(two.eff_at(2e6) == Approx(0.6));
    CHECK(two.eff_at(16e6) == Approx(0.9));
    CHECK(two.eff_at(1e12) == Approx(0.9));  // beyond the large point: flat
    // A malformed pair (the large point below the mid one, or no large e) keeps the one point.
    CHECK(wb::ch07::GpuRate{0.005, 0.5, 16e6, 1e6, 0.9}.eff_at(8e6) == 0.5);
    CHECK(wb::ch07::GpuRate{0.005, 0.5, 1e6, 16e6, 0}.eff_at(8e6) == 0.5);
}

TEST_CASE("chapter 7: SYMV's second point read back; CG's split and the SYMV rows follow it", "[cpu][ch07][split]") {
    // The run's calibration line for SYMV float had one point (e 0.4758 at n = 4096); a later run
    // appends the large one. A line read later replaces the class, as the calibration's own does.
    const auto [one, two] = wb::test::ch07_machines_with_lines(
        "h200-ch07-5100d36", "  cg solve double: t0", "  symv float: t0 5.744 us, e 0.4758 at n = 4096, e 0.83 at n = 16384");
    const wb::ch07::GpuRate& r = two.gpu_rates.rates.at("symv float");
    CHECK(r.eff == Approx(0.4758));
    CHECK(r.large_eff == Approx(0.83));
    CHECK(r.mid_bytes == Approx(wb::roofline::symv_bytes(4096, 4)));
    CHECK(r.large_bytes == Approx(wb::roofline::symv_bytes(16384, 4)));
    CHECK(one.gpu_rates.rates.at("symv float").large_bytes == 0);
    CHECK(two.gpu_rates.rates.at("symv double").large_bytes == 0);  // the other precision's line untouched
    // At or below the mid size nothing moves; at 16384 each of the 101 products' kernel runs at
    // 0.83 of the roofline, not 0.4758: the split's model falls by 101 x that difference.
    for (int n : {256, 4096}) {
        INFO(n);
        CHECK(wb::ch07::predict_case(cg_float(n), two).split.hybrid_ms == Approx(wb::ch07::predict_case(cg_float(n), one).split.hybrid_ms));
    }
    const wb::ch07::Case big = cg_float(16384);
    const double roof = wb::ch07::gpu_roofline_ms(two.gpu, wb::roofline::symv_bytes(16384, 4), 2.0 * 16384 * 16384, 4);
    const double drop = 101 * (roof / 0.4758 - roof / 0.83);
    CHECK(wb::ch07::predict_case(big, one).split.hybrid_ms - wb::ch07::predict_case(big, two).split.hybrid_ms ==
          Approx(drop).epsilon(1e-3));
    CHECK(drop > 5.0);  // several ms: a third of the solve's time at that n
    // The SYMV row's all-GPU call prices its one kernel the same way: a little faster, not slower.
    const wb::ch07::Case symv{"symv", 16384, 4};
    CHECK(wb::ch07::predict_case(symv, two).split.gpu_ms < wb::ch07::predict_case(symv, one).split.gpu_ms);
    // CG's all-GPU solve has its own class ("cg"): unchanged.
    CHECK(wb::ch07::predict_case(big, two).split.gpu_ms == Approx(wb::ch07::predict_case(big, one).split.gpu_ms));
}

TEST_CASE("chapter 7: each product of CG's split at the SYMV path's call timed again before CG's rows", "[cpu][ch07][split]") {
    // The run re-timed SYMV float's path before the SYMV rows (30.49 us) and priced CG's products,
    // minutes later, at it. The line a later run prints before CG's rows replaces that for CG alone.
    const std::string line = wb::ch07::cg_product_line(4, 0.0255, 0.03049);
    CHECK(line == "cg product float: the SYMV path timed again before CG's rows: t0 25.5 us; calibration 30.49");
    const auto [as_run, again] = wb::test::ch07_machines_with_lines("h200-ch07-5100d36", "Timing the rows", "  " + line);
    CHECK(as_run.gpu_rates.rates.count("cg product float") == 0);
    REQUIRE(again.gpu_rates.rates.count("cg product float") == 1);
    CHECK(again.gpu_rates.rates.at("cg product float").fixed_ms == Approx(0.0255));
    CHECK(again.paths.at("symv float").t0_ms == Approx(as_run.paths.at("symv float").t0_ms));  // SYMV's own rows keep theirs
    for (int n : {1, 256, 16384}) {
        INFO(n);
        const double I = std::min(n, 100);  // a solve of min(n, 100) iterations: I + 1 products
        const double moved = wb::ch07::predict_case(cg_float(n), as_run).split.hybrid_ms -
                             wb::ch07::predict_case(cg_float(n), again).split.hybrid_ms;
        CHECK(moved == Approx((I + 1) * (as_run.paths.at("symv float").t0_ms - 0.0255)).epsilon(1e-6));
        CHECK(wb::ch07::predict_case(cg_float(n), again).split.gpu_ms == wb::ch07::predict_case(cg_float(n), as_run).split.gpu_ms);
    }
    const wb::ch07::Case symv{"symv", 1024, 4}, cg_double{"cg", 1024, 8};
    CHECK(wb::ch07::predict_case(symv, again).split.gpu_ms == wb::ch07::predict_case(symv, as_run).split.gpu_ms);
    CHECK(wb::ch07::predict_case(cg_double, again).split.hybrid_ms == wb::ch07::predict_case(cg_double, as_run).split.hybrid_ms);
}

TEST_CASE("chapter 7: CG's anchors are not timed again where the run measured neither", "[cpu][ch07][split]") {
    // A run from before "cg solve" and the products' line: CG's group has nothing to time again.
    wb::ch07::Machines m = wb::test::read_ch07_run("h200-ch07-9f6746d").m;
    REQUIRE_FALSE(m.cg_product_without_a);
    CHECK(wb::ch07::reanchor_path(m, cg_float(0)).empty());
    CHECK(m.gpu_rates.rates.count("cg product float") == 0);
}
