// CPU tests of chapter 7's model replayed on H200 runs as they wrote them (tests/data/): the
// calibration a run printed is read back (split_replay.hpp), the model's columns recomputed by the
// chapter's own functions and compared with the ones the run wrote; then the run's measured
// columns judge the model. h200-ch07-02a6a6d.* is an earlier run (the chapter's table until
// 2026-11-30: no drift lines, no "gemm share" class, the convolution's CPU side on every thread);
// h200-ch07-5615892-{a,b}.* and h200-ch07-e618d9e-{a,b}.* are four runs of one chapter code on one
// machine (scripts/ch07_repeatability.py reads them), h200x2-ch07-f724708.* a run of it on a
// two-GPU machine of 32 cores (GPU 0); h200-ch07-b5ff3e8-{a,b,c}.* three runs of the model that
// prices the SYMV hybrid's CPU share at its footprint, h200x2-ch07-e609349-{a,b}.* two runs of the
// same model on the 32-core machine; h200-ch07-8864f0f-{a,b}.* two runs of it with the hybrid
// GEMV's chunks splitting its band's columns; h200-ch07-a617f6d.* a run with the hybrid SYMV's CPU
// share one SYMV, the GPU adding the block beside it (the model says so in its calibration lines);
// h200-ch07-405d758-{a,b}.* and h200x2-ch07-405d758.* runs of the same model with the hybrid
// SYMV's GPU share in whole stored columns, on each machine; h200-ch07-b4b48f1.* a run of it with
// the hybrid's floor (its line says so), h200-ch07-6b2bd11-{a,b}.* and h200-ch07-2939479.* three
// later runs of the same model; h200-ch07-d6c5d0d.* a run with each hybrid's pipeline depth
// derived per call (its line says so), timed beside h200-ch07-2939479.* in one call, and
// h200-ch07-6a162cc.* a later run of it; h200-ch07-24c988e.* a run of the derivation as mended
// after its review (only depths that leave both sides a share are ranked); h200-ch07-bb68909.* a
// run with SYMV's GPU side priced as what it copies, h200-ch07-2601459.* a later run of it;
// h200-ch07-908b4d4.* a run with each class's residual also measured at a third of its mid size,
// h200-ch07-9a7322f.*, h200-ch07-bafb6e4.*, h200-ch07-969e9fd.* and h200-ch07-8f8c0b4.* four later
// runs of it; h200-ch07-482068b.* a run of the same model with the hybrids' GPU share issued on the
// calling thread (page-locked arrays: its empty hybrid call says so); h200-ch07-full.* (a copy of
// docs/results/h200/ch07-full.* before session 42) a run of it with the CPU classes' grids a
// factor 2 apart (more points in its calibration lines); h200-ch07-8cfc21d.* a later run of that model, which prints
// the calling thread's issue per chunk on its path lines, and h200-ch07-8cfc21d-price-issue.* a run
// of the same binary with --price-issue (the issue priced in front of the CPU's share), timed
// beside it in one call (docs/notes/split.md, session 39).
#include "catch.hpp"
#include "ch07_run_files.hpp"
#include "small_calibration.hpp"

#include "split_cpu_again.hpp"
#include "split_paths.hpp"
#include "split_replay.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <utility>
#include <string>
#include <vector>

