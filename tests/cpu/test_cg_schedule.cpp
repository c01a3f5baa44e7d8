// The tuned CG's schedules in the model (common/model/cg) and the derivation's check interval and
// schedule (common/derive/cg.cpp): what each schedule pays per iteration, and how the ranking moves
// with the launch cost, the round trip, the SMs and the clock.
#include "catch.hpp"

#include "derive/derivation.hpp"
#include "device_profile.hpp"
#include "model/cg.hpp"

#include <cmath>
#include <stdexcept>

namespace {

using wb::Stage;
using wb::model::CgOverheads;

/// Per-iteration ms of the tuned step at (schedule, check) with an Mv of `mv` ms.
double ms(const wb::DeviceProfile& dev, long long n, int elem, int schedule, int check, double mv,
          const CgOverheads& oh = {}) {
    return wb::model::predict_cg(Stage::kTuned, n, elem, dev, 100, 1e-5, check, mv, schedule, oh).predicted_ms;
}

}  // namespace

TEST_CASE("cg schedules: the graphs pay a round trip per chunk, the stream launches the host's launches",
          "[cpu][cg][model]") {
    const auto dev = wb::device_preset("h200");
    const double mv = 0.0213;  // an Mv of 21.3 us (odd, not a round number of launches)
    // A round trip per chunk: c = 4 against c = 32 differs by R (1/4 - 1/32), nothing else.
    CHECK(ms(dev, 3001, 4, 1, 4, mv) - ms(dev, 3001, 4, 1, 32, mv) ==
          Approx(wb::model::kRoundTripUs * (1.0 / 4 - 1.0 / 32) / 1e3));
    for (int c : {4, 8, 16}) CHECK(ms(dev, 3001, 4, 1, c, mv) > ms(dev, 3001, 4, 1, 2 * c, mv));
    // A short Mv: the host's 3 stream launches per iteration outlast the GPU's work, the graph's one
    // launch per chunk does not: stream launches are the slower.
    const double short_mv = 0.0047;
    CHECK(ms(dev, 1001, 4, 0, 8, short_mv) > ms(dev, 1001, 4, 1, 8, short_mv) + 1e-3);
    const auto stream = wb::model::predict_cg(Stage::kTuned, 1001, 4, dev, 100, 1e-5, 8, short_mv, 0);
    CHECK(stream.predicted_ms ==
          Approx(stream.bandwidth_ms + (3 * wb::model::kLaunchOverheadUs - stream.bandwidth_ms * 1e3) / 1e3 +
                 wb::model::kRoundTripUs / 8 / 1e3));
    // A long Mv: the host's launches hide behind the GPU's work; stream and graph alike.
    CHECK(ms(dev, 9001, 4, 0, 8, 0.2) == Approx(ms(dev, 9001, 4, 1, 8, 0.2)));
    // The fused vector kernel's two grid barriers are in the graph's iteration.
    CgOverheads slow_barrier;
    slow_barrier.grid_barrier_us = wb::model::kGridBarrierUs + 5;
    CHECK(ms(dev, 3001, 4, 1, 8, mv, slow_barrier) - ms(dev, 3001, 4, 1, 8, mv) == Approx(10.0 / 1e3));
}

