// test_model_gemv.cpp — Little's law and the GEMV prediction of each ladder stage: bytes,
// transactions and efficiency per design, latency- vs bandwidth-bound time, the naive T case's
// pessimistic and cached figures, argument validation, and agreement with measured H200 numbers.
#include "catch.hpp"

#include "model.hpp"
#include "model/gemv.hpp"

#include <stdexcept>
#include <vector>

using namespace wb::model;
using wb::device_preset;

namespace {
/// Every stage of the table (stage.hpp), in ladder order.
std::vector<wb::Stage> ladder_stages() {
    std::vector<wb::Stage> v;
    for (const wb::StageInfo& s : wb::stages()) v.push_back(s.stage);
    return v;
}

/// A tuned launch's model fields (T: nb columns; N: ept = U, Y blocks per tile).
GemvModelLaunch tuned_launch(int block_x, int block_y, int nb, int ept = 0, int y = 0) {
    return GemvModelLaunch{block_x, block_y, nb, y, ept};
}
}  // namespace

TEST_CASE("Little's law: bytes in flight to saturate DRAM", "[model][little]") {
    const auto h200 = device_preset("h200");
    CHECK(bytes_in_flight_needed(h200) == Approx(h200.latency_ns * 4800.0));
    CHECK(bytes_in_flight_needed_per_sm(h200) == Approx(h200.latency_ns * 4800.0 / 132));
    const double need = bytes_in_flight_needed_per_sm(h200);
    CHECK(latency_bound_bandwidth_gbs(h200, need) == Approx(4800.0));
    CHECK(latency_bound_bandwidth_gbs(h200, 2 * need) == Approx(4800.0));  // capped
    CHECK(latency_bound_bandwidth_gbs(h200, need / 4) == Approx(1200.0));
    CHECK(latency_bound_bandwidth_gbs(h200, need, 66) == Approx(2400.0));  // half the SMs
    // On the T10: 101 GB/s x 301 ns is about 30 KB in flight.
    CHECK(bytes_in_flight_needed(device_preset("t10")) == Approx(101.376 * 400 / 1.33).epsilon(1e-6));
}

TEST_CASE("GEMV useful bytes and per-design DRAM bytes", "[model][gemv]") {
    const auto h200 = device_preset("h200");
    const long long m = 4096, n = 2048;
    const auto nn = predict_gemv(wb::Stage::kNaive, false, m, n, 4, 256, h200);
    CHECK(nn.useful_bytes == Approx(4.0 * (m * n + n + m)));
    CHECK(nn.dram_bytes == Approx(nn.useful_bytes));  // N: coalesced
    CHECK(nn.efficiency == Approx(1.0));
    CHECK(nn.transactions == m * n / 8);  // 8 floats per 32-byte sector
    CHECK(predict_gemv(wb::Stage::kNaive, false, m, n, 4, 256, h200, true).useful_bytes == Approx(4.0 * (m * n + n + 2 * m)));

    const auto nt = predict_gemv(wb::Stage::kNaive, true, m, n, 4, 256, h200);
    CHECK(nt.transactions == m * n);  // one sector per element
    CHECK(nt.dram_bytes == Approx(32.0 * m * n + 4.0 * (m + n)));
    CHECK(nt.efficiency == Approx(1.0 / 8).epsilon(0.01));
    // The lines stay in L1 for the thread's next rows: DRAM moves the useful bytes, and the time
    // is the L1's: each warp load touches 32 lines, 32 wavefronts (+ x's broadcast).
    CHECK(nt.dram_bytes_cached == Approx(nt.useful_bytes));
    CHECK(nt.main.limit == KernelLimit::lsu);
    CHECK_THAT(nt.note, Catch::Matchers::Contains("32 lines per warp load"));

    const auto nt8 = predict_gemv(wb::Stage::kNaive, true, m, n, 8, 256, h200);
    CHECK(nt8.efficiency == Approx(1.0 / 4).epsilon(0.01));

    for (const wb::Stage s : ladder_stages())
        if (s != wb::Stage::kNaive) {
            const auto p = predict_gemv(s, true, m, n, 4, 256, h200);
            INFO(wb::stage_name(s));
            CHECK(p.dram_bytes == Approx(p.useful_bytes));
            CHECK(p.dram_bytes == Approx(p.dram_bytes_cached));
        }
}

