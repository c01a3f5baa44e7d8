// CPU tests of grading a whole class: the per-student summary (items.tsv), the outcome of each
// student's run, and the class CSV (grading_class.hpp).
#include "catch.hpp"
#include "grading_class.hpp"
#include "grading_test_util.hpp"

#include <sstream>

using namespace wb::grade;
using namespace wb::grade::test;

namespace {

std::vector<ItemSummary> round_trip(const Rubric& r) {
    std::ostringstream os;
    write_items_tsv(os, r);
    std::istringstream is(os.str());
    return parse_items_tsv(is);
}

std::vector<std::string> lines_of(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream is(s);
    for (std::string l; std::getline(is, l);) out.push_back(l);
    return out;
}

ClassRow row(const std::string& student, int exit_code, const Rubric* r) {
    ClassRow c;
    c.student = student;
    c.exit_code = exit_code;
    if (r) {
        c.items = round_trip(*r);
        c.has_summary = true;
    }
    return c;
}

}  // namespace

TEST_CASE("items.tsv keeps every item's score, maximum and first line", "[cpu][grading]") {
    const Rubric r = score(load_record("record_oob_ch01.txt"), Thresholds{});
    const auto items = round_trip(r);
    REQUIRE(items.size() == r.items.size());
    for (std::size_t k = 0; k < items.size(); ++k) {
        CHECK(items[k].name == r.items[k].name);
        CHECK(items[k].score == Approx(r.items[k].score).margin(0.05));
        CHECK(items[k].max_score == Approx(r.items[k].max_score));
        CHECK(items[k].finding.find('\n') == std::string::npos);
        CHECK(r.items[k].output.rfind(items[k].finding, 0) == 0);
    }
}

TEST_CASE("a build failure's finding is the compiler's first error line", "[cpu][grading]") {
    const Rubric r = score_build_failure("ch02_shared", "In file included from x.cu:1:\nx.cu(7): error: identifier \"tile\" is undefined\n1 error detected");
    const auto items = round_trip(r);
    REQUIRE(items.front().name == "build");
    CHECK(items.front().finding == "x.cu(7): error: identifier \"tile\" is undefined");
}

TEST_CASE("items.tsv: malformed lines name the line", "[cpu][grading]") {
    for (const char* bad : {"correctness: small\t10.0\t10.0\n", "x\tten\t10.0\tf\n", "\t1.0\t10.0\tf\n",
                            "x\t12.0\t10.0\tf\n", "x\t-1\t10.0\tf\n"}) {
        std::istringstream is(std::string("# header\n") + bad);
        CHECK_THROWS_AS(parse_items_tsv(is), FormatError);
    }
    std::istringstream tabs("# header\nx\t1.0\t10.0\ta\tb\n");
    CHECK_THROWS_WITH(parse_items_tsv(tabs), Catch::Contains("line 2"));
}

TEST_CASE("each exit code of a student's run reads as its outcome", "[cpu][grading]") {
    CHECK(run_outcome(0, true) == RunOutcome::graded);
    CHECK(run_outcome(0, false) == RunOutcome::grader_error);
    CHECK(run_outcome(1, true) == RunOutcome::no_compile);
    CHECK(run_outcome(2, false) == RunOutcome::grader_error);
    CHECK(run_outcome(77, false) == RunOutcome::no_gpu);
    CHECK(run_outcome(124, false) == RunOutcome::timed_out);
    CHECK(run_outcome(137, false) == RunOutcome::timed_out);
    CHECK(run_outcome(139, false) == RunOutcome::crashed);
    CHECK(run_outcome(3, false) == RunOutcome::stopped);
    CHECK(run_outcome(-1, false) == RunOutcome::not_run);
    CHECK(outcome_text(RunOutcome::timed_out, 124, 120) == "timed out after 120 s");
    CHECK(outcome_text(RunOutcome::crashed, 139, 120) == "crashed (signal 11)");
    CHECK(outcome_text(RunOutcome::no_gpu, 77, 120) == "no GPU: not graded");
    // The student's doing scores 0; the machine's (no GPU, grader error) leaves the total empty.
    CHECK(outcome_scores_zero(RunOutcome::timed_out));
    CHECK(outcome_scores_zero(RunOutcome::no_compile));
    CHECK_FALSE(outcome_scores_zero(RunOutcome::no_gpu));
    CHECK_FALSE(outcome_scores_zero(RunOutcome::grader_error));
}

TEST_CASE("CSV cells: quoting and no formulas", "[cpu][grading]") {
    CHECK(csv_cell("alice") == "alice");
    CHECK(csv_cell("a,b") == "\"a,b\"");
    CHECK(csv_cell("say \"hi\"") == "\"say \"\"hi\"\"\"");
    CHECK(csv_cell("two\nlines") == "\"two\nlines\"");
    CHECK(csv_cell("=cmd()") == "'=cmd()");
    CHECK(csv_cell("-1+1") == "'-1+1");
}

TEST_CASE("the class CSV has one row per student, whatever happened to the run", "[cpu][grading]") {
    const Rubric solved = score(load_record("record_solution_ch03.txt"), Thresholds{});
    const Rubric race = score(load_record("record_race_ch03.txt"), Thresholds{});
    const Rubric nobuild = score_build_failure("ch03_pattern", "t.cu(3): error: expected a \";\"");
    const std::vector<ClassRow> rows = {row("alice", 0, &solved), row("bob", 0, &race), row("carol", 1, &nobuild),
                                        row("dave", 124, nullptr), row("erin", 77, nullptr),
                                        row("frank", 139, nullptr), row("gus, jr", 2, nullptr)};
    std::ostringstream os;
    write_class_csv(os, rows, 120);
    const auto l = lines_of(os.str());
    REQUIRE(l.size() == 1 + rows.size());
    CHECK(l[0] == "student,status,correctness: small,correctness: odd,correctness: large,correctness: rectangular,"
                  "sanitizer: memcheck,sanitizer: racecheck,sanitizer: synccheck,sanitizer: initcheck,"
                  "performance vs reference,total,max,findings");
    CHECK(l[1].rfind("alice,graded,10.0,10.0,10.0,10.0,5.0,5.0,5.0,5.0,", 0) == 0);
    CHECK(l[1].find("," + fixed(solved.total(), 1) + ",100.0,") != std::string::npos);
    // bob: the racecheck class names its cause
    CHECK(l[2].rfind("bob,graded,", 0) == 0);
    CHECK(l[2].find("sanitizer: racecheck: ") != std::string::npos);
    CHECK(l[2].find("," + fixed(race.total(), 1) + ",100.0,") != std::string::npos);
    // carol: zero, and the compiler's error rather than nine "not run" lines
    CHECK(l[3].rfind("carol,did not compile,0.0,", 0) == 0);
    CHECK(l[3].find(",0.0,100.0,") != std::string::npos);
    CHECK(l[3].find("build: t.cu(3): error") != std::string::npos);
    CHECK(l[3].find("not run") == std::string::npos);
    CHECK(l[4] == "dave,timed out after 120 s,,,,,,,,,,0.0,,timed out after 120 s");
    CHECK(l[5] == "erin,no GPU: not graded,,,,,,,,,,,,no GPU: not graded");
    CHECK(l[6] == "frank,crashed (signal 11),,,,,,,,,,0.0,,crashed (signal 11)");
    CHECK(l[7] == "\"gus, jr\",grader error (exit 2): rerun,,,,,,,,,,,,grader error (exit 2): rerun");
}