TEST_CASE("cg schedules: a slower launch favours the graphs and the persistent kernel", "[cpu][cg][model]") {
    const auto dev = wb::device_preset("h200");
    const double mv = 0.0071;
    CgOverheads slow;
    slow.launch_us = 3 * wb::model::kLaunchOverheadUs;
    const double stream_gap = ms(dev, 1501, 8, 0, 8, mv) - ms(dev, 1501, 8, 1, 8, mv);
    const double slow_gap = ms(dev, 1501, 8, 0, 8, mv, slow) - ms(dev, 1501, 8, 1, 8, mv, slow);
    CHECK(stream_gap > 0);
    CHECK(slow_gap > stream_gap + 1e-3);
    // The persistent kernel launches nothing per iteration: unchanged.
    CHECK(ms(dev, 1501, 8, 2, 8, mv, slow) == ms(dev, 1501, 8, 2, 8, mv));
    // A costlier round trip: the graphs slower, the persistent kernel (no host) unchanged; at an n
    // where the two are close the schedule turns to the persistent kernel.
    CgOverheads far;
    far.round_trip_us = 20 * wb::model::kRoundTripUs;
    CHECK(ms(dev, 7777, 4, 1, 8, -1, far) > ms(dev, 7777, 4, 1, 8, -1));
    CHECK(ms(dev, 7777, 4, 2, 8, -1, far) == ms(dev, 7777, 4, 2, 8, -1));
    CHECK(wb::model::cg_tuned_schedule(7777, 4, dev, -1, 8) == 1);
    CHECK(wb::model::cg_tuned_schedule(7777, 4, dev, -1, 8, far) == 2);
}

TEST_CASE("cg schedules: the persistent walk's rate is each card's probe, in SM cycles", "[cpu][cg][model]") {
    // The probes it is read from: the model gives each probe's own time back on its card.
    const auto h100 = wb::device_preset("h100-sxm");
    const auto h200 = wb::device_preset("h200");
    CHECK(ms(h100, wb::model::kWalkProbeN, 4, 2, 8, -1) * 1e3 == Approx(wb::model::kWalkProbeUsFloat));
    CHECK(ms(h100, wb::model::kWalkProbeN, 8, 2, 8, -1) * 1e3 == Approx(wb::model::kWalkProbeUsDouble));
    CHECK(ms(h200, wb::model::kWalkProbeN, 4, 2, 8, -1) * 1e3 == Approx(wb::model::kWalkProbeH200UsFloat));
    CHECK(ms(h200, wb::model::kWalkProbeN, 8, 2, 8, -1) * 1e3 == Approx(wb::model::kWalkProbeH200UsDouble));
    // Cycles per tile and block: a few thousand (a 16 KB tile per block, 3 blocks per SM, at about
    // the DRAM's share per SM), more for double's 32 KB tiles; the H200, whose DRAM is 1.43x the
    // H100's, walks faster on the same SMs and clock. Another card takes the H100's cycles.
    CHECK(wb::model::cg_walk_tile_cycles(4, h100) > 3000);
    CHECK(wb::model::cg_walk_tile_cycles(4, h100) < 6000);
    CHECK(wb::model::cg_walk_tile_cycles(8, h100) > wb::model::cg_walk_tile_cycles(4, h100));
    CHECK(wb::model::cg_walk_tile_cycles(4, h200) < 0.85 * wb::model::cg_walk_tile_cycles(4, h100));
    CHECK(wb::model::cg_walk_tile_cycles(4, wb::device_preset("t10")) == wb::model::cg_walk_tile_cycles(4, h100));
    // The probe follows the profile's card, not its name: a renamed H200 profile keeps the H200's.
    auto renamed = h200;
    renamed.name = "an H200 by another name";
    CHECK(wb::model::cg_walk_tile_cycles(4, renamed) == wb::model::cg_walk_tile_cycles(4, h200));
    CHECK_THROWS_WITH(wb::model::cg_walk_tile_cycles(2, h200), Catch::Matchers::Contains("elem_bytes (2) must be 4 or 8"));
    // A faster clock walks faster; twice the SMs keep twice the tiles on chip and walk half the
    // rest per block: the persistent kernel faster, and chosen up to a larger n.
    auto fast = h200;
    fast.sm_clock_mhz *= 1.5;
    CHECK(ms(fast, 15013, 4, 2, 8, -1) < 0.75 * ms(h200, 15013, 4, 2, 8, -1));
    auto wide = h200;
    wide.sm_count *= 2;
    CHECK(ms(wide, 9001, 4, 2, 8, -1) < 0.6 * ms(h200, 9001, 4, 2, 8, -1));
    CHECK(wb::model::cg_tuned_schedule(9001, 4, h200) == 1);
    CHECK(wb::model::cg_tuned_schedule(9001, 4, wide) == 2);
    // Past the persistent kernel's tile table (65535 x 64): never chosen.
    CHECK(wb::model::cg_tuned_schedule(65535LL * 64 + 1, 4, wide) == 1);
}