TEST_CASE("GEMV predictions: bounded by bandwidth, latency-bound when small", "[model][gemv]") {
    const auto h200 = device_preset("h200");
    for (const wb::Stage s : ladder_stages())
        for (bool t : {false, true})
            for (long long n : {1LL, 31LL, 1000LL, 4097LL, 16384LL}) {
                const auto p = predict_gemv(s, t, n, n, 4, 256, h200);
                INFO(wb::stage_name(s) << (t ? " T" : " N") << " n " << n);
                CHECK(p.predicted_gbs > 0);
                CHECK(p.predicted_gbs <= h200.bandwidth_gbs);
                CHECK(p.predicted_gbs_cached >= p.predicted_gbs);
                CHECK(p.predicted_ms >= kLaunchOverheadUs * 1e-3);
                CHECK(p.occ.blocks_per_sm > 0);
            }
    const auto big = predict_gemv(wb::Stage::kTuned, false, 16384, 16384, 4, 256, h200);
    CHECK(big.predicted_gbs > 0.95 * h200.bandwidth_gbs);
    CHECK_THAT(big.note, Catch::Matchers::StartsWith("bandwidth-bound"));
    const auto small = predict_gemv(wb::Stage::kTuned, false, 1024, 1024, 4, 256, h200);
    CHECK(small.predicted_gbs < 0.5 * h200.bandwidth_gbs);
    CHECK_THAT(small.note, Catch::Matchers::StartsWith("latency-bound"));
    // Zero sizes: launch overhead only.
    const auto zero = predict_gemv(wb::Stage::kNaive, false, 0, 100, 4, 256, h200);
    CHECK(zero.predicted_ms == Approx(kLaunchOverheadUs * 1e-3));
    CHECK(zero.useful_bytes == 0);
}

TEST_CASE("GEMV ladder: each stage predicts at least the previous one at large sizes", "[model][gemv]") {
    const auto h100 = device_preset("h100-sxm");
    for (bool t : {false, true}) {
        double prev = 0;
        for (const wb::Stage s : ladder_stages()) {
            const auto p = predict_gemv(s, t, 8192, 8192, 4, 256, h100);
            INFO(wb::stage_name(s) << (t ? " T" : " N") << " " << p.predicted_gbs);
            // Chapter 2's T removes the 32 lines per load but its one-warp blocks store into an
            // unpadded tile (a 32-way conflict) and wait for 4 loads at a time: about as fast as
            // chapter 1's T (the H200: 1.06x at 8192, 0.97x at 16384, float), not faster.
            if (t && s == wb::Stage::kShared) CHECK(p.predicted_gbs >= prev * 0.85);
            else CHECK(p.predicted_gbs >= prev * 0.999);
            prev = p.predicted_gbs;
        }
    }
}

TEST_CASE("GEMV naive steps agree with the H200's measured ladder", "[model][gemv]") {
    // docs/results/h200/gemv-ladder.csv (the read ceiling of that run: 4566.5 GB/s): chapter 1's
    // N walks its row 9 loads at a time (float) or 4 (double), its T is bound by the 32 lines
    // each warp load touches; within 25% of the measured time at every size.
    auto dev = device_preset("h200");
    dev.bandwidth_gbs = 4566.5;
    const struct {
        bool trans;
        int elem;
        long long n;
        double ms;
    } rows[] = {{false, 4, 1024, 0.0687}, {false, 4, 16384, 1.0627}, {false, 8, 4096, 0.4565},
                {true, 4, 1024, 0.1551},  {true, 4, 16384, 2.2934},  {true, 8, 8192, 1.2481}};
    for (const auto& r : rows) {
        const auto p = predict_gemv(wb::Stage::kNaive, r.trans, r.n, r.n, r.elem, 256, dev);
        INFO((r.trans ? "T " : "N ") << r.elem << " " << r.n << ": model " << p.predicted_ms << " ms, measured " << r.ms);
        CHECK(p.predicted_ms == Approx(r.ms).epsilon(0.25));
    }
}

