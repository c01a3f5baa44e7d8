// test_model_gemm_launch_ranks.cpp — the GEMM model ranks chapter 6's launches as the card did
// (issue 40, item 3): every legal launch of the tuned step that an H200 run swept
// (ch06_derived --op gemm --sweep --quick --launches-csv: the page's shapes; --shapes: the
// held-out ones, runs 20, 49 and 73; --sizes 1777,2500,6000: fresh squares), copied into tests/data/ as the run wrote
// it (nothing typed in here), is predicted again with gemm_tiles_ms, the function chapter 6 ranks
// its sweep with, and Spearman's rho of predicted against measured time is taken per case.
//
// Run `wb_cpu_tests "[.gemm-ranks-report]" -s` for every case's rho and launches (the offline
// checker: a model change is replayed here before it goes to a GPU).
#include "catch.hpp"

#include "derive/rank_correlation.hpp"
#include "device_profile.hpp"
#include "gemm.hpp"
#include "gemm_design.hpp"
#include "gemm_epilogue_source.hpp"
#include "launch_rows.hpp"
#include "launches_csv.hpp"
#include "model/gemm.hpp"
#include "tuned/gemm_default_rule.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string data_file(const std::string& name) { return std::string(WB_SOURCE_DIR) + "/tests/data/" + name; }

struct Row {
    std::string launch, params;
    wb::GemmLaunch l;
    double run_model_ms = 0;  ///< the model's time as the run printed it
    double measured_ms = 0;
    double model_ms = 0;      ///< the model's time now
};

struct Case {
    std::string file, shape;
    long long m = 0, n = 0, k = 0;
    int elem = 4;
    bool transposed_a = false;  ///< op(A) = A^T (the shape's " TN")
    std::vector<Row> rows;
    double rho = 0, run_rho = 0;
};

/// launch_params' words ("block_x=128 block_y=1 tile_m=128 ... math=0") back into a launch.
wb::GemmLaunch parse_params(const std::string& text) {
    wb::GemmLaunch l;
    for (const auto& [key, v] : wb::test::params_fields(text)) {
        int* field = key == "block_x" ? &l.block_x : key == "block_y" ? &l.block_y : key == "tile_m" ? &l.tile_m
                   : key == "tile_n"  ? &l.tile_n  : key == "tile_k"  ? &l.tile_k  : key == "thread_m" ? &l.thread_m
                   : key == "thread_n" ? &l.thread_n : key == "warp_m" ? &l.warp_m : key == "warp_n" ? &l.warp_n
                   : key == "stages"  ? &l.stages  : key == "split_k" ? &l.split_k : key == "pack_a" ? &l.pack_a
                   : key == "pack_b"  ? &l.pack_b  : key == "align"   ? &l.align   : key == "gemv"    ? &l.gemv    : key == "math" ? &l.math
                                                                                                   : nullptr;
        if (!field) throw std::invalid_argument("parse_params: unknown field '" + key + "'");
        *field = v;
    }
    return l;
}

/// The cases of one launches CSV, each row predicted on the H200 preset.
std::vector<Case> read_cases(const std::string& name) {
    static const std::regex re(R"(^(\d+) x (\d+) x (\d+) (float|double)(?: ld\+\d+)?(?: TN)?$)");
    const wb::DeviceProfile dev = wb::device_preset("h200");
    std::vector<Case> out;
    for (const auto& f : wb::test::read_launch_rows(data_file(name), "gemm")) {
        if (out.empty() || out.back().shape != f.at("shape")) {
            Case c;
            std::smatch m;
            REQUIRE(std::regex_match(f.at("shape"), m, re));
            c.file = name;
            c.shape = f.at("shape");
            c.m = std::stoll(m[1]);
            c.n = std::stoll(m[2]);
            c.k = std::stoll(m[3]);
            c.elem = m[4] == "float" ? 4 : 8;
            c.transposed_a = c.shape.size() > 3 && c.shape.compare(c.shape.size() - 3, 3, " TN") == 0;
            out.push_back(c);
        }
        Case& c = out.back();
        Row r;
        r.launch = f.at("launch");
        r.params = f.at("params");
        r.l = parse_params(r.params);
        r.run_model_ms = std::stod(f.at("predicted ms"));
        r.measured_ms = std::stod(f.at("measured ms"));
        r.model_ms = wb::gemm_tiles_ms(dev, c.m, c.n, c.k, c.elem, r.l, c.transposed_a);
        c.rows.push_back(r);
    }
    for (Case& c : out) {
        std::vector<double> now, run, card;
        for (const Row& r : c.rows) {
            now.push_back(r.model_ms);
            run.push_back(r.run_model_ms);
            card.push_back(r.measured_ms);
        }
        c.rho = wb::derive::spearman_rho(now, card);
        c.run_rho = wb::derive::spearman_rho(run, card);
    }
    return out;
}

