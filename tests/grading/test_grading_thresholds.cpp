// CPU tests of the thresholds file, the calibration file, the rule that derives thresholds from
// a calibration, and chapter-name resolution.
#include "catch.hpp"
#include "grading_test_util.hpp"

#include <sstream>

using namespace wb::grade;
using namespace wb::grade::test;

namespace {
Thresholds parse_t(const std::string& text) {
    std::istringstream in(text);
    return parse_thresholds(in, "test");
}
std::vector<Calibration> parse_c(const std::string& text) {
    std::istringstream in(text);
    return parse_calibration(in);
}
}  // namespace

TEST_CASE("thresholds parse, and chapters not named fall back to the defaults", "[cpu][grading]") {
    const Thresholds t = parse_t("# c\nwbgrade-thresholds 1\nchapter ch02 full_at=0.8 zero_at=0.4\n");
    CHECK(t.for_chapter("ch02_shared").full_at == Approx(0.8));
    CHECK(t.for_chapter("ch02_shared").zero_at == Approx(0.4));
    CHECK(t.for_chapter("ch03_pattern").full_at == Approx(Threshold{}.full_at));
    const Thresholds f = load_thresholds("thresholds_h200.txt");
    CHECK(f.by_chapter.size() == 5);
    CHECK(f.source.find("H200") != std::string::npos);
}

TEST_CASE("malformed thresholds are rejected", "[cpu][grading]") {
    const std::string h = "wbgrade-thresholds 1\n";
    for (const std::string& text : {std::string(""), std::string("chapter ch02 full_at=0.8 zero_at=0.4\n"),
                                    h + "chapter ch02 full_at=0.8 zero_at=0.8\n",
                                    h + "chapter ch02 full_at=0.5 zero_at=0.6\n",
                                    h + "chapter ch02 full_at=0 zero_at=0\n",
                                    h + "chapter ch02 full_at=3 zero_at=0.5\n",
                                    h + "chapter ch02 full_at=0.9\n",
                                    h + "chapter ch02 full_at=0.9 zero_at=0.5 bonus=1\n",
                                    h + "chapter ch02 full_at=0.9 zero_at=0.5\nchapter ch02_shared full_at=0.9 zero_at=0.5\n",
                                    h + "chapter ch07 full_at=0.9 zero_at=0.5\n",
                                    h + "chapter ch02 full_at=high zero_at=0.5\n",
                                    h + "limit ch02 0.9\n"}) {
        INFO("thresholds text: " << text);
        CHECK_THROWS_AS(parse_t(text), FormatError);
    }
}

TEST_CASE("thresholds derived from a calibration", "[cpu][grading]") {
    std::vector<Calibration> cal = {
        {"ch01_global", {1.00, 1.00}, 0.01},   {"ch02_shared", {0.50, 0.50}, 0.01},
        {"ch03_pattern", {0.45, 0.45}, 0.05},  {"ch04_access", {0.30, 0.30}, 0.01},
        {"ch05_unrolled", {0.30, 0.30}, 0.01},
    };
    const Thresholds t = derive_thresholds(cal, "test");
    // noise 1% -> full_at = 1 - max(0.10, 0.03) = 0.90; noise 5% -> 1 - 0.15 = 0.85
    CHECK(t.for_chapter("ch01_global").full_at == Approx(0.90));
    CHECK(t.for_chapter("ch01_global").zero_at == Approx(0.50));
    CHECK(t.for_chapter("ch02_shared").zero_at == Approx(0.55));   // previous step runs at 0.50x
    CHECK(t.for_chapter("ch03_pattern").full_at == Approx(0.85));
    CHECK(t.for_chapter("ch03_pattern").zero_at == Approx(0.70));  // 0.9 + 0.05 capped at full_at - 0.15
    CHECK(t.for_chapter("ch04_access").zero_at == Approx(0.30 / 0.45 + 0.05));  // under the cap
    CHECK(t.for_chapter("ch05_unrolled").zero_at == Approx(0.75));  // no gain on this card: capped
    for (const auto& [ch, th] : t.by_chapter) CHECK(th.zero_at < th.full_at);
}

TEST_CASE("the calibration file round-trips and rejects malformed lines", "[cpu][grading]") {
    std::vector<Calibration> cal = {{"ch01_global", {0.5, 0.25}, 0.02}, {"ch02_shared", {0.125, 0.5}, 0.0}};
    std::ostringstream os;
    write_calibration(os, cal, "Test GPU");
    std::string device;
    std::istringstream in(os.str());
    const auto back = parse_calibration(in, &device);
    REQUIRE(back.size() == 2);
    CHECK(device == "Test GPU");
    CHECK(back[0].ms[1] == Approx(0.25));
    CHECK(back[1].chapter == "ch02_shared");
    CHECK(back[0].noise == Approx(0.02));
    const std::string h = "wbgrade-calibration 1\n";
    for (const std::string& text : {h, h + "calib chapter=ch01 ms=0.5 noise=0.01\n",
                                    h + "calib chapter=ch01 ms=0.5,0 noise=0.01\n",
                                    h + "calib chapter=ch01 ms=0.5,0.5 noise=2\n",
                                    h + "calib chapter=ch01 ms=0.5,x noise=0.01\n",
                                    h + "calib chapter=ch01 ms=0.5,0.5\n",
                                    h + "calib chapter=ch01 ms=0.5,0.5 noise=0.1\ncalib chapter=ch01 ms=0.5,0.5 noise=0.1\n",
                                    std::string("wbgrade-record 1\n")}) {
        INFO("calibration text: " << text);
        CHECK_THROWS_AS(parse_c(text), FormatError);
    }
}

TEST_CASE("chapter names resolve", "[cpu][grading]") {
    CHECK(resolve_chapter("ch03") == "ch03_pattern");
    CHECK(resolve_chapter("ch3") == "ch03_pattern");
    CHECK(resolve_chapter("3") == "ch03_pattern");
    CHECK(resolve_chapter("ch03_pattern") == "ch03_pattern");
    CHECK(resolve_chapter("ch05") == "ch05_unrolled");
    CHECK_THROWS_AS(resolve_chapter("ch06"), std::invalid_argument);
    CHECK_THROWS_AS(resolve_chapter("ch03_access"), std::invalid_argument);
    CHECK_THROWS_AS(resolve_chapter("pattern"), std::invalid_argument);
    CHECK_THROWS_WITH(resolve_chapter("ch9"), Catch::Contains("ch9") && Catch::Contains("ch01_global"));
}

TEST_CASE("a calibration of one track keeps the other track's notes", "[cpu][grading]") {
    const std::string file = "# Performance thresholds of the transpose track, as speeds relative to each chapter's\n"
                             "# reference solution timed in the same run (1.00 = as fast as the reference).\n"
                             "# Full points at speed >= full_at, none at speed <= zero_at, linear in between.\n"
                             "# Calibrated T1 on GPU:\n"
                             "# ch01_global: 1 ms\n"
                             "# Op exercises calibrated T2 on GPU:\n"
                             "# spmv: median 0.2 ms\n"
                             "wbgrade-thresholds 1\n";
    std::istringstream a(file), b(file);
    const auto for_ops = other_calibration_comments(a, "Op exercises calibrated ");
    REQUIRE(for_ops == std::vector<std::string>{"Calibrated T1 on GPU:", "ch01_global: 1 ms"});
    const auto for_transpose = other_calibration_comments(b, "Calibrated ");
    REQUIRE(for_transpose == std::vector<std::string>{"Op exercises calibrated T2 on GPU:", "spmv: median 0.2 ms"});
}
