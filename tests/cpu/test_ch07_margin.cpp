// CPU tests of chapter 7's measuring rules: how a host call is timed (kernels/cpu/host_timing.hpp:
// the median's statistics, the stopping rule, the repeat of a timing that did not settle) and the
// hybrid's margin (the median of the classes' measured misses; the choice made with it).
#include "catch.hpp"

#include "device_profile.hpp"
#include "host_timing.hpp"
#include "split_cases.hpp"
#include "split_paths.hpp"

#include "model/cpu.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <thread>
#include <vector>

TEST_CASE("host timing: median, quartiles and the median's relative error", "[cpu][ch07]") {
    // 1..9 shuffled: median 5, quartiles 3 and 7 (linear between order statistics).
    const auto s = wb::cpu::batch_stats({9, 2, 7, 4, 5, 1, 8, 3, 6});
    CHECK(s.k == 9);
    CHECK(s.median == 5);
    CHECK(s.q1 == 3);
    CHECK(s.q3 == 7);
    CHECK(s.spread() == Approx(0.8));
    CHECK(s.rel_error() == Approx(0.93 * 4 / 3.0 / 5));
    // Even count: the median between the middle two; quartiles interpolated.
    const auto e = wb::cpu::batch_stats({4, 1, 3, 2});
    CHECK(e.median == Approx(2.5));
    CHECK(e.q1 == Approx(1.75));
    CHECK(e.q3 == Approx(3.25));
    // Under three batches the error is not known.
    CHECK(std::isinf(wb::cpu::batch_stats({1, 1}).rel_error()));
    CHECK(wb::cpu::batch_stats({}).k == 0);
    // Equal batches: no spread, no error.
    CHECK(wb::cpu::batch_stats({2, 2, 2, 2, 2}).rel_error() == 0);
}

TEST_CASE("host timing: batches between the minimum and the cap, and an unsettled timing repeated once", "[cpu][ch07]") {
    // A call that sleeps 1 ms and 5 ms in turn: batches of one call (batch_s far below a call),
    // so the batches alternate and the median's error stays far above any target: the timing runs
    // to its cap of batches, then once more. No time is compared: only the counts.
    int calls = 0;
    auto f = [&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(calls++ % 2 ? 5 : 1));
    };
    wb::cpu::TimingPlan plan;
    plan.min_batches = 5;
    plan.max_batches = 7;
    plan.batch_s = 1e-6;
    plan.max_s = 10;
    plan.target = 1e-9;
    plan.repeat_above = 0.03;
    const wb::cpu::CallTiming t = wb::cpu::time_call(f, plan);
    CHECK(t.timings == 2);
    CHECK(t.stats.k == 7);
    CHECK(calls == 2 * (1 + 7));  // each timing: its warm-up call (a slow call's warm-up batch), 7 batches of one
    CHECK(t.stats.rel_error() > 0.03);
    // Without a repeat: one timing.
    calls = 0;
    plan.repeat_above = 0;
    const wb::cpu::CallTiming once = wb::cpu::time_call(f, plan);
    CHECK(once.timings == 1);
    CHECK(calls == 1 + 7);
}

