// CPU tests of the op exercises' rubric (grading_op.hpp) on stand-in records: the classes each
// exercise brings, the record's strictness, the scoring (a failed class, a sanitizer finding, a
// slow but right submission: each below the pass mark with its cause), and the thresholds.
#include "catch.hpp"
#include "grading_op.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace wb::grade;

namespace {

OpRecord parse(const std::string& text) {
    std::istringstream in(text);
    return parse_op_record(in);
}

// Every class of gemv_batched passes, every tool is clean, as fast as the reference.
std::string solution_record() {
    std::string t = "wbgrade-op-record 1\nexercise gemv_batched\nvariant solution\nreference solution\n"
                    "device NVIDIA H200 (132 SMs)\ndate 2026-11-22T10:00:00Z\nseed 42\n";
    for (const auto& c : find_op_exercise("gemv_batched").classes)
        t += "case class=" + c + " result=pass msg=trans=N m=3 n=5 batch=2 lda=4 incx=2 incy=3 beta=0.5\n";
    t += "perf sub_ms=1.000 ref_ms=1.000 msg=16 products of 2048 x 2048\n";
    for (const auto& tool : sanitizer_tools()) t += "sanitize tool=" + tool + " result=pass\n";
    return t + "end\n";
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
    const auto at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
}

const RubricItem& item(const Rubric& r, const std::string& name) {
    for (const auto& i : r.items)
        if (i.name == name) return i;
    FAIL("no rubric item " << name);
    return r.items.front();
}

}  // namespace

TEST_CASE("op exercises: every one is registered, each with its edge classes", "[cpu][grading]") {
    REQUIRE(op_exercises().size() >= 6);
    for (const char* name : {"gemv_batched", "syrk", "separable", "gbmv", "spmv", "cg_jacobi"}) {
        const OpExerciseInfo ex = find_op_exercise(name);  // a copy: g++ 13 -Wdangling-reference
        CHECK(ex.classes.size() >= 5);
        CHECK(ex.chapter.rfind("ch0", 0) == 0);
        for (const auto& c : ex.classes) CHECK(c.find(' ') == std::string::npos);
    }
    const auto has = [](const std::string& ex, const std::string& c) {
        const auto& cl = find_op_exercise(ex).classes;
        return std::find(cl.begin(), cl.end(), c) != cl.end();
    };
    CHECK(has("gemv_batched", "beta0_poisoned"));
    CHECK(has("gemv_batched", "lda_gt_rows"));
    CHECK(has("gemv_batched", "offsets"));
    CHECK(has("syrk", "lower"));
    CHECK(has("syrk", "upper"));
    CHECK(has("gbmv", "odd_sizes"));
    CHECK(has("separable", "pitch_gt_cols"));
    CHECK(has("spmv", "lower"));
    CHECK(has("spmv", "upper"));
    CHECK(has("spmv", "beta0_poisoned"));
    CHECK(has("cg_jacobi", "padding"));
    CHECK_THROWS_WITH(find_op_exercise("gemm"), Catch::Contains("exercise (gemm) must be one of: gemv_batched"));
}

TEST_CASE("op record: round trip and strict parsing", "[cpu][grading]") {
    const OpRecord r = parse(solution_record());
    CHECK(r.complete);
    CHECK(r.exercise == "gemv_batched");
    CHECK(r.cases.size() == find_op_exercise("gemv_batched").classes.size());
    CHECK(r.sanitizers.size() == 4);
    CHECK(r.timed == "16 products of 2048 x 2048");
    std::ostringstream os;
    write_op_record(os, r);
    const OpRecord again = parse(os.str());
    CHECK(again.cases.size() == r.cases.size());
    CHECK(again.cases[2].text == r.cases[2].text);
    CHECK(again.sub_ms == Approx(r.sub_ms));
    CHECK(again.complete);

    CHECK_THROWS_AS(parse("wbgrade-record 1\n"), FormatError);
    CHECK_THROWS_WITH(parse(replace(solution_record(), "class=offsets", "class=triangles")),
                      Catch::Contains("class 'triangles' is not one of gemv_batched's"));
    CHECK_THROWS_WITH(parse(replace(solution_record(), "exercise gemv_batched", "exercise gemm")),
                      Catch::Contains("exercise (gemm) must be one of"));
    CHECK_THROWS_WITH(parse(replace(solution_record(), "result=pass msg=trans", "result=maybe msg=trans")),
                      Catch::Contains("result must be pass, fail or error"));
    CHECK_THROWS_WITH(parse(replace(solution_record(), "sanitize tool=racecheck", "sanitize tool=memcheck")),
                      Catch::Contains("tool memcheck given twice"));
    CHECK_THROWS_WITH(parse(replace(solution_record(), "ref_ms=1.000", "ref_ms=nan")), Catch::Contains("ref_ms"));
    CHECK_THROWS_WITH(parse(solution_record() + "case class=small result=pass msg=x\n"), Catch::Contains("text after 'end'"));
    CHECK_THROWS_WITH(parse("wbgrade-op-record 1\ncase class=small result=pass msg=x\n"),
                      Catch::Contains("a case before the 'exercise' line"));
}