namespace {

using Run = wb::test::Ch07Run;
Run read_run(const std::string& stem) {
    const std::string path = wb::test::ch07_stem_path(stem);
    REQUIRE(std::ifstream(path + ".txt").good());
    REQUIRE(std::ifstream(path + ".csv").good());
    return wb::test::read_ch07_run(stem);
}
/// A kept run's log, tests/data/STEM.txt.
std::string log_file(const char* stem) { return wb::test::ch07_stem_path(stem) + ".txt"; }
using wb::test::ch07_machines_with_lines;
const Run& h200_run() {
    static const Run run = read_run("h200-ch07-02a6a6d");
    return run;
}

using wb::test::ch07_printed_summary;

/// The replayed columns of `run` agree with the ones it wrote: it printed its rates to 4
/// significant digits (each within 0.05%) and its columns to 4 decimals (ms), so to 0.2% plus half
/// the last decimal: a CPU time is a roofline rate over e(ws), two rounded factors (GEMM double at
/// n = 4096 in h200-ch07-6b2bd11 replays 0.10% off).
void check_columns(const Run& run) {
    const auto res = wb::ch07::replay(run.rows, run.m);
    REQUIRE(res.size() == run.rows.size());
    auto close = [](double a, double b) { return std::abs(a - b) <= 2e-3 * std::abs(b) + 5e-5; };
    for (std::size_t i = 0; i < res.size(); ++i) {
        const auto& r = res[i];
        const auto& c = run.rows[i];
        INFO(c.c.op << (c.c.elem == 4 ? " float" : " double") << " FS " << c.c.fs << " n " << c.c.n);
        CHECK(close(r.p.cpu_model_ms, c.cpu_model_ms));
        CHECK(close(r.p.split.gpu_ms, c.gpu_model_ms));
        CHECK(close(r.p.split.hybrid_ms, c.hybrid_model_ms));
        CHECK(std::string(wb::split::where_name(r.p.split.choice)) == c.choice);
        // A run that wrote its depths: the replay's, or one whose prediction ties with it to the
        // printed precision (two depths a fraction of a percent apart can swap when replayed).
        if (c.chunks > 0 && r.p.chunks != c.chunks)
            CHECK(close(wb::ch07::predict_case_at(c.c, run.m, c.chunks).split.hybrid_ms, r.p.split.hybrid_ms));
    }
}

/// The rows whose "CPU model within 15%" verdict the CSV's rounding can flip: the measured time
/// known to half its last decimal (5e-5 ms), the replayed model to check_columns' 0.2% plus that.
/// A tiny row (a few microseconds) moves by several percent within it.
int cpu_verdicts_rounding_can_flip(const Run& run) {
    const auto res = wb::ch07::replay(run.rows, run.m);
    int k = 0;
    for (std::size_t i = 0; i < res.size(); ++i) {
        const double p = res[i].p.split.cpu_ms, m = run.rows[i].m.cpu_ms;
        if (!(p > 0) || !(m > 0)) continue;
        const double lo = (p * (1 - 2e-3) - 5e-5) / (m + 5e-5), hi = (p * (1 + 2e-3) + 5e-5) / std::max(m - 5e-5, 1e-9);
        const bool all_in = lo >= 0.85 && hi <= 1.15, all_out = hi < 0.85 || lo > 1.15;
        k += !all_in && !all_out;
    }
    return k;
}

/// Every summary line the replay recomputes says what the run printed: the same lines in the same
/// order (the floor's line where the run has the floor), each count within one of the printed one
/// (the CSV rounds the measured times to 4 decimals), the CPU model's within the rows whose verdict
/// that rounding can flip (cpu_flips, at least one). The CPU timings' error is not in the CSV: that
/// line is not recomputed.
void check_counts(const std::vector<std::string>& lines, const std::vector<std::string>& printed, int cpu_flips) {
    std::vector<std::string> compared;
    for (const std::string& p : printed)
        if (p.rfind("CPU timings whose median", 0) != 0) compared.push_back(p);
    std::vector<std::string> ours;
    for (const std::string& l : lines)
        if (l.rfind("CPU timings whose median", 0) != 0) ours.push_back(l);
    REQUIRE(ours.size() == compared.size());
    for (std::size_t i = 0; i < ours.size(); ++i) {
        const wb::test::Ch07Count a = wb::test::ch07_count(ours[i]), b = wb::test::ch07_count(compared[i]);
        INFO(ours[i] << "  /  printed: " << compared[i]);
        CHECK(a.text == b.text);
        const bool cpu_line = a.text.rfind("CPU model within", 0) == 0;
        CHECK(std::abs(a.k - b.k) <= (cpu_line ? std::max(1, cpu_flips) : 1));
        CHECK(std::abs(a.n - b.n) <= 1);
    }
}

/// The run as it ran: its columns, choices and depths (check_columns), its choice line as printed
/// and its other counts within check_counts' bounds.
void check_reproduced(const Run& run, const std::string& stem) {
    check_columns(run);
    const auto printed = ch07_printed_summary(stem);
    const auto lines = wb::ch07::summary_lines(wb::ch07::replay(run.rows, run.m));
    REQUIRE(!printed.empty());
    REQUIRE(!lines.empty());
    CHECK(lines[0] == printed[0]);
    check_counts(lines, printed, cpu_verdicts_rounding_can_flip(run));
}

}  // namespace

TEST_CASE("chapter 7 replay: the run's calibration read back", "[cpu][ch07][replay]") {
    const Run& run = h200_run();
    const wb::ch07::Machines& m = run.m;
    CHECK(m.cpu.threads == 16);
    CHECK(m.cpu.bandwidth.size() == 11);
    CHECK(m.cpu.bandwidth.back().value == Approx(98.7));
    CHECK(m.cpu.peers.count("gemv float 1t") == 1);
    CHECK(m.cpu.peers.at("gemv float").efficiency.size() == 9);
    CHECK(m.cpu.peers.at("conv2d FS9 double").efficiency.size() == 9);
    // the single-thread regimes' grids (SYMV: n = 19, 38, 76, 152, 199) and CG's iteration class
    CHECK(m.cpu.peers.at("symv float 1t").efficiency.size() == 5);
    CHECK(m.cpu.peers.at("cg iteration double").efficiency.size() == 8);
    CHECK(m.cpu.peers.at("cg iteration double 1t").fixed_ms == Approx(0.2597e-3));
    // 11 classes per precision (gemv, symv, gemm, cg iteration each in two regimes, cg vectors,
    // conv2d FS3 and FS9): the line of the iteration's sequence over its calls is not one
    CHECK(m.cpu.peers.size() == 22);
    CHECK(m.gpu_rates.rates.size() == 12);
    CHECK(m.gpu.fp32_peak_gflops() == Approx(66908.2).epsilon(1e-6));
    CHECK(m.gpu.fp64_peak_gflops() == Approx(33454.1).epsilon(1e-6));
    CHECK(m.links.h2d.segments().size() == 2);
    CHECK(m.paths.size() == 10);
    CHECK(m.paths.at("conv2d FS3 float").residual_ms == Approx(0.1826));
    CHECK(m.host_shared_gbs == Approx(157.1));
    CHECK(m.hybrid_margin == Approx(0.2585).margin(0.0005));  // the run's 'hybrid margin: 25.9%'
    CHECK(run.rows.size() == 100);
}

TEST_CASE("chapter 7 replay: the model's columns and choices of the H200 run reproduced", "[cpu][ch07][replay]") {
    check_columns(h200_run());
}