TEST_CASE("host timing: calls timed in turn, a round at a time; slow calls leave the turn at the cap", "[cpu][ch07]") {
    // Three calls of one batch each (batch_s far below a call) and a target no timing reaches: five
    // rounds of 0, 1, 2 in that order; each batch after an untimed call where the call is shorter
    // than warm_below_s.
    std::vector<int> calls(3, 0);
    std::vector<std::function<void()>> f;
    for (int i = 0; i < 3; ++i)
        f.push_back([&calls, i] {
            ++calls[static_cast<std::size_t>(i)];
            std::this_thread::sleep_for(std::chrono::microseconds(200 * (i + 1)));
        });
    wb::cpu::TimingPlan plan;
    plan.min_batches = 3;
    plan.max_batches = 5;
    plan.batch_s = 1e-6;
    plan.max_s = 10;
    plan.target = -1;
    std::vector<int> order;
    const auto t = wb::cpu::time_interleaved(f, plan, 1.0, &order);
    REQUIRE(t.size() == 3);
    CHECK(order == std::vector<int>{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2});
    for (int i = 0; i < 3; ++i) {
        const auto& s = t[static_cast<std::size_t>(i)].stats;
        CHECK(s.k == 5);
        CHECK(calls[static_cast<std::size_t>(i)] == 1 + 5 * 2);  // the sizing call; each batch an untimed call and one timed
        CHECK(s.min <= s.median);
        CHECK(s.median <= s.max);
        CHECK(s.min >= 0.2 * (i + 1));  // ms: a sleep lasts at least its time
    }
    // warm_below_s 0: no untimed call before a batch.
    std::fill(calls.begin(), calls.end(), 0);
    wb::cpu::time_interleaved(f, plan, 0.0);
    CHECK(calls == std::vector<int>{6, 6, 6});
    // A call whose batches have taken max_s after three of them leaves the turn; the others go on.
    order.clear();
    // The slowest call (0.6 ms) passes max_s at its third batch; the group's cap (max_s x 20 calls)
    // stays far from the rounds' few milliseconds.
    plan.max_s = 0.001;
    std::vector<std::function<void()>> g(20, [] {});
    g[0] = f[2];
    const auto u = wb::cpu::time_interleaved(g, plan, 0.0, &order);
    CHECK(u[0].stats.k == 3);
    CHECK(u[1].stats.k == 5);
    CHECK(std::count(order.begin(), order.end(), 0) == 3);
    // Nothing to time: nothing timed.
    CHECK(wb::cpu::time_interleaved({}, plan).empty());
    // An A/B's arms trade places in every other round, and the rounds stop after an even number
    // of them (here 4 of at most 5); each call still gets its own timings.
    plan.max_s = 10;
    order.clear();
    std::fill(calls.begin(), calls.end(), 0);
    const auto v = wb::cpu::time_interleaved(f, plan, 0.0, &order, {{1, 2}});
    CHECK(order == std::vector<int>{0, 1, 2, 0, 2, 1, 0, 1, 2, 0, 2, 1});
    CHECK(calls == std::vector<int>{5, 5, 5});  // the sizing call and four batches of one call each
    CHECK(v[1].stats.min >= 0.4);  // each call's timings are its own (a sleep lasts at least its time), whatever its place
    CHECK(v[2].stats.min >= 0.6);
    CHECK(v[1].stats.k == 4);
    // A paired call's median batch in each place (its own place in the even rounds, its
    // partner's in the odd ones); an unpaired call has none.
    CHECK(v[2].even_ms >= 0.6);
    CHECK(v[2].odd_ms >= 0.6);
    CHECK(std::isnan(v[0].even_ms));
    CHECK(std::isnan(v[0].odd_ms));
    // A paired call past the cap leaves the turn after an even number of batches (4, not 3);
    // an unpaired one after 3.
    plan.max_s = 0.001;
    order.clear();
    const auto w = wb::cpu::time_interleaved(g, plan, 0.0, &order, {{0, 1}});
    CHECK(w[0].stats.k == 4);
    CHECK(w[1].stats.k == 4);
    plan.max_s = 10;
    CHECK_THROWS_WITH(wb::cpu::time_interleaved(f, plan, 0.0, nullptr, {{2, 1}}),
                      "time_interleaved: alternate pair (2, 1) must have i < j < calls (3), each call in one pair");
    CHECK_THROWS_WITH(wb::cpu::time_interleaved(f, plan, 0.0, nullptr, {{0, 1}, {1, 2}}),
                      Catch::Matchers::Contains("each call in one pair"));
    CHECK_THROWS_WITH(wb::cpu::time_interleaved(f, plan, 0.0, nullptr, {{0, 3}}), Catch::Matchers::Contains("(0, 3)"));
}

