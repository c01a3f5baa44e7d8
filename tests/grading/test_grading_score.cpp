// CPU tests of the scoring rules on recorded results: full marks, stubs, crashes, truncated runs,
// out-of-bounds reads, slow submissions, and the arithmetic of the performance points.
#include "catch.hpp"
#include "grading_test_util.hpp"

#include <cmath>
#include <limits>

using namespace wb::grade;
using namespace wb::grade::test;

namespace {
double item_score(const Rubric& r, const std::string& name) {
    for (const auto& i : r.items)
        if (i.name == name) return i.score;
    FAIL("no rubric item " << name);
    return -1;
}
const Thresholds kH200 = load_thresholds("thresholds_h200.txt");
}  // namespace

TEST_CASE("a correct submission as fast as the reference gets full marks", "[cpu][grading]") {
    const Rubric r = score(load_record("record_solution_ch03.txt"), kH200);
    CHECK(r.max_total() == Approx(4 * kClassPoints + 4 * kSanitizerPoints + kPerformancePoints));
    CHECK(r.total() == Approx(r.max_total()));
    CHECK(item_score(r, "performance vs reference") == Approx(kPerformancePoints));
}

TEST_CASE("a stub that throws scores zero everywhere", "[cpu][grading]") {
    const Rubric r = score(load_record("record_stub_ch02.txt"), kH200);
    CHECK(r.total() == 0);
    for (const auto& cls : size_classes()) CHECK(item_score(r, "correctness: " + cls) == 0);
    CHECK(r.items.front().output.find("not implemented") != std::string::npos);
}

TEST_CASE("out-of-bounds reads lose every class although squares pass", "[cpu][grading]") {
    const Rubric r = score(load_record("record_oob_ch01.txt"), kH200);
    CHECK(r.total() == 0);
    CHECK(r.items[0].output.find("read outside A") != std::string::npos);
}

TEST_CASE("a crashed run counts its missing cases as failed", "[cpu][grading]") {
    const Rubric r = score(load_record("record_crash_ch01.txt"), kH200);
    CHECK(r.total() == 0);
    const std::string large = r.items[2].output;
    CHECK(large.find("not run") != std::string::npos);
    CHECK(large.find("cudaErrorIllegalAddress") != std::string::npos);
    REQUIRE_FALSE(r.notes.empty());
}

TEST_CASE("a truncated record scores the classes it completed", "[cpu][grading]") {
    const Rubric r = score(load_record("record_truncated_ch05.txt"), kH200);
    CHECK(item_score(r, "correctness: small") == Approx(kClassPoints));
    CHECK(item_score(r, "correctness: odd") == Approx(kClassPoints));
    CHECK(item_score(r, "correctness: large") == 0);        // 1 of its 4 cases recorded
    CHECK(item_score(r, "correctness: rectangular") == 0);
    CHECK(item_score(r, "performance vs reference") == 0);  // needs every class
    bool noted = false;
    for (const auto& n : r.notes) noted = noted || n.find("no 'end' line") != std::string::npos;
    CHECK(noted);
}

TEST_CASE("a slow submission gets performance points on the linear scale", "[cpu][grading]") {
    // speed = 0.14 / 0.20 = 0.70 on both shapes; ch04 thresholds: full 0.90, zero 0.70 -> 0 points
    const Rubric r = score(load_record("record_slow_ch04.txt"), kH200);
    CHECK(item_score(r, "performance vs reference") == 0);
    CHECK(r.total() == Approx(4 * kClassPoints + 4 * kSanitizerPoints));
    // with the built-in defaults (full 0.85, zero 0.50): (0.70 - 0.50) / 0.35 x 40 = 22.9
    const Rubric d = score(load_record("record_slow_ch04.txt"), Thresholds{});
    CHECK(item_score(d, "performance vs reference") == Approx(22.9));
    // the diagonal order is reported, not scored
    bool reported = false;
    for (const auto& i : r.items)
        if (i.name == "reported: transpose_diagonal") {
            reported = true;
            CHECK(i.max_score == 0);
            CHECK(i.output.find("pass") != std::string::npos);
        }
    CHECK(reported);
}

TEST_CASE("performance points and relative speed", "[cpu][grading]") {
    const Threshold t{0.9, 0.5};
    CHECK(performance_points(1.2, t) == Approx(kPerformancePoints));
    CHECK(performance_points(0.9, t) == Approx(kPerformancePoints));
    CHECK(performance_points(0.7, t) == Approx(20.0));
    CHECK(performance_points(0.5, t) == 0);
    CHECK(performance_points(0.1, t) == 0);
    CHECK(performance_points(std::numeric_limits<double>::quiet_NaN(), t) == 0);
    std::vector<PerfResult> p(2);
    p[0].sub_ms = 1.0;
    p[0].ref_ms = 2.0;  // twice as fast as the reference
    p[1].sub_ms = 2.0;
    p[1].ref_ms = 1.0;  // half as fast
    CHECK(relative_speed(p) == Approx(1.0));
    p[1].ref_ms = 2.0;
    CHECK(relative_speed(p) == Approx(std::sqrt(2.0)));
    CHECK(std::isnan(relative_speed({})));
}

