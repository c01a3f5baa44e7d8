// test_model_symv_launch_ranks.cpp — the SYMV model ranks chapter 6's launches as the card did
// (issue 40, item 3): every legal launch of the tuned step on the page's shapes (lower 4096 and
// 16384, float and double: ch06_derived --sweep --quick --launches-csv on an H200, its SYMV rows
// copied into tests/data/h200-launches-page-symv-r20.csv and -r24.csv as the runs wrote them:
// nothing typed in here) and on the held-out shapes (--shapes, tests/data/h200-launches-shapes-
// symv-r24.csv: 24 cases) is predicted again with model::predict_symv on the h200 preset, as
// chapter 6's symv_launch_ms does, and Spearman's rho of predicted against measured is taken per
// case. Run 24 ran the current model (its predicted ms are reproduced); run 20 ran the model
// before each block's bare rounds were counted.
//
// Run `wb_cpu_tests "[.symv-ranks-report]" -s` for the table of every case (the offline checker).
#include "catch.hpp"

#include "derive/rank_correlation.hpp"
#include "device_profile.hpp"
#include "launches_csv.hpp"
#include "model/symv.hpp"
#include "symv_problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

std::string data_file(const char* name) { return std::string(WB_SOURCE_DIR) + "/tests/data/" + name; }

struct Row {
    std::string text;  ///< the launch as the run named it
    wb::SymvLaunch launch;
    double csv_predicted_ms = 0, measured_ms = 0, model_ms = 0;
    std::string note;  ///< the model's words for what sets the time
};

struct Case {
    std::string shape;
    long long n = 0;
    int elem = 4;
    std::vector<Row> launches;
    double rho = 0;
};

/// "block_x=32 block_y=4 nb=32 y_blocks=1 atomics=0" back into a launch.
wb::SymvLaunch parse_params(const std::string& text) {
    static const std::map<std::string, int wb::SymvLaunch::*> field = {{"block_x", &wb::SymvLaunch::block_x},
        {"block_y", &wb::SymvLaunch::block_y}, {"nb", &wb::SymvLaunch::nb}, {"y_blocks", &wb::SymvLaunch::y_blocks},
        {"atomics", &wb::SymvLaunch::atomics}};
    wb::SymvLaunch l;
    for (const auto& [key, v] : wb::test::params_fields(text)) {
        const auto it = field.find(key);
        if (it == field.end()) throw std::invalid_argument("parse_params: unknown field '" + key + "' in '" + text + "'");
        l.*(it->second) = v;
    }
    return l;
}

/// The model's time for a tuned SYMV launch, as chapter 6 computes it (derived_comparison.cpp's
/// symv_launch_ms: beta != 0, cold).
wb::model::SymvPrediction predict(const wb::DeviceProfile& dev, long long n, int elem, const wb::SymvLaunch& l) {
    return wb::model::predict_symv(wb::Stage::kTuned, n, elem, wb::symv_model_launch(l), dev);
}

/// The cases of the file, in its order, each launch predicted and rho taken.
std::vector<Case> load_cases(const wb::DeviceProfile& dev, const std::string& path) {
    INFO(path);
    const std::regex shape_re(R"(lower (\d+) (float|double)( lda \d+)?)");  // lda does not enter the model: n does
    std::vector<Case> cases;
    for (auto& f : wb::test::read_launch_rows(path, "symv")) {
        std::smatch m;
        REQUIRE(std::regex_match(f["shape"], m, shape_re));
        if (cases.empty() || cases.back().shape != f["shape"]) {
            Case c;
            c.shape = f["shape"];
            c.n = std::stoll(m[1]);
            c.elem = m[2] == "double" ? 8 : 4;
            cases.push_back(c);
        }
        Case& c = cases.back();
        Row r;
        r.text = f["launch"];
        r.launch = parse_params(f["params"]);
        r.csv_predicted_ms = std::stod(f["predicted ms"]);
        r.measured_ms = std::stod(f["measured ms"]);
        const wb::model::SymvPrediction p = predict(dev, c.n, c.elem, r.launch);
        r.model_ms = p.predicted_ms;
        r.note = p.note;
        c.launches.push_back(r);
    }
    for (Case& c : cases) {
        std::vector<double> model, measured;
        for (const Row& r : c.launches) {
            model.push_back(r.model_ms);
            measured.push_back(r.measured_ms);
        }
        c.rho = wb::derive::spearman_rho(model, measured);
    }
    return cases;
}

const char* kPage20 = "h200-launches-page-symv-r20.csv";
const char* kPage = "h200-launches-page-symv-r24.csv";
const char* kShapes = "h200-launches-shapes-symv-r24.csv";
const char* kPage31 = "h200-launches-page-symv-r31.csv";      // run 31: the model with its L2 request bound
const char* kShapes31 = "h200-launches-shapes-symv-r31.csv";

}  // namespace