const char* const kFiles[] = {"h200-launches-page-gemm-r20.csv", "h200-launches-shapes-gemm-r20.csv",
                              "h200-launches-fresh-gemm-r20.csv", "h200-launches-shapes-gemm-r49.csv",
                              "h200-launches-shapes-gemm-s19.csv"};

struct Summary {
    int cases = 0;
    double mean = 0, worst = 1, run_mean = 0, run_worst = 1;
};

Summary summary(const std::vector<Case>& cases) {
    Summary s;
    for (const Case& c : cases) {
        ++s.cases;
        s.mean += c.rho;
        s.run_mean += c.run_rho;
        s.worst = std::min(s.worst, c.rho);
        s.run_worst = std::min(s.run_worst, c.run_rho);
    }
    if (s.cases > 0) {
        s.mean /= s.cases;
        s.run_mean /= s.cases;
    }
    return s;
}

void report(const std::vector<Case>& cases, std::ostream& os) {
    for (const Case& c : cases) {
        char buf[320];
        std::snprintf(buf, sizeof buf, "%s  gemm %s: %zu launches, rho %.3f (the run's model %.3f)\n", c.file.c_str(),
                      c.shape.c_str(), c.rows.size(), c.rho, c.run_rho);
        os << buf;
        std::vector<const Row*> by_time;
        for (const Row& r : c.rows) by_time.push_back(&r);
        std::sort(by_time.begin(), by_time.end(), [](const Row* a, const Row* b) { return a->measured_ms < b->measured_ms; });
        for (const Row* r : by_time) {
            std::snprintf(buf, sizeof buf, "    %-62s measured %8.4f  model %8.4f  (run %8.4f)\n", r->launch.c_str(),
                          r->measured_ms, r->model_ms, r->run_model_ms);
            os << buf;
        }
    }
    const Summary s = summary(cases);
    os << "cases " << s.cases << ": rho mean " << s.mean << ", worst " << s.worst << " (the run's model: mean "
       << s.run_mean << ", worst " << s.run_worst << ")\n";
}

}  // namespace

/// True when `older`'s words are `now`'s with none left out but fields at 0 (a field added to the
/// launch after a CSV was written: pack_b): the words a launch writes again after reading them.
bool same_words(const std::string& now, const std::string& older) {
    std::istringstream a(now), b(older);
    std::string w, want;
    b >> want;
    while (a >> w) {
        if (w == want) {
            want.clear();
            b >> want;
        } else if (w.size() < 2 || w.compare(w.size() - 2, 2, "=0") != 0) {
            return false;
        }
    }
    return want.empty();
}

TEST_CASE("gemm launch ranks: every row of the runs' CSVs is read back into its launch", "[cpu][model][gemm]") {
    // The params column is launch_params' words: parsed back, the launch writes them again (with
    // the fields added since the CSV was written, at 0).
    CHECK(same_words("tile_m=64 pack_a=0 pack_b=0 align=1", "tile_m=64 pack_a=0 align=1"));
    CHECK(!same_words("tile_m=64 pack_a=0 pack_b=2 align=1", "tile_m=64 pack_a=0 align=1"));
    CHECK(!same_words("tile_m=64 pack_a=0", "tile_m=64 pack_a=0 align=1"));
    int rows = 0;
    for (const char* f : kFiles)
        for (const Case& c : read_cases(f))
            for (const Row& r : c.rows) {
                INFO(f << " " << c.shape << " " << r.launch);
                CHECK(same_words(wb::ch06::launch_params(r.l), r.params));
                CHECK(r.l.str() == r.launch);
                CHECK(r.measured_ms > 0);
                CHECK(r.model_ms > 0);
                ++rows;
            }
    CHECK(rows == 93 + 560 + 59 + 848 + 1215);
    CHECK_THROWS_AS(parse_params("block_x=32 zz=1"), std::invalid_argument);
}