TEST_CASE("op rubric: the solution's record earns full marks and passes", "[cpu][grading]") {
    const Rubric rb = score_op(parse(solution_record()), Thresholds{});
    CHECK(rb.max_total() == Approx(4 * kClassPoints + 4 * kSanitizerPoints + kPerformancePoints));
    CHECK(rb.total() == Approx(rb.max_total()));
    CHECK(rb.total() >= kPassMark);
    CHECK(rb.chapter == "ch01_global gemv_batched");
    CHECK(item(rb, "correctness: beta0_poisoned").score > 0);
    CHECK(item(rb, "performance vs reference").output.find("speed 1.00x the reference on 16 products") != std::string::npos);
}

TEST_CASE("op rubric: a failed class scores below the pass mark and names the case and finding", "[cpu][grading]") {
    const std::string bad = replace(solution_record(), "case class=lda_gt_rows result=pass msg=trans=N m=3 n=5 batch=2 lda=4 incx=2 incy=3 beta=0.5",
                                    "case class=lda_gt_rows result=fail msg=trans=N m=3 n=5 batch=2 lda=4 incx=2 incy=3 beta=0.5 "
                                    "(as written): wrong values: entry 1");
    const Rubric rb = score_op(parse(bad), Thresholds{});
    CHECK(item(rb, "correctness: lda_gt_rows").score == 0);
    CHECK(item(rb, "correctness: lda_gt_rows").output.find("0/1 cases pass; first fail: trans=N m=3") == 0);
    CHECK(item(rb, "correctness: lda_gt_rows").output.find("wrong values: entry 1") != std::string::npos);
    CHECK(item(rb, "correctness: small").score > 0);
    CHECK(item(rb, "performance vs reference").score == 0);  // needs every class
    CHECK(rb.total() < kPassMark);
}

TEST_CASE("op rubric: a sanitizer finding alone is below the pass mark", "[cpu][grading]") {
    const std::string racy = replace(solution_record(), "sanitize tool=racecheck result=pass",
                                     "sanitize tool=racecheck result=fail findings=3 kernel=k msg=Race reported between Write access");
    const Rubric rb = score_op(parse(racy), Thresholds{});
    CHECK(item(rb, "sanitizer: racecheck").score == 0);
    CHECK(item(rb, "sanitizer: racecheck").output.find("3 findings; the first in kernel k: Race reported") != std::string::npos);
    CHECK(item(rb, "performance vs reference").score == 0);
    CHECK(rb.total() < kPassMark);
}

TEST_CASE("op rubric: right but slow is below the pass mark; missing classes are not passed", "[cpu][grading]") {
    const Rubric slow = score_op(parse(replace(solution_record(), "sub_ms=1.000", "sub_ms=4.000")), Thresholds{});
    CHECK(item(slow, "performance vs reference").score == 0);
    CHECK(item(slow, "performance vs reference").output.find("speed 0.25x") != std::string::npos);
    CHECK(slow.total() < kPassMark);

    // A run that died after its first case: the other classes read NOT RUN and score 0.
    const std::string head = solution_record().substr(0, solution_record().find("case class=odd_sizes"));
    const Rubric died = score_op(parse(head + "abort msg=cudaErrorIllegalAddress\n"), Thresholds{});
    CHECK(item(died, "correctness: small").score > 0);
    CHECK(item(died, "correctness: odd_sizes").score == 0);
    CHECK(item(died, "correctness: odd_sizes").output.find("NOT RUN") != std::string::npos);
    CHECK(item(died, "correctness: odd_sizes").output.find("cudaErrorIllegalAddress") != std::string::npos);
    CHECK(item(died, "sanitizer: memcheck").output.find("NOT RUN") != std::string::npos);
    CHECK(died.total() < kPassMark);
}