TEST_CASE("symv launch ranks: the checker reads the page's launches", "[cpu][model][symv]") {
    const auto cases = load_cases(wb::device_preset("h200"), data_file(kPage));
    REQUIRE(cases.size() == 4);  // lower 4096 and 16384, float and double
    for (const Case& c : cases) {
        INFO(c.shape);
        CHECK(c.launches.size() == 30);
        for (const Row& r : c.launches) {
            INFO(r.text);
            CHECK(r.measured_ms > 0);
            CHECK(r.model_ms > 0);
        }
    }
    CHECK(parse_params("block_x=32 block_y=8 nb=64 y_blocks=4 atomics=1") == wb::SymvLaunch{32, 8, 64, 4, 1});
    CHECK_THROWS_AS(parse_params("block_x=32 zz=1"), std::invalid_argument);
}

TEST_CASE("symv launch ranks: the re-predictor gives the run's predicted ms", "[cpu][model][symv]") {
    // The model as chapter 6 ran it (symv_launch_ms on the live card, its bandwidth the measured
    // read ceiling) against predict_symv on the h200 preset: every launch within 1%. A model change
    // moves these; the rho test below is then the one that says whether it ranks better. Run 24
    // ran the model before its L2 request bound (KernelWork::l2_requests): with the L2's lookup
    // rate unknown (0) the bound is off, and the re-predictor must give that run's figures.
    wb::DeviceProfile as_run = wb::device_preset("h200");
    as_run.l2_lookups_per_ns = 0;
    for (const char* file : {kPage, kShapes})
        for (const Case& c : load_cases(as_run, data_file(file)))
            for (const Row& r : c.launches) {
                INFO(c.shape << " " << r.text);
                CHECK(r.model_ms == Approx(r.csv_predicted_ms).epsilon(0.01));
            }
}

TEST_CASE("symv launch ranks: Spearman's rho of the model on the page's shapes", "[cpu][model][symv]") {
    // Held at what the model reaches. Run 20 printed 0.92, 0.73, 0.85, 0.38 (mean 0.72) with the
    // model before each block's two bare rounds (model/kernel_time.hpp: the (64, 8) tile's slowdown
    // as Y grows); run 24, which ran them, printed 0.89, 0.75, 0.86, 0.47 (mean 0.74). With the L2
    // request bound (the warp-rows layout's requests of a sector or two, docs/notes/symv.md) the
    // model reaches 0.89, 0.89, 0.87, 0.46 on run 20's launches and 0.89, 0.88, 0.86, 0.47 on run
    // 24's (mean 0.78). What is still missed: double at 16384, where the warp-rows layout runs
    // 1.3-1.6x slower than the vector layout at Y = 1 ... 4 with its requests far from the L2's
    // rate, and the card spreads the nb = 64 launches by up to 5% where the model puts them
    // within 1-3%.
    struct Run {
        const char* file;
        double floor[4];  // 4096 float, 16384 float, 4096 double, 16384 double
    };
    for (const Run& run : {Run{kPage20, {0.88, 0.88, 0.86, 0.45}}, Run{kPage, {0.88, 0.87, 0.85, 0.46}}}) {
        INFO(run.file);
        const auto cases = load_cases(wb::device_preset("h200"), data_file(run.file));
        REQUIRE(cases.size() == 4);
        double sum = 0;
        for (std::size_t i = 0; i < cases.size(); ++i) {
            INFO(cases[i].shape);
            CHECK(cases[i].rho >= run.floor[i]);
            sum += cases[i].rho;
        }
        CHECK(sum / cases.size() >= 0.77);
    }
}

TEST_CASE("symv launch ranks: Spearman's rho of the model on the held-out shapes", "[cpu][model][symv]") {
    // Run 24's --shapes sweep (24 cases, n = 1000 ... 20000, odd lda): the run printed rho mean
    // 0.81 (20000 float 0.58); with the L2 request bound every float case 0.81-0.92 and the
    // mean 0.83. Lower: double from 9000 up (0.53-0.75), the warp-rows rows the bound does not
    // reach (their requests, two sectors each, stay under the L2's rate).
    const auto cases = load_cases(wb::device_preset("h200"), data_file(kShapes));
    REQUIRE(cases.size() == 24);
    double sum = 0;
    for (const Case& c : cases) {
        INFO(c.shape);
        CHECK(c.launches.size() == 30);
        CHECK(c.rho >= 0.5);
        sum += c.rho;
    }
    CHECK(sum / cases.size() >= 0.82);
}

TEST_CASE("symv launch ranks: report of the page's launches (offline checker)", "[.symv-ranks-report]") {
    for (const char* file : {kPage20, kPage, kShapes, kPage31, kShapes31}) {
        const auto cases = load_cases(wb::device_preset("h200"), data_file(file));
        double sum = 0, worst = 1;
        std::printf("== %s\n", file);
        for (const Case& c : cases) {
            std::printf("symv %-22s rho %.3f\n", c.shape.c_str(), c.rho);
            for (const Row& r : c.launches)
                std::printf("    %-28s run %.5f  model %.5f ms  measured %.5f ms  (model / measured %.2f)  %s\n",
                            r.text.c_str(), r.csv_predicted_ms, r.model_ms, r.measured_ms, r.model_ms / r.measured_ms,
                            r.note.c_str());
            sum += c.rho;
            worst = std::min(worst, c.rho);
        }
        std::printf("%zu cases: rho mean %.3f, worst %.3f\n", cases.size(), sum / cases.size(), worst);
    }
}
