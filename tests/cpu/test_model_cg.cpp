// The CG model (common/model/cg): per-iteration bytes, launches and round trips per step, the
// predicted ordering of the steps, and the classical iteration bound.
#include "catch.hpp"

#include "device_profile.hpp"
#include "model/cg.hpp"
#include "model/kernel_time.hpp"
#include "model/occupancy.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

TEST_CASE("cg model: bytes per iteration follow each step's Mv and vector kernels", "[cpu][cg][model]") {
    const long long n = 4096;
    // GEMV steps read all of A, SYMV steps the lower triangle.
    CHECK(wb::model::cg_iteration_bytes(wb::Stage::kPattern, n, 4) == 4.0 * (n * n + 13.0 * n));
    CHECK(wb::model::cg_iteration_bytes(wb::Stage::kAccess, n, 8) == 8.0 * (n * (n + 1) / 2.0 + 13.0 * n));
    CHECK(wb::model::cg_iteration_bytes(wb::model::kCgCublasPeer, n, 4) == 4.0 * (n * n + 16.0 * n));
    const auto dev = wb::device_preset("h200");
    const auto tuned = wb::model::predict_cg(wb::Stage::kTuned, n, 4, dev, 100, 1e-6, 0, -1, /*schedule=*/1);
    const auto access = wb::model::predict_cg(wb::Stage::kAccess, n, 4, dev, 100, 1e-6);
    CHECK(tuned.matrix_bytes == 4.0 * n * (n + 1) / 2.0);
    CHECK(tuned.round_trips == 1.0 / 8);  // the status copy between two chunks of 8
    CHECK(access.round_trips == 1.0 / 8);
    CHECK(wb::model::predict_cg(wb::Stage::kPattern, n, 4, dev, 100, 1e-6, 4).round_trips == 0.25);
    CHECK(wb::model::cg_stage_design(wb::Stage::kShared).round_trips == 2);
    // A stage the table gains before the model does: named in the message, never guessed.
    CHECK_THROWS_AS(wb::model::predict_cg(static_cast<wb::Stage>(99), n, 4, dev, 100, 1e-6), std::invalid_argument);
    CHECK_THROWS_WITH(wb::model::predict_cg(wb::Stage::kTuned, -1, 4, dev, 100, 1e-6), Catch::Matchers::Contains("n (-1) must be >= 0"));
    CHECK_THROWS_WITH(wb::model::predict_cg(wb::Stage::kTuned, n, 2, dev, 100, 1e-6), Catch::Matchers::Contains("elem_bytes (2)"));
}

TEST_CASE("cg model: the ladder's order, and tuned beats the composed CG 3x at n <= 4096", "[cpu][cg][model]") {
    const auto dev = wb::device_preset("h200");
    auto ms = [&](const wb::model::CgModelStep& s, long long n) { return wb::model::predict_cg(s, n, 4, dev, 100, 1e-6).predicted_ms; };
    for (long long n : {1024LL, 2048LL, 4096LL, 8192LL, 16384LL}) {
        INFO("n=" << n);
        CHECK(ms(wb::Stage::kPattern, n) < ms(wb::Stage::kShared, n));
        // With the same Mv bytes (no Mv model here) tuned wins by its schedule where the persistent
        // kernel runs (n <= 4096); from 8192 its graphs pay the fused kernel's two grid barriers
        // that access's plain vector kernels do not, and its gain is its SYMV (model/symv).
        if (n <= 4096) CHECK(ms(wb::Stage::kTuned, n) < ms(wb::Stage::kAccess, n));
        CHECK(ms(wb::Stage::kTuned, n) < ms(wb::Stage::kPattern, n));
        // access pays SYMV's 2 extra launches for half of A: a gain only once the matrix dominates.
        if (n >= 8192) CHECK(ms(wb::Stage::kAccess, n) < ms(wb::Stage::kPattern, n));
        if (n <= 4096) CHECK(ms(wb::model::kCgCublasPeer, n) >= 3 * ms(wb::Stage::kTuned, n));
    }
    // Chapter 2 puts the vectors on the GPU at the price of 9 stream launches and 2 round trips per
    // iteration: at n = 1024 that is slower than chapter 1's two small copies and CPU loops, as the
    // H200 measured (float, 81 against 48 us per iteration: docs/results/h200/cg-ladder.csv); the
    // bytes decide from n = 8192 on.
    CHECK(ms(wb::Stage::kShared, 1024) > ms(wb::Stage::kNaive, 1024));
    CHECK(ms(wb::Stage::kShared, 16384) < ms(wb::Stage::kNaive, 16384));
    // The target, tuned <= 1.15x the roofline (half of A + 13n elements) at n >= 8192: with the
    // Mv's bytes at the bandwidth the model puts the graphs at 1.16x at 16384 and 1.42x at 8192
    // (SYMV's workspace of partials adds 6% to the bytes; 3 graph nodes, the fused kernel's 2 grid
    // barriers and a round trip per 8 iterations about 10 us to the 28 us of the roofline).
    const auto p16 = wb::model::predict_cg(wb::Stage::kTuned, 16384, 4, dev, 100, 1e-6, 0, -1, 1);
    CHECK(p16.predicted_ms / p16.roofline_ms == Approx(1.16).margin(0.01));
    const auto p8 = wb::model::predict_cg(wb::Stage::kTuned, 8192, 4, dev, 100, 1e-6, 0, -1, 1);
    CHECK(p8.predicted_ms / p8.roofline_ms == Approx(1.42).margin(0.01));
}

