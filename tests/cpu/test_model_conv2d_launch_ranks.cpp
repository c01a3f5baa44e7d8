// test_model_conv2d_launch_ranks.cpp — the convolution model picks chapter 6's launches as the card
// ranked them (issue 40, items 3 and 4): every legal launch of the tuned step on the held-out
// shapes (ch06_derived --op conv2d --shapes --sweep --quick --launches-csv, H200, run 38: the copy
// in tests/data/h200-launches-shapes-conv2d-r45.csv as the run wrote it: nothing typed in here) is
// predicted with model::predict_conv2d_launch, the function the derivation picks the least of,
// and the derivation (ch06::derive_conv2d_call) is run again on each shape: the launch it picks
// now must be one whose measured time is within 8% of the case's best (>= 0.92 of its speed),
// and 3% on average. The same run's fresh squares no rule was diagnosed from (`--sizes 1777,2999
// --full`, `--sizes 1500,3333`) and the page's shapes (`--sweep --quick`, the conv2d rows of its
// launches CSV) are checked the same way. The runs before it timed the blocked kernel this step
// replaced (docs/notes/conv2d.md keeps what they showed).
//
// Run `wb_cpu_tests "[.conv2d-ranks-report]" -s` for the table of every case (the offline checker).
#include "catch.hpp"

#include "derive/rank_correlation.hpp"
#include "derived_launch.hpp"
#include "launches_csv.hpp"
#include "device_profile.hpp"
#include "model/conv2d.hpp"
#include "tuned/conv2d_rules.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

std::string data_file(const char* name) { return std::string(WB_SOURCE_DIR) + "/tests/data/" + name; }

struct Row {
    wb::Conv2dLaunch launch;
    double measured_ms = 0, model_ms = 0;
    std::string limit;  ///< the model's words for what sets the time
};

struct Case {
    std::string shape;
    int rows = 0, cols = 0, fs = 0, elem = 4, pitch_extra = 0;
    std::vector<Row> launches;
    double pick_ratio = 0;  ///< best measured / measured of the derivation's pick (1: the best)
    std::string pick;
    double rho = 0;
    bool has_rho = false;
};

using wb::test::split;

/// "block_x=256 block_y=1 tile_x=64 ..." back into a launch.
wb::Conv2dLaunch parse_params(const std::string& text) {
    wb::Conv2dLaunch l;
    for (const auto& [key, v] : wb::test::params_fields(text)) {
        if (key == "block_x") l.block_x = v;
        else if (key == "block_y") l.block_y = v;
        else if (key == "tile_x") l.tile_x = v;
        else if (key == "tile_y") l.tile_y = v;
        else if (key == "thread_x") l.thread_x = v;
        else if (key == "thread_y") l.thread_y = v;
        else if (key == "blocked") l.blocked = v;  // absent in the runs before the blocked class
    }
    return l;
}

bool vector_rows(const Case& c) { return (c.cols + c.pitch_extra) % (16 / c.elem) == 0; }