TEST_CASE("cg schedules: columns that straddle 128-byte lines slow the walk", "[cpu][cg][model]") {
    using wb::model::cg_walk_line_factor;
    // Column j of a tile starts j lda e bytes from the first: 64 floats (256 bytes) touch 2 lines
    // where they start on one, 3 elsewhere; 64 doubles 4 or 5.
    CHECK(cg_walk_line_factor(8192, 4) == 1);
    CHECK(cg_walk_line_factor(12000, 4) == 1);  // 48000 bytes: 375 lines
    CHECK(cg_walk_line_factor(0, 4) == 1);
    CHECK(cg_walk_line_factor(9000, 4) == Approx((2 + 3 + 3 + 3) / 4.0 / 2));  // offsets 0, 32, 64, 96
    CHECK(cg_walk_line_factor(10000, 4) == Approx((2 + 3) / 2.0 / 2));        // offsets 0, 64
    CHECK(cg_walk_line_factor(9000, 8) == Approx((4 + 5) / 2.0 / 4));          // offsets 0, 64
    CHECK(cg_walk_line_factor(7777, 4) == Approx((2 + 31 * 3) / 32.0 / 2));    // every 4-byte offset
    CHECK_THROWS_WITH(cg_walk_line_factor(100, 2), Catch::Matchers::Contains("elem_bytes (2) must be 4 or 8"));
    // The probe on the H200 (docs/results/h200/cg-schedule-probe-e4271f6.txt, us per iteration):
    // the persistent kernel at 8192 float 39.03, 9000 float 57.04 (its columns straddle lines),
    // 12000 float 81.15 (they do not), 9000 double 100.07; the graphs 43.70, 54.37, 79.70, 89.91.
    // The model within 5% of the persistent times, and the schedule the faster of the two.
    const auto h200 = wb::device_preset("h200");
    CHECK(ms(h200, 8192, 4, 2, 8, -1) * 1e3 == Approx(39.03).epsilon(0.05));
    CHECK(ms(h200, 9000, 4, 2, 8, -1) * 1e3 == Approx(57.04).epsilon(0.05));
    CHECK(ms(h200, 12000, 4, 2, 8, -1) * 1e3 == Approx(81.15).epsilon(0.05));
    CHECK(ms(h200, 9000, 8, 2, 8, -1) * 1e3 == Approx(100.07).epsilon(0.05));
    CHECK(wb::model::cg_tuned_schedule(8192, 4, h200) == 2);
    CHECK(wb::model::cg_tuned_schedule(9000, 4, h200) == 1);
    // The same n on a padded lda (9024: 36096 bytes, 282 lines) walks as the aligned probe does.
    CHECK(wb::model::predict_cg(Stage::kTuned, 9000, 4, h200, 100, 1e-5, 8, -1, 2, {}, 9024).predicted_ms <
          0.85 * ms(h200, 9000, 4, 2, 8, -1));
}