TEST_CASE("gemm launch ranks: the model ranks each run's launches as the card did", "[cpu][model][gemm]") {
    // Spearman's rho per case, mean and worst over each CSV's cases. The runs' own model (the
    // predicted ms column) had page 0.72 / 0.11 (1024^3 float), held-out 0.77 / 0.24 (3072 x 1409
    // x 2048 float), fresh 0.84 / 0.57: it took a round of one 4-warp block per SM as a quarter
    // of the SM's rate, and the 128 x 64 tile as 4 blocks per SM where the compiled kernel holds 3.
    // Counted now: each round at the share of the clocks its warps keep issuing, the registers
    // within the kernel's launch bound; and each k-tile's loop instructions besides the FMAs and
    // fragment loads (copies, wait, barrier, loop: 110 per thread, the sm_90 SASS's median), which
    // the 16 x 8 thread tile spreads over twice the FMAs of 8 x 8: at the big squares 256 x 128
    // issues 6% fewer instructions per FMA and runs ahead, as on the card (4096^3 float 0.855 ->
    // 0.927, 6000^3 0.764 -> 0.946). The page's worst, 1024^3 float, went 0.831 -> 0.818 (its
    // 4 x 4 tiles pay more issue): the floor below is that.
    struct Want {
        const char* file;
        double mean, worst;
    };
    // Run 49's held-out set (six op(A) = A^T shapes added, the model without their measured
    // rates): mean 0.88, worst 0.47 (3072 x 1409 x 2048 float). Run 73's (the packs of B in the
    // sweep, every op(A) = A^T launch predicted as op(A) = A by the run's model): 0.81 / 0.47;
    // with the op pair each launch's main loop reads at the kernel's measured rate and the packs'
    // copies counted (gemm_tuned_call), 0.89 / 0.48 (double TN 0.57 .. 0.73 -> 0.75 .. 0.98).
    for (const Want& w : {Want{kFiles[0], 0.91, 0.81}, Want{kFiles[1], 0.90, 0.70}, Want{kFiles[2], 0.85, 0.60},
                          Want{kFiles[3], 0.86, 0.45}, Want{kFiles[4], 0.87, 0.45}}) {
        const auto cases = read_cases(w.file);
        const Summary s = summary(cases);
        std::ostringstream os;
        report(cases, os);
        INFO(os.str());
        CHECK(s.cases >= 6);
        CHECK(s.mean >= w.mean);
        CHECK(s.worst >= w.worst);
    }
}

TEST_CASE("gemm launch ranks: report of every case (offline checker)", "[.gemm-ranks-report]") {
    for (const char* f : kFiles) report(read_cases(f), std::cout);
}

TEST_CASE("gemm launch ranks: the model's time of each swept FMA launch, not only its rank", "[cpu][model][gemm]") {
    // The FMA tiles' main loop at its measured share of the counted rate (GemmDesign::main_share,
    // from each kernel's own timed call): without it the model put these launches at a median of
    // 0.82 of the card's time, 71% of them within 25% (run 7's sweep); with it 1.01 and 88%.
    for (const char* f : kFiles) {
        int fma = 0, within = 0;
        std::vector<double> ratio;
        for (const Case& c : read_cases(f))
            for (const Row& r : c.rows)
                if (r.l.math != 2) {
                    ++fma;
                    ratio.push_back(r.model_ms / r.measured_ms);
                    within += std::abs(ratio.back() - 1) <= 0.25;
                }
        REQUIRE(fma > 0);
        std::sort(ratio.begin(), ratio.end());
        INFO(f << ": " << within << " of " << fma << " FMA launches within 25%, median model / measured "
               << ratio[ratio.size() / 2]);
        CHECK(within >= 0.8 * fma);
        CHECK(ratio[ratio.size() / 2] == Approx(1.0).margin(0.1));
    }
}

TEST_CASE("gemm launch ranks: the model gives each FMA tile's own timed call the time measured", "[cpu][model][gemm]") {
    // The share is this model's count for the call over its measured time: the call predicted
    // again is that time (plus a launch), wherever the count was the faster (share < 1).
    const wb::DeviceProfile dev = wb::device_preset("h200");
    int checked = 0;
    for (const wb::GemmLaunch& l : wb::tuned::gemm_configs<float>()) {
        const wb::GemmTimedCall s = wb::gemm_main_loop_timed(l, 4, false);
        REQUIRE(s.ms > 0);
        const double ms = wb::gemm_tiles_ms(dev, s.m, s.n, s.k, 4, l, false);
        INFO(l.str() << ": timed call " << s.m << " x " << s.n << " x " << s.k << " measured " << s.ms << " ms, model "
                     << ms << " ms");
        if (ms - wb::model::kLaunchOverheadUs / 1e3 > s.ms * 1.01) continue;  // counted slower: share 1
        CHECK(ms - wb::model::kLaunchOverheadUs / 1e3 == Approx(s.ms).epsilon(0.01));
        ++checked;
    }
    CHECK(checked >= 3);  // the four-warp tiles, 128 x 128 and 256 x 128 at least
}