/// The chapter models of the kept runs, in the order their features came: each generation prints
/// the lines of all the ones before it and one more (split_replay.cpp reads each into Machines).
enum class Model {
    first,           ///< the GEMM share's class and the convolution's thread (5615892, e618d9e, f724708)
    footprint,       ///< a hybrid CPU share of several calls priced at its footprint
    symv_one_call,   ///< the hybrid SYMV's CPU share one SYMV (the GPU adds the block beside it)
    floor,           ///< the hybrid's floor (chosen only where it saves its fixed cost)
    depth_first,     ///< a derived pipeline depth, its first version (every depth ranked)
    depth,           ///< the derivation as mended (only depths that leave both sides a share)
    symv_copied,     ///< SYMV's GPU side priced as what it copies
    two_residuals,   ///< each class's residual at two sizes
};
struct KeptRun {
    const char* stem;
    Model model;
};

TEST_CASE("chapter 7 replay: runs with the GEMM share's class and the convolution's thread", "[cpu][ch07][replay]") {
    // Sixty-seven runs of eight chapter models, sixty-three on a 16-core host and four on a
    // 32-core host (h200x2): each calibration read back with the features its lines say (the
    // classes an earlier run lacks, too), its columns, choices and depths reproduced, and the
    // choice line it printed recomputed from its CSV (the other counts may move by one, the CPU
    // model's by the rows whose verdict the CSV's 4 decimals can flip). h200-ch07-482068b,
    // h200-ch07-full and the later runs issued the hybrids' GPU share on the calling thread (their
    // empty hybrid call says so; the model is the same), h200-ch07-full and the later runs with the
    // CPU grids a factor 2 apart. h200-ch07-98e7470-a and -b: two runs of one binary back to back
    // (margins 15.1% and 26.3%); h200-ch07-9cac1fe the same model a session later (12.4%);
    // h200-ch07-5a6da3f and its -c and -d the same model with the GEMM and convolution hybrids
    // balanced while they run (the model does not change; the rows' hybrid timings do), and
    // h200-ch07-cd0345f-e and -f with the GEMV hybrid balanced too; h200-ch07-fc9a856 the same model
    // a session later, the balanced call's chunks kept in a ChunkLedger, and h200-ch07-98ccc44 with
    // each size's CPU peer and hybrid trading places every other round (h200-ch07-4a96a5c: in even
    // shares of the rounds; h200-ch07-efc20b7 also printing each place's median; h200-ch07-289f311 also
    // timing the vendor's GEMM after its table, with a margin of 35.6% from a disturbed start, and
    // h200-ch07-289f311-b the same binary minutes later, 20.0%; h200-ch07-7112b5d and its -b and -c with
    // the balanced rows' margin, 0, and h200-ch07-07d78b2 and h200-ch07-9f6746d (the chapter's table
    // in session 44) the same chapter code; h200-ch07-1222890, the chapter's table from session 45
    // on, and its -b, -c and -d, the same binary later in the session, with each class's anchors
    // timed again before its rows; h200-ch07-dd73b0d-a and -b with each group's CPU classes timed
    // again before its rows too: session 46's A/B; h200-ch07-b82e188-a and -b with the GEMM hybrid's
    // copy of A at the rate of data the host just read, -b the chapter's table from session 46 on, and
    // h200-ch07-05d2109 the same model after the session's review, a repeat; h200-ch07-e23a1c7-a1 to
    // -b2 session 47's A/B, the b runs with each class's hybrid timed at every depth;
    // h200-ch07-b0e6714-depth-ab the same default model, each hybrid row also at half its depth,
    // h200-ch07-5c7eee6-depth-ab-2 at twice it).
    using M = Model;
    const KeptRun runs[] = {
        {"h200-ch07-b82e188-a", M::two_residuals}, {"h200-ch07-b82e188-b", M::two_residuals},
        {"h200-ch07-05d2109", M::two_residuals},
        {"h200-ch07-e23a1c7-a1", M::two_residuals}, {"h200-ch07-e23a1c7-a2", M::two_residuals},
        {"h200-ch07-e23a1c7-b1", M::two_residuals}, {"h200-ch07-e23a1c7-b2", M::two_residuals},
        {"h200-ch07-b0e6714-depth-ab", M::two_residuals}, {"h200-ch07-5c7eee6-depth-ab-2", M::two_residuals},
        {"h200-ch07-dd73b0d-a", M::two_residuals}, {"h200-ch07-dd73b0d-b", M::two_residuals},
        {"h200-ch07-1222890", M::two_residuals},   {"h200-ch07-1222890-b", M::two_residuals},
        {"h200-ch07-1222890-c", M::two_residuals}, {"h200-ch07-1222890-d", M::two_residuals},
        {"h200-ch07-7112b5d", M::two_residuals},   {"h200-ch07-7112b5d-b", M::two_residuals},
        {"h200-ch07-7112b5d-c", M::two_residuals},   {"h200-ch07-07d78b2", M::two_residuals},
        {"h200-ch07-9f6746d", M::two_residuals},
        {"h200-ch07-289f311", M::two_residuals},   {"h200-ch07-289f311-b", M::two_residuals},
        {"h200-ch07-efc20b7", M::two_residuals},   {"h200-ch07-4a96a5c", M::two_residuals},
        {"h200-ch07-98ccc44", M::two_residuals},   {"h200-ch07-fc9a856", M::two_residuals},
        {"h200-ch07-cd0345f-e", M::two_residuals}, {"h200-ch07-cd0345f-f", M::two_residuals},
        {"h200-ch07-5a6da3f", M::two_residuals},   {"h200-ch07-5a6da3f-c", M::two_residuals},
        {"h200-ch07-5a6da3f-d", M::two_residuals},
        {"h200-ch07-9cac1fe", M::two_residuals},
        {"h200-ch07-98e7470-a", M::two_residuals}, {"h200-ch07-98e7470-b", M::two_residuals},
        {"h200-ch07-8cfc21d", M::two_residuals},   {"h200-ch07-full", M::two_residuals},
        {"h200-ch07-482068b", M::two_residuals},
        {"h200-ch07-8f8c0b4", M::two_residuals},   {"h200-ch07-969e9fd", M::two_residuals},
        {"h200-ch07-bafb6e4", M::two_residuals},   {"h200-ch07-9a7322f", M::two_residuals},
        {"h200-ch07-908b4d4", M::two_residuals},   {"h200-ch07-2601459", M::symv_copied},
        {"h200-ch07-bb68909", M::symv_copied},     {"h200-ch07-24c988e", M::depth},
        {"h200-ch07-6a162cc", M::depth_first},     {"h200-ch07-d6c5d0d", M::depth_first},
        {"h200-ch07-2939479", M::floor},           {"h200-ch07-6b2bd11-a", M::floor},
        {"h200-ch07-6b2bd11-b", M::floor},         {"h200-ch07-b4b48f1", M::floor},
        {"h200-ch07-405d758-a", M::symv_one_call}, {"h200-ch07-405d758-b", M::symv_one_call},
        {"h200x2-ch07-405d758", M::symv_one_call}, {"h200-ch07-a617f6d", M::symv_one_call},
        {"h200-ch07-8864f0f-a", M::footprint},     {"h200-ch07-8864f0f-b", M::footprint},
        {"h200-ch07-b5ff3e8-a", M::footprint},     {"h200-ch07-b5ff3e8-b", M::footprint},
        {"h200-ch07-b5ff3e8-c", M::footprint},     {"h200x2-ch07-e609349-a", M::footprint},
        {"h200x2-ch07-e609349-b", M::footprint},   {"h200-ch07-5615892-a", M::first},
        {"h200-ch07-5615892-b", M::first},         {"h200-ch07-e618d9e-a", M::first},
        {"h200-ch07-e618d9e-b", M::first},         {"h200x2-ch07-f724708", M::first},
    };
    CHECK(std::size(runs) == 67);
    for (const KeptRun& kept : runs) {
        const char* stem = kept.stem;
        INFO(stem);
        const Run run = read_run(stem);
        const auto since = [&kept](Model m) { return kept.model >= m; };
        CHECK(run.m.share_footprint == since(M::footprint));
        CHECK(run.m.symv_share_one_call == since(M::symv_one_call));
        CHECK(run.m.hybrid_floor == since(M::floor));
        CHECK(run.m.derived_chunks == since(M::depth_first));
        CHECK(run.m.depth_any_share == (kept.model == M::depth_first));  // the derivation's first version
        CHECK(run.m.symv_gpu_columns == since(M::symv_copied));
        CHECK_FALSE(run.m.price_issue);
        // the balanced rows' margin from 7112b5d on; every earlier kept run at the run's margin everywhere
        const std::string name = stem;
        const bool balanced_margin =
            name.rfind("h200-ch07-7112b5d", 0) == 0 || name == "h200-ch07-07d78b2" || name == "h200-ch07-9f6746d" ||
            name.rfind("h200-ch07-1222890", 0) == 0 || name.rfind("h200-ch07-dd73b0d", 0) == 0 ||
            name.rfind("h200-ch07-b82e188", 0) == 0 || name == "h200-ch07-05d2109" || name.rfind("h200-ch07-e23a1c7", 0) == 0 ||
            name.rfind("h200-ch07-b0e6714-depth-ab", 0) == 0 || name == "h200-ch07-5c7eee6-depth-ab-2";
        CHECK(run.m.balanced_margin == (balanced_margin ? 0.0 : -1.0));
        // each class's anchors timed again before its rows; from dd73b0d its CPU classes too
        const bool cpu_again = name.rfind("h200-ch07-dd73b0d", 0) == 0;
        // A's warm copy priced (split_warm.hpp)
        const bool warm = name.rfind("h200-ch07-b82e188", 0) == 0 || name == "h200-ch07-05d2109" ||
                          name.rfind("h200-ch07-e23a1c7", 0) == 0 || name.rfind("h200-ch07-b0e6714-depth-ab", 0) == 0 || name == "h200-ch07-5c7eee6-depth-ab-2";
        // each class's mid-size hybrid timed at every depth (--measured-depths): session 47's b runs
        const bool depths = name.rfind("h200-ch07-e23a1c7-b", 0) == 0;
        CHECK(run.m.reanchor == (name.rfind("h200-ch07-1222890", 0) == 0 || cpu_again || warm));
        CHECK(run.m.cpu_again == cpu_again);
        CHECK(run.m.warm_gemm_a == warm);
        CHECK(run.m.warm.measured() == warm);
        const bool two_residuals = since(M::two_residuals);
        for (const auto& [key, p] : run.m.paths) {
            INFO(key);
            CHECK((p.small_n > 0) == two_residuals);
            CHECK(p.depth_factors.size() == (depths ? wb::ch07::kDepths.size() : 0u));
            if (two_residuals) CHECK(p.small_n == wb::ch07::small_n_of(p.mid_n));
        }
        CHECK(run.m.cpu.peers.count("gemm share float") == 1);
        CHECK(run.m.cpu.peers.count("gemm share double") == 1);
        CHECK(run.m.cpu.peers.size() == 24);  // the 22 of the earlier run and the two shares
        CHECK(run.m.cpu.threads == (std::string(stem).rfind("h200x2", 0) == 0 ? 32 : 16));
        CHECK(run.m.hybrid_conv_threads == run.m.cpu.threads - 1);
        CHECK(run.rows.size() == 100);
        check_reproduced(run, stem);
    }
}