/// The cases of the file, in its order, each launch predicted and the derivation run again.
std::vector<Case> load_cases(const wb::DeviceProfile& dev, const std::string& path) {
    INFO(path);
    std::ifstream in(path);
    REQUIRE(in.good());
    std::string line;
    std::getline(in, line);
    const std::vector<std::string> head = split(line, ',');
    const auto col = [&](const char* name) {
        const auto it = std::find(head.begin(), head.end(), name);
        REQUIRE(it != head.end());
        return static_cast<std::size_t>(it - head.begin());
    };
    const std::size_t c_op = col("op"), c_shape = col("shape"), c_meas = col("measured ms"), c_par = col("params");
    const std::regex shape_re(R"((\d+) x (\d+) FS (\d+) (float|double)( pitch\+(\d+))?)");
    std::vector<Case> cases;
    while (std::getline(in, line)) {
        const std::vector<std::string> f = split(line, ',');
        if (f.size() < head.size() || f[c_op] != "conv2d") continue;
        std::smatch m;
        REQUIRE(std::regex_match(f[c_shape], m, shape_re));
        if (cases.empty() || cases.back().shape != f[c_shape]) {
            Case c;
            c.shape = f[c_shape];
            c.rows = std::stoi(m[1]);
            c.cols = std::stoi(m[2]);
            c.fs = std::stoi(m[3]);
            c.elem = m[4] == "double" ? 8 : 4;
            c.pitch_extra = m[6].matched ? std::stoi(m[6]) : 0;
            cases.push_back(c);
        }
        Case& c = cases.back();
        Row r;
        r.launch = parse_params(f[c_par]);
        r.measured_ms = std::stod(f[c_meas]);
        const wb::Conv2dLaunch& l = r.launch;
        r.model_ms = wb::model::predict_conv2d_launch(l.tile_x, l.tile_y, l.thread_x, l.thread_y, l.block_x * l.block_y,
                                                      c.rows, c.cols, c.fs, c.elem, vector_rows(c), dev, l.blocked != 0)
                         .ms;
        r.limit = wb::model::predict_conv2d_launch(l.tile_x, l.tile_y, l.thread_x, l.thread_y, l.block_x * l.block_y,
                                                   c.rows, c.cols, c.fs, c.elem, vector_rows(c), dev, l.blocked != 0)
                      .limit;
        c.launches.push_back(r);
    }
    for (Case& c : cases) {
        const wb::Conv2dLaunch pick = wb::tuned::conv2d_launch_of(
            wb::ch06::derive_conv2d_call(dev, c.rows, c.cols, c.fs, c.elem, vector_rows(c)));
        c.pick = pick.str();
        double best = 1e300, picked = -1;
        std::vector<double> model, measured;
        for (const Row& r : c.launches) {
            best = std::min(best, r.measured_ms);
            if (r.launch == pick) picked = r.measured_ms;
            model.push_back(r.model_ms);
            measured.push_back(r.measured_ms);
        }
        c.pick_ratio = picked > 0 ? best / picked : 0;
        c.has_rho = model.size() >= 2 && *std::min_element(model.begin(), model.end()) <
                                             *std::max_element(model.begin(), model.end());
        if (c.has_rho) c.rho = wb::derive::spearman_rho(model, measured);
    }
    return cases;
}

void report(const std::vector<Case>& cases) {
    double sum = 0, worst = 1, rho_sum = 0;
    int rho_n = 0;
    for (const Case& c : cases) {
        std::printf("%-34s derived %-38s %.3f of the best%s\n", c.shape.c_str(), c.pick.c_str(), c.pick_ratio,
                    c.has_rho ? ("  rho " + std::to_string(c.rho).substr(0, 5)).c_str() : "  (no rho)");
        for (const Row& r : c.launches)
            std::printf("    %-38s model %.4f ms  measured %.4f ms  (model / measured %.2f)  %s\n",
                        r.launch.str().c_str(), r.model_ms, r.measured_ms, r.model_ms / r.measured_ms, r.limit.c_str());
        sum += c.pick_ratio;
        worst = std::min(worst, c.pick_ratio);
        if (c.has_rho) {
            rho_sum += c.rho;
            ++rho_n;
        }
    }
    std::printf("%zu cases: derived at %.3f of the best on average, %.3f at worst; mean rho %.2f over %d cases\n",
                cases.size(), sum / cases.size(), worst, rho_n ? rho_sum / rho_n : 0.0, rho_n);
}

}  // namespace

/// Each run's cases: the derivation's pick within 8% of the sweep's best (the known misses held
/// at their floor), within 3% on average.
struct RunFile {
    const char* name;
    std::size_t cases;
    std::vector<std::pair<std::string, double>> known;  ///< known misses and the floor they are held to
};