TEST_CASE("chapter 7: a class's miss and the run's hybrid margin", "[cpu][ch07][split]") {
    // The miss: |measured / model - 1|, at least twice the timing's error.
    CHECK(wb::ch07::hybrid_miss(1.2, 1.0, 0.01) == Approx(0.2));
    CHECK(wb::ch07::hybrid_miss(0.7, 1.0, 0.01) == Approx(0.3));
    CHECK(wb::ch07::hybrid_miss(1.01, 1.0, 0.04) == Approx(0.08));
    CHECK(wb::ch07::hybrid_miss(1.1, 1.0, NAN) == Approx(0.1));
    CHECK(wb::ch07::hybrid_miss(0, 1.0, 0.01) == -1);
    CHECK(wb::ch07::hybrid_miss(1.0, 0, 0.01) == -1);
    // The margin: the median of the measured misses (a class not measured does not count), so one
    // disturbed class does not set it; at most 0.999.
    wb::ch07::Machines m;
    CHECK(wb::ch07::hybrid_margin_of(m) == -1);
    CHECK(wb::ch07::min_gain_of(m) == wb::split::kMinHybridGain);
    auto miss = [&](const char* key, double v) { m.paths[key].miss = v; };
    miss("gemv float", 0.10);
    miss("gemv double", 4.7);  // one timing disturbed by something else
    miss("gemm float", 0.30);
    miss("symv float", -1);    // not measured
    CHECK(wb::ch07::hybrid_margin_of(m) == Approx(0.30));
    miss("gemm double", 0.02);
    CHECK(wb::ch07::hybrid_margin_of(m) == Approx(0.20));  // (0.10 + 0.30) / 2
    wb::ch07::Machines bad;
    bad.paths["gemv float"].miss = 3;
    CHECK(wb::ch07::hybrid_margin_of(bad) == Approx(0.999));
    m.hybrid_margin = 0.2;
    CHECK(wb::ch07::min_gain_of(m) == Approx(0.2));
}

namespace {
/// The H200 preset with its pinned links beside a 16-thread host of 100 GB/s and a 64 MiB LLC.
wb::ch07::Machines h200_beside_a_test_host() {
    wb::ch07::Machines m;
    m.gpu = wb::device_preset("h200");
    m.links = wb::ch07::h200_pinned_links();
    m.cpu = wb::model::cpu_machine("t", 16, 100, 1000, 500);
    m.cpu.llc_bytes = 64 * 1024.0 * 1024.0;
    return m;
}
}  // namespace

TEST_CASE("chapter 7: the hybrid is chosen only where its predicted gain reaches the run's margin", "[cpu][ch07][split]") {
    // GEMV n = 16384 float on a host of 100 GB/s: the hybrid predicts a gain g over the better
    // single side. A margin just under g chooses it, one just over it keeps White's single side.
    wb::ch07::Machines m = h200_beside_a_test_host();
    const wb::ch07::Case c{"gemv", 16384, 4};
    const auto free_p = wb::ch07::predict_case(c, m).split;
    const double g = free_p.gain();
    REQUIRE(free_p.gpu_share > 0);
    REQUIRE(free_p.gpu_share < 1);
    CHECK(g == Approx(1 - free_p.hybrid_ms / std::min(free_p.cpu_ms, free_p.gpu_ms)));
    REQUIRE(g > 0.05);
    CHECK(free_p.margin == wb::split::kMinHybridGain);
    m.hybrid_margin = 0.9 * g;
    const auto below = wb::ch07::predict_case(c, m).split;
    CHECK(below.margin == Approx(0.9 * g));
    CHECK(below.choice == wb::split::Where::Hybrid);
    m.hybrid_margin = 1.1 * g;
    const auto above = wb::ch07::predict_case(c, m).split;
    CHECK(above.choice == above.white);
    CHECK(above.choice != wb::split::Where::Hybrid);
    // The margin changes the choice only: the three times are the same.
    CHECK(above.hybrid_ms == Approx(below.hybrid_ms));
    CHECK(above.cpu_ms == Approx(below.cpu_ms));
    // CG's split uses the same margin.
    CHECK(wb::ch07::predict_case({"cg", 1024, 4}, m).split.margin == Approx(1.1 * g));
    // A share of 0 (the tiny call stays on the CPU): no predicted gain.
    CHECK(wb::ch07::predict_case({"gemv", 64, 4}, m).split.gain() == 0);
}