TEST_CASE("chapter 7 replay: sessions 52 - 54's runs (CG's solve cost, its split's products)", "[cpu][ch07][replay]") {
    // `ch07_split --full` on one H200 machine in session 52: h200-ch07-5100d36, the first full run
    // with CG's solve cost as a GPU class timed again before its rows and the split's products
    // without the SYMV path's copy of A; h200-ch07-64d6814-a, -b and -c (-c the chapter's table),
    // which also print SYMV's second calibration point and the SYMV path timed again before each CG
    // group ("cg product"); h200-ch07-aff114c-s53, the same model's full run in session 53 (a binary
    // of aff114c with the replay's command, which times nothing new); h200-ch07-7703cce-s54, -b, -c
    // and -d, session 54's four full runs of the same model on three machines (the first on a host
    // that drifted by up to 2.7x during its calibration). The features their lines say are read
    // back, and each run's columns, choices and printed counts reproduced with them.
    for (const char* stem : {"h200-ch07-5100d36", "h200-ch07-64d6814-a", "h200-ch07-64d6814-b", "h200-ch07-64d6814-c",
                             "h200-ch07-aff114c-s53", "h200-ch07-7703cce-s54", "h200-ch07-7703cce-s54-b", "h200-ch07-7703cce-s54-c",
                             "h200-ch07-7703cce-s54-d"}) {
        INFO(stem);
        const Run run = read_run(stem);
        const wb::ch07::Machines& m = run.m;
        const bool products = std::string(stem) != "h200-ch07-5100d36";
        CHECK(m.cg_product_without_a);
        CHECK(m.reanchor);
        CHECK(m.warm_gemm_a);
        CHECK(m.balanced_margin == 0.0);
        CHECK_FALSE(m.cpu_again);
        CHECK_FALSE(m.price_issue);
        CHECK(m.cpu.threads == 16);
        for (const char* t : {"float", "double"}) {
            INFO(t);
            const std::string solve = std::string("cg solve ") + t, symv = std::string("symv ") + t,
                              product = std::string("cg product ") + t;
            REQUIRE(m.gpu_rates.rates.count(solve) == 1);
            CHECK(m.gpu_rates.rates.at(solve).fixed_ms > 0.01);  // tens of microseconds: set-up, copies and waits
            CHECK(m.gpu_rates.rates.at(solve).fixed_ms < 0.2);
            REQUIRE(m.gpu_rates.rates.count(symv) == 1);
            const wb::ch07::GpuRate& r = m.gpu_rates.rates.at(symv);
            REQUIRE(m.gpu_rates.rates.count(product) == (products ? 1u : 0u));
            if (!products) {
                CHECK(r.large_bytes == 0);
                continue;
            }
            CHECK(r.large_bytes > 10 * r.mid_bytes);  // n = 16384 against 4096
            CHECK(r.large_eff > r.eff);               // the kernel streams faster on the larger matrix
            CHECK(m.gpu_rates.rates.at(product).fixed_ms > 0.01);  // tens of microseconds, as the path's anchor
            CHECK(m.gpu_rates.rates.at(product).fixed_ms < 0.1);
        }
        CHECK(run.rows.size() == 100);
        check_reproduced(run, stem);
    }
}