TEST_CASE("cg derivation: the check interval from the solve's round trips and wasted iterations", "[cpu][cg][derive]") {
    using wb::derive::cg_check_interval;
    // c* = sqrt(m R / (1.5 t)): 611 iterations of 37 us, R = 12.2 us: sqrt(134.3) = 11.6 -> 16.
    CHECK(cg_check_interval(611, 37, 12.2) == 16);
    CHECK(cg_check_interval(611, 107, 12.2) == 8);  // 6.8: nearer 8 than 4 in log
    // Clamped to the step's legal intervals.
    CHECK(cg_check_interval(611, 0.5, 12.2) == wb::derive::kCgCheckMax);
    CHECK(cg_check_interval(3, 500, 12.2) == wb::derive::kCgCheckMin);
    // Monotone: a costlier round trip, or a shorter iteration, checks less often.
    int last = 0;
    for (double r : {3.0, 12.2, 50.0, 200.0}) {
        const int c = cg_check_interval(611, 53, r);
        CHECK(c >= last);
        last = c;
    }
    CHECK(cg_check_interval(611, 20, 12.2) > cg_check_interval(611, 200, 12.2));
    CHECK_THROWS_WITH(cg_check_interval(611, 0, 12.2), Catch::Matchers::Contains("iteration_us"));
    CHECK_THROWS_AS(cg_check_interval(-1, 10, 12.2), std::invalid_argument);
    CHECK(wb::derive::cg_derive_iterations(4) == wb::model::cg_iteration_bound(1e4, 1e-5));
    CHECK(wb::derive::cg_derive_iterations(8) > wb::derive::cg_derive_iterations(4));
}

TEST_CASE("cg derivation: the schedule and check interval it sets", "[cpu][cg][derive]") {
    const auto h200 = wb::device_preset("h200");
    for (int elem : {4, 8}) {
        INFO("elem " << elem);
        // All of the triangle on chip: the persistent kernel; 2% or less: the graphs.
        CHECK(wb::derive::derive_cg(h200, 2003, elem).value("schedule") == 2);
        CHECK(wb::derive::derive_cg(h200, 16001, elem).value("schedule") == 1);
        for (long long n : {1001LL, 4160LL, 7777LL, 12001LL}) {
            const auto d = wb::derive::derive_cg(h200, n, elem);
            const long long c = d.value("check");
            CHECK(c >= wb::derive::kCgCheckMin);
            CHECK(c <= wb::derive::kCgCheckMax);
            CHECK((c & (c - 1)) == 0);
            CHECK(d.launch().find("schedule=") != std::string::npos);
        }
        // Longer iterations check more often (a larger n, never a larger interval).
        CHECK(wb::derive::derive_cg(h200, 15013, elem).value("check") <=
              wb::derive::derive_cg(h200, 3001, elem).value("check"));
    }
}

TEST_CASE("cg schedules: within the model's resolution the graphs win", "[cpu][cg][derive]") {
    using wb::model::kCgScheduleResolution;
    const auto h200 = wb::device_preset("h200");
    // The rule itself: an Mv whose graphs land 3% behind the persistent kernel gives the graphs,
    // 10% behind the persistent kernel (mv found by bisection: the graphs' time grows with it).
    const long long n = 6000;
    const double persistent = ms(h200, n, 4, 2, 16, -1);
    auto mv_for = [&](double ratio) {
        double lo = 0, hi = 1;
        for (int i = 0; i < 60; ++i) {
            const double mid = (lo + hi) / 2;
            (ms(h200, n, 4, 1, 16, mid) < ratio * persistent ? lo : hi) = mid;
        }
        return lo;
    };
    REQUIRE(kCgScheduleResolution > 0.03);
    REQUIRE(kCgScheduleResolution < 0.10);
    CHECK(wb::model::cg_tuned_schedule(n, 4, h200, mv_for(1.03), 16) == 1);
    CHECK(wb::model::cg_tuned_schedule(n, 4, h200, mv_for(1.10), 16) == 2);
    // n = 6000 float with lda = 6003 (unaligned columns): the derivation's model puts the
    // persistent kernel 5% ahead of the graphs, inside the resolution; on the H200 the persistent
    // kernel ran 33.5 us per iteration and the graphs 31.1 (docs/results/h200/ch06-shapes-cg.txt).
    CHECK(wb::derive::derive_cg(h200, 6000, 4, 6003).value("schedule") == 1);
    // Past the resolution the persistent kernel keeps its lead: 5000 double (8% ahead) and the
    // sizes whose triangle stays on chip.
    CHECK(wb::derive::derive_cg(h200, 5000, 8).value("schedule") == 2);
    CHECK(wb::derive::derive_cg(h200, 3001, 4).value("schedule") == 2);
}