TEST_CASE("a submission that does not compile scores zero with the compiler output", "[cpu][grading]") {
    const Rubric r = score_build_failure("ch02_shared", "transpose.cu(12): error: expected a \";\"");
    CHECK(r.total() == 0);
    CHECK(r.max_total() == Approx(4 * kClassPoints + 4 * kSanitizerPoints + kPerformancePoints));
    CHECK(r.items[0].output.find("expected a") != std::string::npos);
}

TEST_CASE("the rubric adds up to 100", "[cpu][grading]") {
    CHECK(4 * kClassPoints + 4 * kSanitizerPoints + kPerformancePoints == Approx(100));
    const Rubric r = score(load_record("record_solution_ch03.txt"), kH200);
    for (const auto& tool : sanitizer_tools()) CHECK(item_score(r, "sanitizer: " + tool) == Approx(kSanitizerPoints));
}

TEST_CASE("a race only racecheck sees costs its class and the performance points", "[cpu][grading]") {
    const Rubric r = score(load_record("record_race_ch03.txt"), kH200);
    for (const auto& cls : size_classes()) CHECK(item_score(r, "correctness: " + cls) == Approx(kClassPoints));
    CHECK(item_score(r, "sanitizer: racecheck") == 0);
    CHECK(item_score(r, "sanitizer: memcheck") == Approx(kSanitizerPoints));
    CHECK(item_score(r, "performance vs reference") == 0);  // a fast racy kernel earns nothing
    CHECK(r.total() == Approx(4 * kClassPoints + 3 * kSanitizerPoints));
    for (const auto& i : r.items) {
        if (i.name != "sanitizer: racecheck") continue;
        // the tool's first message, the kernel and the shape
        CHECK(i.output.find("Race reported between") != std::string::npos);
        CHECK(i.output.find("race_kernel") != std::string::npos);
        CHECK(i.output.find("130x197 lda=200 ldb=136") != std::string::npos);
        CHECK(i.output.find("looped") != std::string::npos);
    }
}

TEST_CASE("sanitizer classes that did not run score nothing and say so", "[cpu][grading]") {
    const Rubric r = score(load_record("record_nosanitizer_ch03.txt"), kH200);
    for (const auto& tool : sanitizer_tools()) {
        CHECK(item_score(r, "sanitizer: " + tool) == 0);
        for (const auto& i : r.items)
            if (i.name == "sanitizer: " + tool) {
                CHECK(i.output.find("NOT RUN") != std::string::npos);
                CHECK(i.output.find("not scored as passed") != std::string::npos);
            }
    }
    // the classes that ran all passed: performance is scored
    CHECK(item_score(r, "performance vs reference") == Approx(kPerformancePoints));
    bool noted = false;
    for (const auto& n : r.notes) noted = noted || n.find("NOT RUN") != std::string::npos;
    CHECK(noted);
    // an older record without any sanitize line: not run either, never passed
    const Rubric old = score(load_record("record_oob_ch01.txt"), kH200);
    for (const auto& tool : sanitizer_tools()) CHECK(item_score(old, "sanitizer: " + tool) == 0);
}

TEST_CASE("a sanitizer class fails on wrong output and errors when the launcher throws", "[cpu][grading]") {
    Record rec = load_record("record_solution_ch03.txt");
    rec.sanitizers[2].result = "fail";  // synccheck: no finding, wrong output
    rec.sanitizers[2].msg = "3 wrong or unwritten values; first: B(0,1) = 0x0, expected 0x3f800000";
    rec.sanitizers[3].result = "error";
    rec.sanitizers[3].msg = "the launcher threw: not implemented";
    const Rubric r = score(rec, kH200);
    CHECK(item_score(r, "sanitizer: synccheck") == 0);
    CHECK(item_score(r, "sanitizer: initcheck") == 0);
    CHECK(item_score(r, "performance vs reference") == 0);
    for (const auto& i : r.items) {
        if (i.name == "sanitizer: synccheck") CHECK(i.output.find("output was wrong") != std::string::npos);
        if (i.name == "sanitizer: initcheck") CHECK(i.output.find("not implemented") != std::string::npos);
    }
}