TEST_CASE("GEMV on the T10 counts White's transactions", "[model][gemv][white]") {
    const auto t10 = device_preset("t10");
    for (long long n : {512LL, 1024LL, 4096LL}) {
        // White's row-major Mv is our op T. Naive: Eq. 3.2 less b's n^2/16 broadcast reads.
        const auto naive = predict_gemv(wb::Stage::kNaive, true, n, n, 4, 256, t10);
        CHECK(naive.transactions == white_mv_gld32(n, 16) - n * n / 16);
        // Staged: Eq. 4.7.
        const auto staged = predict_gemv(wb::Stage::kShared, true, n, n, 4, 256, t10);
        CHECK(staged.transactions == white_mv_shared_gld(n, 32));
    }
}

TEST_CASE("predict_gemv validates its arguments", "[model][gemv]") {
    const auto h = device_preset("h100-sxm");
    // A stage the table gains before the model does throws, never guesses.
    CHECK_THROWS_AS(predict_gemv(static_cast<wb::Stage>(99), false, 8, 8, 4, 256, h), std::invalid_argument);
    CHECK_THROWS_AS(predict_gemv(wb::Stage::kNaive, false, -1, 8, 4, 256, h), std::invalid_argument);
    CHECK_THROWS_AS(predict_gemv(wb::Stage::kNaive, false, 8, -1, 4, 256, h), std::invalid_argument);
    CHECK_THROWS_AS(predict_gemv(wb::Stage::kNaive, false, 8, 8, 2, 256, h), std::invalid_argument);
    CHECK_THROWS_WITH(predict_gemv(wb::Stage::kNaive, false, 8, 8, 4, 100, h), Catch::Matchers::Contains("block_threads"));
    CHECK_THROWS_AS(predict_gemv(wb::Stage::kNaive, false, 8, 8, 4, 2048, h), std::invalid_argument);
    // An explicit design is used as given.
    GemvStageDesign d = gemv_stage_design(wb::Stage::kTuned, false, 4, 256, h);
    d.loads_in_flight = 1;
    const auto slow = predict_gemv(d, false, 4096, 4096, 4, 256, h);
    const auto fast = predict_gemv(wb::Stage::kTuned, false, 4096, 4096, 4, 256, h);
    CHECK(slow.latency_bound_gbs < fast.latency_bound_gbs);
}

TEST_CASE("GEMV model: the tuned launch's fields move the prediction the way Little's law says",
          "[model][gemv]") {
    // Chapter 6 ranks the tuned step's legal launches with this model, so each field must count:
    // fewer loads in flight (U) or fewer thread rows (Q) lengthen a walk-bound call, a split (Y)
    // shortens the walk of a grid with fewer tiles than SMs.
    const auto h200 = device_preset("h200");
    GemvModelLaunch base;
    base.block_x = 8;
    base.block_y = 64;
    base.ept = 8;
    base.Y = 1;
    const double t = predict_gemv(wb::Stage::kTuned, false, 4096, 4096, 4, base, h200).predicted_ms;
    GemvModelLaunch u2 = base;
    u2.ept = 2;
    GemvModelLaunch q8 = base;
    q8.block_y = 8;
    const double tu2 = predict_gemv(wb::Stage::kTuned, false, 4096, 4096, 4, u2, h200).predicted_ms;
    const double tq8 = predict_gemv(wb::Stage::kTuned, false, 4096, 4096, 4, q8, h200).predicted_ms;
    INFO("U = 8, Q = 64: " << t << " ms; U = 2: " << tu2 << " ms; Q = 8: " << tq8 << " ms");
    CHECK(tu2 > 1.15 * t);  // 34 round trips of 550 ns against the 14 us of the bytes
    CHECK(tq8 > 1.5 * t);   // 8 thread rows: each walks 512 columns, 64 batches
    // A short, wide N (128 rows of 1 M columns): 16 tiles of 8 x 4 rows, one per SM for 16 SMs;
    // Y = 8 gives 128 blocks, each an eighth of the walk.
    GemvModelLaunch wide = base;
    const auto y1 = predict_gemv(wb::Stage::kTuned, false, 128, 1 << 20, 4, wide, h200);
    wide.Y = 8;
    const auto y8 = predict_gemv(wb::Stage::kTuned, false, 128, 1 << 20, 4, wide, h200);
    CHECK(y8.y_blocks == 8);
    CHECK(y8.grid.total_blocks == 8 * y1.grid.total_blocks);
    CHECK(y8.predicted_ms < 0.5 * y1.predicted_ms);
}