TEST_CASE("chapter 7 replay: the H200 run's verdicts on its model", "[cpu][ch07][replay]") {
    // The counts the run printed, from its CSV (which rounds the measured times to 4 decimals, ms:
    // CPU within 15% 65 here against the run's 66).
    const Run& run = h200_run();
    const auto lines = wb::ch07::summary_lines(wb::ch07::replay(run.rows, run.m));
    REQUIRE(lines.size() >= 5);
    CHECK(lines[0] == "model's choice is the measured best or within 5% of it: 94 of 100 (94%)");
    CHECK(lines[1] == "CPU model within 15% of the measured CPU: 65 of 100 (65%)");
    CHECK(lines[2] == "GPU+comm model within 15% of the measured: 94 of 100 (94%)");
    CHECK(lines[3] == "hybrid model within 15% of the measured hybrid: 29 of 60 (48%)");
    CHECK(lines[4] == "hybrid predicted >= 15% faster than both sides: measured >= 10% faster: 14 of 20 (70%)");
    REQUIRE(lines.size() >= 6);
    CHECK(lines[5] == "hybrid chosen by the model but slower than a single side: 0 of 12 (0%)");
}

TEST_CASE("chapter 7 replay: a path line with the small-size residual", "[cpu][ch07][replay]") {
    // A run from before the small-size anchor with one class's path line extended the way later
    // runs print it: that residual is read back; the other classes keep the mid size's alone.
    std::ifstream txt(log_file("h200-ch07-2601459"));
    REQUIRE(txt.good());
    std::ostringstream log;
    const std::string gemm = "  gemm float: t0 ";
    for (std::string s; std::getline(txt, s);) {
        if (s.rfind(gemm, 0) == 0 && s.find("one chunk") != std::string::npos)
            s += "; at n = 672: residual 0.1875 ms, share 94.8% (measured 0.2416 ms, model 0.0541 ms)";
        log << s << '\n';
    }
    std::istringstream in(log.str());
    const wb::ch07::Machines m = wb::ch07::machines_from_log(in);
    const wb::ch07::GpuPath& p = m.paths.at("gemm float");
    CHECK(p.small_n == 672);
    CHECK(p.small_residual_ms == Approx(0.1875));
    CHECK(p.residual_ms == 0);  // the run's 'hybrid residual 0 ms at n = 2048'
    CHECK(p.miss == Approx(0.059));
    CHECK(m.paths.at("gemm double").small_n == 0);
    CHECK(p.issue_per_chunk_ms == 0);  // no issue line: the CPU's share priced as beginning at once
    CHECK_FALSE(m.price_issue);
}