TEST_CASE("op thresholds: an exercise line, its defaults, its calibration", "[cpu][grading]") {
    std::istringstream in("wbgrade-thresholds 1\nchapter ch02 full_at=0.9 zero_at=0.6\nexercise syrk full_at=0.8 zero_at=0.4\n");
    const Thresholds t = parse_thresholds(in, "test");
    CHECK(t.for_exercise("syrk").full_at == Approx(0.8));
    CHECK(t.for_exercise("gbmv").full_at == Approx(Threshold{}.full_at));
    CHECK(t.for_chapter("ch02_shared").full_at == Approx(0.9));
    std::istringstream bad("wbgrade-thresholds 1\nexercise gemm full_at=0.8 zero_at=0.4\n");
    CHECK_THROWS_WITH(parse_thresholds(bad, "test"), Catch::Contains("exercise (gemm) must be one of"));
    std::ostringstream os;
    write_thresholds(os, t, "dev", {});
    CHECK(os.str().find("exercise syrk full_at=0.800 zero_at=0.400") != std::string::npos);
    CHECK(derive_op_threshold(0.01).full_at == Approx(0.90));
    CHECK(derive_op_threshold(0.05).full_at == Approx(0.85));
    CHECK(derive_op_threshold(0.01).zero_at == Approx(0.5));
    // A slow submission in the thresholds' middle earns part of the points.
    OpRecord r = parse(solution_record());
    r.sub_ms = 1.0 / 0.7;
    CHECK(item(score_op(r, Thresholds{}), "performance vs reference").score == Approx(performance_points(0.7, Threshold{})));
}

TEST_CASE("op rubric: class points add up to 40 in tenths; a build failure scores the op's items at 0", "[cpu][grading]") {
    for (std::size_t n = 1; n <= 9; ++n) {
        const auto p = op_class_points(n);
        REQUIRE(p.size() == n);
        double sum = 0;
        for (double x : p) sum += x;
        CHECK(sum == Approx(4 * kClassPoints));
        CHECK(*std::max_element(p.begin(), p.end()) - *std::min_element(p.begin(), p.end()) <= 0.1 + 1e-9);
    }
    CHECK(op_class_points(6) == std::vector<double>{6.7, 6.7, 6.7, 6.7, 6.6, 6.6});
    CHECK_THROWS_WITH(op_class_points(0), Catch::Contains("classes (0) must be >= 1"));
    const Rubric rb = score_op_build_failure("syrk", "syrk.cu(3): error: expected a ';'");
    CHECK(rb.total() == 0);
    CHECK(rb.max_total() == Approx(4 * kClassPoints + 4 * kSanitizerPoints + kPerformancePoints));
    CHECK(item(rb, "correctness: lower").output.find("did not compile") != std::string::npos);
    CHECK(item(rb, "build").output.find("expected a ';'") != std::string::npos);
}

TEST_CASE("op exercises: grade.sh knows each registered exercise at its chapter, and its files exist", "[cpu][grading]") {
    const std::string root = std::string(WB_GRADING_DATA) + "/../../..";
    std::ifstream in(root + "/scripts/grade.sh");
    REQUIRE(in);
    std::stringstream script;
    script << in.rdbuf();
    REQUIRE(op_exercises().size() >= 10);
    const bool with_solutions = std::ifstream(root + "/solutions/ch01_global/transpose.cu").good();  // not in a hand-out
    for (const auto& ex : op_exercises()) {
        INFO(ex.name);
        CHECK(script.str().find("[" + ex.name + "]=" + ex.chapter) != std::string::npos);
        CHECK(std::ifstream(root + "/exercises/" + ex.chapter + "/" + ex.name + ".cu").good());
        if (with_solutions) CHECK(std::ifstream(root + "/solutions/" + ex.chapter + "/" + ex.name + ".cu").good());
    }
}