TEST_CASE("chapter 7: the rows the balanced call runs take the balanced rows' margin", "[cpu][ch07][split]") {
    // GEMV n = 16384 float runs the balanced call (its CPU share in several pieces); SYMV, without
    // --balanced-symv, has none. With the run's margin above each row's predicted
    // gain, the balanced rows' margin of 0 chooses the GEMV hybrid and leaves SYMV at White's side;
    // without the balanced call (--fixed-share) or with the margin unset (runs before session 44)
    // every row keeps the run's margin.
    wb::ch07::Machines m = h200_beside_a_test_host();
    REQUIRE_FALSE(m.symv_balanced);
    const wb::ch07::Case gemv{"gemv", 16384, 4}, symv{"symv", 16384, 4};
    const auto free_gemv = wb::ch07::predict_case(gemv, m);
    const auto free_symv = wb::ch07::predict_case(symv, m);
    REQUIRE(free_gemv.split.splits());
    REQUIRE(free_symv.split.splits());
    REQUIRE(wb::ch07::balanced_pieces(gemv, free_gemv.gpu_part, free_gemv.split.hybrid_ms, m) > 1);
    REQUIRE(wb::ch07::balanced_pieces(symv, free_symv.gpu_part, free_symv.split.hybrid_ms, m) == 0);
    m.hybrid_margin = std::min(0.99, 1.1 * std::max(free_gemv.split.gain(), free_symv.split.gain()));
    REQUIRE(wb::ch07::predict_case(gemv, m).split.choice != wb::split::Where::Hybrid);
    m.balanced_margin = 0;
    const auto g = wb::ch07::predict_case(gemv, m).split;
    CHECK(g.choice == wb::split::Where::Hybrid);
    CHECK(g.margin == 0);
    CHECK(g.hybrid_ms == Approx(free_gemv.split.hybrid_ms));
    const auto s = wb::ch07::predict_case(symv, m).split;
    CHECK(s.choice != wb::split::Where::Hybrid);
    CHECK(s.margin == Approx(m.hybrid_margin));
    // With --balanced-symv, SYMV balances as well, and takes the balanced rows' margin.
    m.symv_balanced = true;
    REQUIRE(wb::ch07::balanced_pieces(symv, free_symv.gpu_part, free_symv.split.hybrid_ms, m) > 1);
    CHECK(wb::ch07::predict_case(symv, m).split.choice == wb::split::Where::Hybrid);
    CHECK(wb::ch07::predict_case(symv, m).split.margin == 0);
    m.balanced = false;
    CHECK(wb::ch07::predict_case(gemv, m).split.choice != wb::split::Where::Hybrid);
    CHECK(wb::ch07::predict_case(symv, m).split.choice != wb::split::Where::Hybrid);
}

TEST_CASE("chapter 7: the hybrid is chosen only where it also saves its GPU side's fixed cost", "[cpu][ch07][split]") {
    // GEMV n = 4096 float, the class's path measured: the hybrid predicts a gain above the margin.
    // Its saving in ms against the class's t0 in chunks decides, where the run has the rule
    // (hybrid_floor); a run from before it (replayed) chooses by the margin alone.
    wb::ch07::Machines m = h200_beside_a_test_host();
    m.hybrid_margin = 0.01;
    m.derived_chunks = false;  // at the calibration's depth (a derived depth's floor: test_ch07_split.cpp)
    wb::ch07::GpuPath& path = m.paths["gemv float"];
    path.tiny_n = 8;
    path.t0_ms = path.t0_chunked_ms = 0.001;
    const wb::ch07::Case c{"gemv", 4096, 4};
    const auto p = wb::ch07::predict_case(c, m).split;
    REQUIRE(p.gain() > 0.01);
    CHECK(p.choice == wb::split::Where::Hybrid);
    CHECK(p.min_saving_ms == Approx(0.001));
    const double saving = std::min(p.cpu_ms, p.gpu_ms) - p.hybrid_ms;
    REQUIRE(saving > 0);
    path.t0_chunked_ms = 0.95 * saving;  // the side's fixed cost rises: the hybrid's time too
    const auto q = wb::ch07::predict_case(c, m).split;
    const double q_saving = std::min(q.cpu_ms, q.gpu_ms) - q.hybrid_ms;
    CHECK(q.min_saving_ms == Approx(0.95 * saving));
    CHECK(q.choice == (q_saving >= q.min_saving_ms ? wb::split::Where::Hybrid : q.white));
    CHECK(q.choice != wb::split::Where::Hybrid);  // a dearer side saves less than its dearer floor
    m.hybrid_floor = false;
    const auto r = wb::ch07::predict_case(c, m).split;
    CHECK(r.min_saving_ms == 0);
    CHECK(r.hybrid_ms == Approx(q.hybrid_ms));
    CHECK(r.choice == (r.gain() >= 0.01 ? wb::split::Where::Hybrid : r.white));
}