TEST_CASE("chapter 7 replay: the balanced rows' margin read back; before its line, the run's margin everywhere", "[cpu][ch07][replay]") {
    // 289f311 ran before the balanced rows' margin: replayed as computed, its GEMV float 8192 row
    // (a balanced row whose predicted gain was under the run's 35.6%) stays on the CPU. The same
    // log with the line later runs print chooses its hybrid, and leaves SYMV's (no balanced call)
    // at the run's margin.
    const auto [before, after] = ch07_machines_with_lines(
        "h200-ch07-289f311", "  hybrid GEMV, GEMM and convolution: balanced while they run",
        "  hybrid margin of the balanced rows: 0.0% (a balanced call moves its split to the sides' measured rates while it "
        "runs; the run's margin for the other hybrids, the floor on the saving for every one)");
    CHECK(before.balanced_margin < 0);
    CHECK(after.balanced_margin == 0);
    CHECK(before.hybrid_margin == Approx(0.356).margin(0.0005));
    const wb::ch07::Case gemv{"gemv", 8192, 4}, symv{"symv", 8192, 4};
    CHECK(wb::ch07::predict_case(gemv, before).split.choice == wb::split::Where::Cpu);
    CHECK(wb::ch07::predict_case(gemv, after).split.choice == wb::split::Where::Hybrid);
    CHECK(wb::ch07::predict_case(symv, after).split.choice == wb::ch07::predict_case(symv, before).split.choice);
}

TEST_CASE("chapter 7 replay: a path line with the calling thread's issue", "[cpu][ch07][replay]") {
    // The issue per chunk at the mid size, and at the small size where the line has one (else the
    // mid size's at every n), read back from the line as later runs print it.
    std::ifstream txt(log_file("h200-ch07-full"));
    REQUIRE(txt.good());
    std::ostringstream log;
    for (std::string s; std::getline(txt, s);) {
        if (s.rfind("  gemm float: t0 ", 0) == 0 && s.find("one chunk") != std::string::npos)
            s += "; issued before the CPU's share: 0.04875 ms per chunk at n = 2048, 0.02125 at n = 672";
        if (s.rfind("  gemv float: t0 ", 0) == 0 && s.find("one chunk") != std::string::npos)
            s += "; issued before the CPU's share: 0.0225 ms per chunk at n = 4096";
        log << s << '\n';
        if (s.rfind("  hybrid floor:", 0) == 0)
            log << "  hybrid CPU side: begins once the calling thread has issued the GPU's chunks (priced per chunk "
                   "as measured, --price-issue)\n";
    }
    std::istringstream in(log.str());
    const wb::ch07::Machines m = wb::ch07::machines_from_log(in);
    CHECK(m.price_issue);
    CHECK(m.paths.at("gemm float").issue_per_chunk_ms == Approx(0.04875));
    CHECK(m.paths.at("gemm float").small_issue_per_chunk_ms == Approx(0.02125));
    CHECK(m.paths.at("gemv float").issue_per_chunk_ms == Approx(0.0225));
    CHECK(m.paths.at("gemv float").small_issue_per_chunk_ms == Approx(0.0225));
    CHECK(m.paths.at("gemm double").issue_per_chunk_ms == 0);
}

TEST_CASE("chapter 7 replay: a path line with the hybrid timed at every depth", "[cpu][ch07][replay]") {
    // The factors as the calibration prints them (depth_factors_text), before the issue's text as
    // in its line, read back with K0's 1; a line without them: none (the model's depths).
    wb::ch07::GpuPath p;
    p.depth_factors = {{1, 0.9731}, {2, 1.012}, {4, 1.0}, {8, 1.083}, {16, 1.271}};
    const std::string text = wb::ch07::depth_factors_text(p, 4);
    CHECK(text == "; the hybrid in K chunks over its model, to that at 4: 1 x0.9731, 2 x1.012, 8 x1.083, 16 x1.271");
    std::ifstream txt(log_file("h200-ch07-b82e188-b"));
    REQUIRE(txt.good());
    std::ostringstream log;
    for (std::string s; std::getline(txt, s);) {
        if (s.rfind("  gemm float: t0 ", 0) == 0 && s.find("one chunk") != std::string::npos) {
            const std::size_t at = s.find("; issued before");
            s.insert(at == std::string::npos ? s.size() : at, text);
        }
        log << s << '\n';
    }
    std::istringstream in(log.str());
    const wb::ch07::Machines m = wb::ch07::machines_from_log(in);
    CHECK(m.paths.at("gemm float").depth_factors == p.depth_factors);
    CHECK(m.paths.at("gemm float").issue_per_chunk_ms > 0);  // the issue's text after them still read
    CHECK(m.paths.at("gemm double").depth_factors.empty());
}