void check_run(const RunFile& run) {
    const auto dev = wb::device_preset("h200");
    const std::vector<Case> cases = load_cases(dev, data_file(run.name));
    INFO(run.name);
    REQUIRE(cases.size() == run.cases);
    double sum = 0;
    for (const Case& c : cases) {
        INFO(c.shape << ": derived " << c.pick);
        double floor = 0.92;  // the issue's "within 8% at worst"
        for (const auto& k : run.known)
            if (k.first == c.shape) floor = k.second;
        CHECK(c.pick_ratio >= floor);
        sum += c.pick_ratio;
    }
    CHECK(sum / cases.size() >= 0.97);  // "within 3% on average"
}

// The runs of the tuned step as it stands (run 45, H200, 8a88e03: the kernel class among the
// tunables, the compile-time kernel's instructions counted per tile): the held-out shapes, the
// fresh squares 1777 and 2999 (FS 3, 7, 17, 63) and 1500 and 3333, the page's 4096^2: every case
// within 8% of its best, 3% on average.
TEST_CASE("conv2d model: the derivation's pick on the held-out shapes is within 8% of the sweep's best",
          "[cpu][model][derive][conv2d]") {
    check_run({"h200-launches-shapes-conv2d-r45.csv", 26, {}});
}

TEST_CASE("conv2d model: the derivation's pick on fresh squares and the page's shapes is within 8% of the best",
          "[cpu][model][derive][conv2d]") {
    SECTION("fresh squares 1777 and 2999") {
        check_run({"h200-launches-fresh-conv2d-r45.csv", 16, {}});
    }
    SECTION("fresh squares 1500 and 3333") { check_run({"h200-launches-fresh2-conv2d-r45.csv", 16, {}}); }
    SECTION("the page's shapes") { check_run({"h200-launches-page-conv2d-r45.csv", 8, {}}); }
}

TEST_CASE("conv2d model: report of the swept launches of every run (offline checker)", "[.conv2d-ranks-report]") {
    const auto dev = wb::device_preset("h200");
    for (const char* name : {"h200-launches-shapes-conv2d-r45.csv", "h200-launches-fresh-conv2d-r45.csv",
                             "h200-launches-fresh2-conv2d-r45.csv", "h200-launches-page-conv2d-r45.csv"}) {
        std::printf("== %s\n", name);
        report(load_cases(dev, data_file(name)));
    }
}

// The compile-time FS = 7 kernel on rows off 16-byte boundaries (odd width, pitch + 1) stages
// every vector as element copies and stores element by element. Counted from its SASS (80
// instructions per staged vector in float, 58 in double, 9 wavefronts per element copy), the
// model predicts those launches at no less than 0.6 of their measured time (run 38, the kernel
// storing each output row as it completes), as it does the aligned FS = 7 launches; with the
// earlier estimate (25 and 15 instructions, 8 wavefronts) the float 64 x 64 launches came out at
// 0.44-0.49 of the kernel before.
TEST_CASE("conv2d model: the compile-time kernel's element-copy staging on unaligned rows is counted",
          "[cpu][model][conv2d]") {
    const auto dev = wb::device_preset("h200");
    int rows_checked = 0;
    for (const char* name : {"h200-launches-shapes-conv2d-r45.csv", "h200-launches-fresh-conv2d-r45.csv",
                             "h200-launches-fresh2-conv2d-r45.csv"})
        for (const Case& c : load_cases(dev, data_file(name))) {
            if (c.fs != 7 || vector_rows(c)) continue;
            for (const Row& r : c.launches) {
                if (r.launch.block_x != 256 || r.launch.blocked != 0) continue;  // the compile-time kernel's block
                INFO(name << ": " << c.shape << " " << r.launch.str() << ": model " << r.model_ms << " ms, measured "
                          << r.measured_ms << " ms");
                CHECK(r.model_ms >= 0.6 * r.measured_ms);
                CHECK(r.model_ms <= r.measured_ms);
                ++rows_checked;
            }
        }
    CHECK(rows_checked == 16);  // 2000^2 pitch + 1, 1777^2, 2999^2, 3333^2: both precisions, 2 tiles each
}