TEST_CASE("chapter 7: SYMV's GPU side priced as what it copies, f (1 - f/2 + f/2K) of n^2", "[cpu][ch07][split]") {
    // SYMV n = 16384 double with its path measured (t0 in chunks; the pipeline ratio on the
    // chunked all-GPU call, f = 1 in K0 = 4 chunks, which copies 1/2 + 1/8 of n^2) and a CPU so
    // fast that the GPU side alone sets the hybrid's time at every share. The side at f copies
    // g n - g^2/2 elements and each chunk's diagonal block, f (1 - f/2 + f/8) of n^2: its
    // proportional part is the anchor's scaled by that over 1/2 + 1/8. A run from before
    // (symv_gpu_columns false) priced it linear in f.
    wb::ch07::Machines m = h200_beside_a_test_host();
    m.cpu = wb::model::cpu_machine("fast", 16, 1e9, 1e9, 1e9);
    REQUIRE(m.chunks == 4);
    wb::ch07::GpuPath& path = m.paths["symv double"];
    path.tiny_n = 8;
    path.t0_ms = path.t0_chunked_ms = 0.08;
    path.pipeline = 0.6;
    const wb::ch07::Case c{"symv", 16384, 8};
    const auto parts = wb::ch07::gpu_side_parts(c, m), tiny = wb::ch07::gpu_side_parts({"symv", 8, 8}, m);
    const double g0 = 0.08 + std::max(0.0, parts.whole_ms - tiny.whole_ms), g1 = 0.6 * parts.serial_ms;
    REQUIRE(g1 > 10 * g0);
    for (double f : {0.1, 0.3, 0.7, 0.995}) {
        INFO("f " << f);
        CHECK(wb::ch07::hybrid_model_ms(c, m, f) == Approx(g0 + g1 * f * (1 - f / 2 + f / 8) / (0.5 + 0.125)));
    }
    // At f = 1 the side is the anchor itself; at the small shares SYMV's hybrid gets it is well
    // above the linear price (f = 0.3: x1.42).
    CHECK(wb::ch07::hybrid_model_ms(c, m, 1.0) == Approx(g0 + g1));
    const double columns = wb::ch07::hybrid_model_ms(c, m, 0.3);
    m.symv_gpu_columns = false;
    CHECK(wb::ch07::hybrid_model_ms(c, m, 0.3) == Approx(g0 + g1 * 0.3));
    CHECK(columns > 1.3 * wb::ch07::hybrid_model_ms(c, m, 0.3));
    // (Depths other than K0 and the shared host-memory bound: the replays of the runs that priced
    // SYMV's side so reproduce every row's share and depth, tests/cpu/test_ch07_replay.cpp.)
    m.symv_gpu_columns = true;
    // Other ops keep f.
    m.paths["gemv double"] = path;
    const wb::ch07::Case v{"gemv", 16384, 8};
    const auto vp = wb::ch07::gpu_side_parts(v, m), vt = wb::ch07::gpu_side_parts({"gemv", 8, 8}, m);
    CHECK(wb::ch07::hybrid_model_ms(v, m, 0.3) == Approx(0.08 + std::max(0.0, vp.whole_ms - vt.whole_ms) + 0.6 * vp.serial_ms * 0.3));
}

TEST_CASE("chapter 7: without a measured path SYMV's GPU side also copies f (1 - f/2 + f/2K) of n^2", "[cpu][ch07][split]") {
    // No path (no GPU in the run): the side is the copies' and kernel's model, fixed + per x
    // (what the share copies), SYMV's in K = 4 chunks f (1 - f/2 + f/8) of what f = 1 as a band
    // of rows would; a run from before, fixed + per f. Two shares solve for fixed and per.
    wb::ch07::Machines m = h200_beside_a_test_host();
    m.cpu = wb::model::cpu_machine("fast", 16, 1e9, 1e9, 1e9);
    const wb::ch07::Case c{"symv", 16384, 8};
    auto copied = [](double f) { return f * (1 - f / 2 + f / 8); };
    const double a = 0.3, b = 0.9;
    const double ta = wb::ch07::hybrid_model_ms(c, m, a), tb = wb::ch07::hybrid_model_ms(c, m, b);
    const double per = (tb - ta) / (copied(b) - copied(a)), fixed = ta - per * copied(a);
    CHECK(per > 0);
    CHECK(fixed >= 0);
    CHECK(wb::ch07::hybrid_model_ms(c, m, 0.6) == Approx(fixed + per * copied(0.6)));
    m.symv_gpu_columns = false;
    CHECK(wb::ch07::hybrid_model_ms(c, m, 0.6) == Approx(fixed + per * 0.6));
}