TEST_CASE("chapter 7 replay: a run with the issue priced (--price-issue) reproduced", "[cpu][ch07][replay]") {
    // The flag's line read back, every class's issue per chunk from its path line, the columns,
    // choices and depths recomputed, the summary as printed; and the same calibration with the
    // pricing off predicts another table (the flag is what the run's model used).
    const Run run = read_run("h200-ch07-8cfc21d-price-issue");
    CHECK(run.m.price_issue);
    for (const auto& [key, p] : run.m.paths) {
        INFO(key);
        CHECK(p.issue_per_chunk_ms > 0.005);  // this run: 7.7 - 26 us per chunk (mid and small sizes)
        CHECK(p.issue_per_chunk_ms < 0.05);
        CHECK(p.small_issue_per_chunk_ms > 0.005);
    }
    check_reproduced(run, "h200-ch07-8cfc21d-price-issue");
    wb::ch07::Machines off = run.m;
    off.price_issue = false;
    const auto unpriced = wb::ch07::replay(run.rows, off), priced = wb::ch07::replay(run.rows, run.m);
    int moved = 0;
    for (std::size_t i = 0; i < priced.size(); ++i)
        moved += std::abs(unpriced[i].p.split.hybrid_ms - priced[i].p.split.hybrid_ms) > 1e-4;
    CHECK(moved > 20);
}

TEST_CASE("chapter 7 replay: a run without its calibration lines is refused", "[cpu][ch07][replay]") {
    std::istringstream empty("Chapter 7\n");
    CHECK_THROWS_WITH(wb::ch07::machines_from_log(empty), Catch::Contains("host: N threads"));
    std::istringstream no_link("  host: 16 threads, LLC 300 MiB (sysfs), read 1 GB/s, 953 GFLOP/s float, 628 double\n"
                               "  read GB/s by working set: 1 MiB 410.5, 2 MiB 385.1\n");
    CHECK_THROWS_WITH(wb::ch07::machines_from_log(no_link), Catch::Contains("link H2D"));
    std::istringstream bad_csv("op,T,n\ngemv,float,64\n");
    CHECK_THROWS_WITH(wb::ch07::rows_from_csv(bad_csv), Catch::Contains("FS"));
}

TEST_CASE("chapter 7 replay: with the issue priced, a share is a split only where both sides get rows",
          "[cpu][ch07][replay]") {
    // The session-37 run's calibration with 0.03 ms of issue per chunk priced on every class (the
    // top of what the H200 machine's host measured): near f = 1 the CPU side of one row plus the
    // issue can exceed the GPU side, and the balance then lands on a share whose rows round to all
    // of them (GEMM double 1024 did, chosen "hybrid"). Every such prediction is that single side.
    const Run run = read_run("h200-ch07-482068b");
    wb::ch07::Machines m = run.m;
    m.price_issue = true;
    for (auto& [key, p] : m.paths) p.issue_per_chunk_ms = p.small_issue_per_chunk_ms = 0.03;
    int splits = 0;
    for (const auto& row : run.rows) {
        if (row.c.op == "cg") continue;
        INFO(row.c.op << " " << row.c.elem << " FS " << row.c.fs << " n " << row.c.n);
        const wb::ch07::CasePrediction p = wb::ch07::predict_case(row.c, m);
        if (p.has_hybrid_share()) {
            ++splits;
            CHECK(p.gpu_part > 0);
            CHECK(p.gpu_part < row.c.n);
        } else {
            CHECK(p.split.choice != wb::split::Where::Hybrid);
            CHECK((p.split.gpu_share == 0.0 || p.split.gpu_share == 1.0));
        }
    }
    CHECK(splits > 20);  // the hybrids themselves are still there
}

TEST_CASE("chapter 7 replay: each class's anchors timed again before its rows replace the calibration's", "[cpu][ch07][replay]") {
    // 9f6746d ran before the anchors were timed again: every class keeps its calibration's t0. The
    // same log with a line for GEMM float (as later runs print it, before that group's rows) moves
    // that class's anchors and its small rows' all-GPU prediction by the difference, and no other
    // class's.
    // anywhere after the calibration: the line names its class
    const auto [before, after] = ch07_machines_with_lines(
        "h200-ch07-9f6746d", "Where each call runs",
        "  " + wb::ch07::reanchor_line("gemm float", 0.0295, 0.04725, 4, 0.0241, 0.0418));
    CHECK_FALSE(before.reanchor);
    CHECK(after.reanchor);
    CHECK(after.paths.at("gemm float").t0_ms == Approx(0.0295));
    CHECK(after.paths.at("gemm float").t0_chunked_ms == Approx(0.04725));
    CHECK(after.paths.at("gemm double").t0_ms == before.paths.at("gemm double").t0_ms);
    const wb::ch07::Case small{"gemm", 32, 4}, other{"gemv", 64, 4};
    const double moved = wb::ch07::predict_case(small, after).split.gpu_ms - wb::ch07::predict_case(small, before).split.gpu_ms;
    CHECK(moved == Approx(0.0295 - before.paths.at("gemm float").t0_ms).margin(1e-4));
    CHECK(wb::ch07::predict_case(other, after).split.gpu_ms == wb::ch07::predict_case(other, before).split.gpu_ms);
    // CG has no all-GPU path call: nothing to time again, no line.
    wb::ch07::Machines m = before;
    CHECK(wb::ch07::reanchor_path(m, wb::ch07::Case{"cg", 0, 4}).empty());
}