TEST_CASE("cg model: an iteration is the longer of the GPU's work and the host's launches, plus its round trips",
          "[cpu][cg][model]") {
    const auto dev = wb::device_preset("h200");
    // Pattern at n = 1024 (float): 4 launches (GEMV + 3 vector kernels) at kLaunchOverheadUs each
    // outlast the GPU's few microseconds; a round trip every 8 iterations. The H200 measured
    // 17.9 us per iteration (docs/results/h200/cg-ladder.csv): the model's 4 x 4.3 + 12.2 / 8.
    const double mv = 0.005;  // an Mv of 5 us
    const auto p = wb::model::predict_cg(wb::Stage::kPattern, 1024, 4, dev, 100, 1e-5, 0, mv);
    CHECK(p.predicted_ms == Approx((4 * wb::model::kLaunchOverheadUs + wb::model::kRoundTripUs / 8) / 1e3));
    CHECK(p.predicted_ms == Approx(0.0179).epsilon(0.10));
    // A slow Mv (the GPU's side longer): the iteration follows it, each kernel's start behind the
    // one before added, then the round trip.
    const auto slow = wb::model::predict_cg(wb::Stage::kPattern, 1024, 4, dev, 100, 1e-5, 0, 0.2);
    CHECK(slow.predicted_ms == Approx(slow.bandwidth_ms + 4 * wb::model::kNextKernelUs / 1e3 +
                                      wb::model::kRoundTripUs / 8 / 1e3));
    CHECK(slow.bandwidth_ms > 0.2 - wb::model::kLaunchOverheadUs / 1e3 - 1e-12);
}

TEST_CASE("cg model: the classical iteration bound", "[cpu][cg][model]") {
    // ceil(sqrt(100) / 2 ln(2e6)) = ceil(5 x 14.5087) = 73
    CHECK(wb::model::cg_iteration_bound(100, 1e-6) == 73);
    CHECK(wb::model::cg_iteration_bound(1, 1e-6) == 8);
    CHECK(wb::model::cg_iteration_bound(100, 1) == 0);
    CHECK(wb::model::predict_cg(wb::Stage::kTuned, 1024, 8, wb::device_preset("h200"), 1e4, 1e-9).iterations ==
          wb::model::cg_iteration_bound(1e4, 1e-9));
}

TEST_CASE("cg model: given the Mv's own time, an iteration is that Mv plus the vectors and the fixed costs",
          "[cpu][cg][model]") {
    const auto dev = wb::device_preset("h200");
    const long long n = 8192;
    for (const wb::Stage stage : {wb::Stage::kShared, wb::Stage::kPattern, wb::Stage::kAccess, wb::Stage::kTuned}) {
        INFO(wb::stage_name(stage));
        const auto by_bytes = wb::model::predict_cg(stage, n, 4, dev, 100, 1e-5, 0, -1, 1);  // tuned: graphs
        const double mv_ms = 0.25;  // an Mv far slower than its bytes: the CG must follow it
        const auto by_mv = wb::model::predict_cg(stage, n, 4, dev, 100, 1e-5, 0, mv_ms, 1);
        const auto d = wb::model::cg_stage_design(stage);
        // The vectors stay in the L2 between the iteration's kernels (13 n elements fit).
        const double vectors_ms = by_mv.vector_bytes / (wb::model::kL2OverDram * dev.bandwidth_gbs * 1e6);
        // The Mv's launch costs come off (the first kernel's launch, the queued start of the others:
        // the CG charges its own launches), the vectors are added.
        const double mv_launch_ms = (wb::model::kLaunchOverheadUs + (d.mv_launches - 1) * wb::model::kNextKernelUs) / 1e3;
        CHECK(by_mv.bandwidth_ms == Approx(mv_ms - mv_launch_ms + vectors_ms).epsilon(1e-12));
        CHECK(by_mv.overhead_ms == Approx(by_bytes.overhead_ms).epsilon(1e-12));  // same launches, trips
        CHECK(by_mv.predicted_ms > by_bytes.predicted_ms);
        // Bytes are what the step moves either way (the rate's numerator does not change).
        CHECK(by_mv.useful_bytes == by_bytes.useful_bytes);
    }
    // A negative Mv time means "no Mv model" (the composed peer): the bytes at the bandwidth.
    const auto peer = wb::model::predict_cg(wb::model::kCgCublasPeer, n, 4, dev, 100, 1e-5, 0, -1);
    CHECK(peer.bandwidth_ms == Approx((peer.matrix_bytes + peer.vector_bytes) / (dev.bandwidth_gbs * 1e6)));
}