namespace {
/// A GEMM float path as a run measures it: tiny calls at n = 8 (0.025 ms in one chunk, 0.055 in
/// the hybrid's), the mid size 2048; the residual and the issue are each test's own.
wb::ch07::GpuPath gemm_path_2048() {
    wb::ch07::GpuPath p;
    p.tiny_n = 8;
    p.t0_ms = 0.025;
    p.t0_chunked_ms = 0.055;
    p.mid_n = 2048;
    return p;
}
}  // namespace

TEST_CASE("chapter 7: a path's residual between its small-size and mid-size anchors", "[cpu][ch07][split]") {
    // Measured at 1024 (0.2 ms) and at 2048 (0.05 ms): each at its own size, held below and above,
    // linear in log n between (1448, about sqrt(1024 x 2048): halfway). Without the small-size
    // anchor (a run from before it), the mid size's at every n.
    wb::ch07::GpuPath p = gemm_path_2048();
    p.residual_ms = 0.05;
    CHECK(wb::ch07::residual_at(p, 512) == 0.05);
    p.small_n = 1024;
    p.small_residual_ms = 0.2;
    CHECK(wb::ch07::residual_at(p, 512) == Approx(0.2));
    CHECK(wb::ch07::residual_at(p, 1024) == Approx(0.2));
    CHECK(wb::ch07::residual_at(p, 1448) == Approx(0.125).margin(0.001));
    CHECK(wb::ch07::residual_at(p, 2048) == Approx(0.05));
    CHECK(wb::ch07::residual_at(p, 8192) == Approx(0.05));
    // The hybrid's prediction carries it: GEMM float 1024 on the test host, its path measured.
    wb::ch07::Machines m = h200_beside_a_test_host();
    m.paths["gemm float"] = p;
    const wb::ch07::Case c{"gemm", 1024, 4};
    const double with = wb::ch07::predict_case_at(c, m, 4).split.hybrid_ms;
    m.paths["gemm float"].small_n = 0;
    const double without = wb::ch07::predict_case_at(c, m, 4).split.hybrid_ms;
    CHECK(with - without == Approx(0.2 - 0.05));
}

TEST_CASE("chapter 7: the calling thread's issue of the GPU side delays the CPU's share", "[cpu][ch07][split]") {
    // Measured per chunk at the path's two sizes and interpolated as the residual is; a run from
    // before it (0) prices no delay.
    wb::ch07::GpuPath p = gemm_path_2048();
    p.issue_per_chunk_ms = 0.03;
    CHECK(wb::ch07::issue_at(p, 512) == 0.03);
    p.small_n = 1024;
    p.small_issue_per_chunk_ms = 0.01;
    CHECK(wb::ch07::issue_at(p, 1024) == Approx(0.01));
    CHECK(wb::ch07::issue_at(p, 1448) == Approx(0.02).margin(0.0002));
    CHECK(wb::ch07::issue_at(p, 4096) == Approx(0.03));
    // GEMM float 1024 on the test host at a GPU share of 2%: the CPU's share is the longer side, and
    // where the issue is priced it begins once the K chunks are issued, K x 0.01 ms later; the CPU
    // alone (f = 0) never waits. Not priced (the default), the issue changes nothing.
    wb::ch07::Machines m = h200_beside_a_test_host();
    m.paths["gemm float"] = p;
    CHECK_FALSE(m.price_issue);
    const double unpriced = wb::ch07::hybrid_model_ms(wb::ch07::Case{"gemm", 1024, 4}, m, 0.02);
    m.paths["gemm float"].small_issue_per_chunk_ms = 0;
    CHECK(wb::ch07::hybrid_model_ms(wb::ch07::Case{"gemm", 1024, 4}, m, 0.02) == unpriced);
    m.price_issue = true;
    const wb::ch07::Case c{"gemm", 1024, 4};
    for (int k : {2, 4}) {
        INFO("K0 " << k);
        m.chunks = k;
        m.paths["gemm float"].small_issue_per_chunk_ms = 0.01;
        const double with = wb::ch07::hybrid_model_ms(c, m, 0.02);
        const double cpu_with = wb::ch07::predict_case_at(c, m, k).split.cpu_ms;
        m.paths["gemm float"].small_issue_per_chunk_ms = 0;
        const double without = wb::ch07::hybrid_model_ms(c, m, 0.02);
        CHECK(with - without == Approx(k * 0.01));
        CHECK(wb::ch07::predict_case_at(c, m, k).split.cpu_ms == cpu_with);
    }
}