TEST_CASE("GEMV model: tuned T's short-column kernel walks one round trip per step of L lanes", "[model][gemv]") {
    // gemv_t_short_kernel: groups of L lanes, 256 / L columns side by side, C columns per group,
    // its loop not pipelined. Fewer lanes per column: more steps per lane and fewer blocks
    // (4096 columns / (256 / L x 8)), so never faster; a warp request of 2-lane groups touches 16
    // lines (16 L1 wavefronts) against 4 for 16-lane groups.
    const auto h200 = device_preset("h200");
    double last = 0, lsu_last = 0;
    for (int lanes : {16, 8, 4, 2}) {
        const GemvModelLaunch l = tuned_launch(lanes, 256 / lanes, 8);
        const auto p = predict_gemv(wb::Stage::kTuned, true, 4096, 4096, 4, l, h200);
        INFO("L = " << lanes << ": " << p.predicted_ms << " ms, " << p.grid.total_blocks << " blocks, " << p.note);
        CHECK(p.grid.total_blocks == 4096 / (256 / lanes * 8));
        CHECK(p.predicted_ms > 1.5 * last);  // half the lanes: twice the steps on half the blocks
        CHECK(p.main.lsu_ms > lsu_last);
        last = p.predicted_ms;
        lsu_last = p.main.lsu_ms;
    }
    // 2 lanes per column walk 512 steps of 550 ns: about the 0.36 ms the H200 measured (ch06-sweep.txt).
    CHECK(last > 0.25);
    const GemvModelLaunch warp = tuned_launch(32, 8, 4);  // 32 lanes per column, 8 warps, C = 4: the derived launch
    CHECK(last > 10 * predict_gemv(wb::Stage::kTuned, true, 4096, 4096, 4, warp, h200).predicted_ms);
}

TEST_CASE("GEMV model: tuned T's looping kernel is one resident wave that walks the tiles", "[model][gemv]") {
    const auto h200 = device_preset("h200");
    GemvModelLaunch l = tuned_launch(8, 32, 4);
    l.loop = true;
    const auto p = predict_gemv(wb::Stage::kTuned, true, 579, 57900, 8, l, h200);
    CHECK(p.grid.total_blocks == h200.sm_count * p.occ.blocks_per_sm);
    // Four times the columns: the same grid, four times the tiles per group (the walk, not the
    // bytes, at this size): at least 3x the time, never less.
    const auto p4 = predict_gemv(wb::Stage::kTuned, true, 579, 4 * 57900, 8, l, h200);
    CHECK(p4.grid.total_blocks == p.grid.total_blocks);
    CHECK(p4.predicted_ms > 3 * (p.predicted_ms - p.main.launch_ms));
}

TEST_CASE("GEMV model: tuned N's element loads take a row per thread and a line more per request", "[model][gemv]") {
    const auto h200 = device_preset("h200");
    const GemvModelLaunch vec = tuned_launch(32, 8, 0, 8, 1);
    GemvModelLaunch el = vec;
    el.rows_per_load = 1;
    const auto pv = predict_gemv(wb::Stage::kTuned, false, 5000, 5000, 4, vec, h200);
    const auto pe = predict_gemv(wb::Stage::kTuned, false, 5000, 5000, 4, el, h200);
    CHECK(pv.grid.total_blocks == (5000 + 127) / 128);  // 32 threads x 4 rows per tile
    CHECK(pe.grid.total_blocks == (5000 + 31) / 32);    // 32 threads x 1 row
    CHECK(pe.main.lsu_ms > pv.main.lsu_ms);
    CHECK(pe.predicted_ms >= pv.predicted_ms);
}