TEST_CASE("chapter 7 replay: a group's CPU classes timed again before its rows replace the start's", "[cpu][ch07][replay]") {
    // 9f6746d ran before the CPU classes were timed again: every row used the start's. The same log
    // with the lines a later run prints before the GEMV float group's rows moves that class's
    // threaded regime alone: its rows' CPU model follows, its single-thread regime, GEMV double and
    // SYMV float do not.
    const auto [before, after] = ch07_machines_with_lines(
        "h200-ch07-9f6746d", "Where each call runs",
        std::string("  ") + wb::ch07::kCpuAgainHeader +
            "\n    gemv float: t0 7.5 us (n = 96), e 0.25 at 0.5 MiB, e 0.5 at 64 MiB, e 0.75 at 1024 MiB");
    CHECK_FALSE(before.cpu_again);
    CHECK(after.cpu_again);
    const wb::model::PeerRate& g = after.cpu.peers.at("gemv float");
    CHECK(g.fixed_ms == Approx(0.0075));
    REQUIRE(g.efficiency.size() == 3);
    CHECK(g.efficiency[1].value == Approx(0.5));
    CHECK(g.efficiency[1].ws_bytes == Approx(64.0 * 1024 * 1024));
    CHECK(before.cpu.peers.at("gemv float").fixed_ms != Approx(0.0075));
    for (const char* k : {"gemv float 1t", "gemv double", "symv float"})
        CHECK(after.cpu.peers.at(k).fixed_ms == before.cpu.peers.at(k).fixed_ms);
    const wb::ch07::Case row{"gemv", 4096, 4}, other{"symv", 4096, 4};
    const wb::model::CpuWork w = wb::model::cpu_work_gemv(false, 4096, 4096, 4, false);
    CHECK(wb::ch07::predict_case(row, after).cpu_model_ms ==
          Approx(wb::model::predict_peer_ms(after.cpu, "gemv float", w, 4)));
    CHECK(wb::ch07::predict_case(row, after).cpu_model_ms != Approx(wb::ch07::predict_case(row, before).cpu_model_ms));
    CHECK(wb::ch07::predict_case(other, after).cpu_model_ms == wb::ch07::predict_case(other, before).cpu_model_ms);
}

TEST_CASE("chapter 7: each CPU class is timed again in one group only", "[cpu][ch07]") {
    // The replay applies a class's lines wherever they stand: that is the run's model only if no two
    // groups time one class again.
    std::map<std::string, std::string> owner;
    for (const char* op : {"gemv", "symv", "gemm", "conv2d", "cg"})
        for (std::size_t e : {std::size_t{4}, std::size_t{8}})
            for (int fs : std::string(op) == "conv2d" ? std::vector<int>{3, 5, 9} : std::vector<int>{0}) {
                const wb::ch07::Case c{op, 1024, e, fs};
                const std::string group = std::string(op) + " " + std::to_string(e) + " " + std::to_string(fs);
                const std::vector<std::string> keys = wb::ch07::cpu_classes_of(c);
                CHECK_FALSE(keys.empty());
                for (const std::string& k : keys) {
                    INFO(k << " in " << group);
                    CHECK(owner.emplace(k, group).second);
                    CHECK(k.find(e == 4 ? "float" : "double") != std::string::npos);
                }
            }
    CHECK(owner.count("gemv float") == 1);
    CHECK(owner.count("gemm share double") == 1);
    CHECK(owner.count("conv2d FS5 float") == 1);
    CHECK(owner.count("cg iteration double") == 1);
    CHECK(wb::ch07::cpu_classes_of(wb::ch07::Case{"fft", 64, 4, 0}).empty());
}

TEST_CASE("chapter 7: a group's CPU classes timed again, and what stays where that stops", "[cpu][ch07]") {
    const wb::cpu::CalibrationSizes s = wb::test::small_calibration_sizes();
    const wb::ch07::Case conv{"conv2d", 512, 8, 5};
    wb::ch07::Machines m;
    m.cpu = wb::model::measure_cpu_machine(2, 4, 1);
    const wb::model::PeerRate poison{-1.0, {{1.0, -1.0}}};
    m.cpu.peers["conv2d FS5 double"] = poison;
    m.cpu.peers["conv2d FS3 double"] = poison;
    // timed again: the header, the class's line; the class replaced, another FS untouched
    const auto lines = wb::ch07::retime_cpu_classes(m, conv, s, {});
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] == wb::ch07::kCpuAgainHeader);
    CHECK(lines[1].rfind("conv2d FS5 double: t0 ", 0) == 0);
    CHECK(m.cpu.peers.at("conv2d FS5 double").fixed_ms > 0);
    CHECK(m.cpu.peers.at("conv2d FS3 double").fixed_ms == -1.0);
    // no host memory: the header and a line that says the classes keep the start's rates
    m.cpu.peers["conv2d FS5 double"] = poison;
    const auto none = [](std::size_t) { return std::shared_ptr<void>(); };
    const auto stopped = wb::ch07::retime_cpu_classes(m, conv, s, none);
    REQUIRE(stopped.size() == 2);
    CHECK(stopped[0] == wb::ch07::kCpuAgainHeader);
    CHECK(stopped[1].find("stopped: the CPU peers' calibration: no host memory") != std::string::npos);
    CHECK(stopped[1].find("keep the start's rates") != std::string::npos);
    CHECK(m.cpu.peers.at("conv2d FS5 double").fixed_ms == -1.0);
    // an op the chapter does not know: nothing timed, no line
    CHECK(wb::ch07::retime_cpu_classes(m, wb::ch07::Case{"fft", 64, 4, 0}, s, {}).empty());
}