TEST_CASE("cg model: the persistent kernel's plan, its on-chip share and the default schedule", "[cpu][cg][model]") {
    for (const char* name : {"h100-sxm", "h200"}) {
        INFO(name);
        const auto dev = wb::device_preset(name);
        // 3 float / 2 double blocks per SM (the tuned SYMV's registers); 228 KB per SM shared by
        // them, less 8336 / 16656 bytes of static arrays, 1 KB reserve and the tile table: 4 float
        // tiles of 16 KB, 3 double tiles of 32 KB per block.
        const auto f = wb::model::cg_persistent_plan(16384, 4, dev);
        CHECK(f.grid == 3 * dev.sm_count);
        CHECK(f.cache_tiles == 4);
        const auto d = wb::model::cg_persistent_plan(16384, 8, dev);
        CHECK(d.grid == 2 * dev.sm_count);
        CHECK(d.cache_tiles == 3);
        // The share: every tile where the triangle fits (n = 1024: 136 tiles, one per block), then
        // the kept tiles over the triangle's.
        CHECK(wb::model::cg_persistent_plan(1024, 4, dev).onchip_share == 1.0);
        const double tiles8k = 128.0 * 129 / 2;
        CHECK(wb::model::cg_persistent_plan(8192, 4, dev).onchip_share == Approx(4.0 * 3 * dev.sm_count / tiles8k));
        CHECK(wb::model::cg_persistent_plan(8192, 8, dev).onchip_share == Approx(3.0 * 2 * dev.sm_count / tiles8k));
        double last = 2;
        for (long long n : {64LL, 1000LL, 2048LL, 4097LL, 8192LL, 12000LL, 16384LL, 32768LL}) {
            const double s = wb::model::cg_persistent_plan(n, 4, dev).onchip_share;
            CHECK(s <= last);
            CHECK(s > 0);
            last = s;
        }
        // The default schedule is the faster in the model (test_cg_schedule.cpp): the persistent
        // kernel where it keeps all of the triangle, the graphs where it keeps 5% or less.
        CHECK(wb::model::cg_tuned_schedule(2048, 4, dev) == 2);
        CHECK(wb::model::cg_tuned_schedule(2048, 8, dev) == 2);
        CHECK(wb::model::cg_tuned_schedule(16384, 4, dev) == 1);
        CHECK(wb::model::cg_tuned_schedule(16384, 8, dev) == 1);
        // The persistent prediction: the triangle less its share, no launches, two barriers, three
        // L2 round trips for the vectors other blocks wrote, and each block's chain per tile (16
        // FMAs, half a barrier, the shared loads of its sums).
        const auto p = wb::model::predict_cg(wb::Stage::kTuned, 8192, 4, dev, 100, 1e-6, 0, -1, 2);
        const auto plan = wb::model::cg_persistent_plan(8192, 4, dev);
        CHECK(p.matrix_bytes == Approx(4.0 * 8192 * 8193 / 2 * (1 - plan.onchip_share)));
        CHECK(p.launches == 0);
        const double tiles = 128.0 * 129 / 2;
        const double chain_us = tiles / plan.grid *
                                (16 * wb::model::kFmaCycles + wb::model::kBarrierCycles / 2 + wb::model::kSharedLoadCycles) /
                                dev.sm_clock_mhz;
        CHECK(p.overhead_ms ==
              Approx((2 * wb::model::kGridBarrierUs + 3 * dev.l2_latency_ns / 1e3 + chain_us) / 1e3));
        CHECK(p.overhead_ms == Approx(wb::model::cg_persistent_fixed_us(8192, 4, dev) / 1e3));
        CHECK(p.useful_bytes == wb::model::predict_cg(wb::Stage::kTuned, 8192, 4, dev, 100, 1e-6, 0, -1, 1).useful_bytes);
    }
}

TEST_CASE("cg model: the persistent kernel's kept share counts every block's tiles", "[cpu][cg][model]") {
    // Brute force: deal units of `deal` tiles round-robin, keep each block's first `cache` tiles.
    for (int deal : {1, 2})
        for (long long tiles : {1LL, 2LL, 3LL, 7LL, 136LL, 2145LL, 8256LL, 8257LL})
            for (int grid : {1, 3, 64, 396})
                for (int cache : {0, 1, 3, 4}) {
                    const long long units = (tiles + deal - 1) / deal;
                    if (grid > units) continue;
                    std::vector<long long> held(grid, 0);
                    for (long long t = 0; t < tiles; ++t) ++held[(t / deal) % grid];
                    long long kept = 0;
                    for (long long h : held) kept += std::min<long long>(h, cache);
                    INFO("deal " << deal << " tiles " << tiles << " grid " << grid << " cache " << cache);
                    CHECK(wb::model::cg_persistent_share(tiles, grid, cache, deal) ==
                          Approx(static_cast<double>(kept) / tiles).epsilon(1e-15));
                }
}
