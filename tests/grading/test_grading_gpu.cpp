// GPU test of the grader itself (label gpu): every stub scores zero, every solution full marks,
// every known-wrong submission (tests/grading/wrong/) zero correctness points. Each variant is
// graded by the runner program in its own process, as scripts/grade.sh does, because a wrong
// kernel may fault and lose the CUDA context.
#include "catch.hpp"

#include "grading.hpp"

#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace wb::grade;

namespace {

Rubric grade_variant(const std::string& variant, bool perf) {
    char dir_tmpl[] = "/tmp/wb_grading_XXXXXX";
    const char* dir = mkdtemp(dir_tmpl);
    REQUIRE(dir != nullptr);
    const std::string record = std::string(dir) + "/record.txt";
    const std::string cmd = std::string("\"") + WB_GRADING_RUNNER + "\" run --variant " + variant + " --record " +
                            record + (perf ? "" : " --no-perf") + " > " + dir + "/log.txt 2>&1";
    const int rc = std::system(cmd.c_str());
    INFO("command: " << cmd << " (exit " << rc << ")");
    REQUIRE(rc == 0);
    std::ifstream in(record);
    REQUIRE(in.good());
    Thresholds t;
    std::ifstream th(WB_GRADING_THRESHOLDS);
    if (th) t = parse_thresholds(th, WB_GRADING_THRESHOLDS);
    const Rubric r = score(parse_record(in), t);
    std::remove(record.c_str());
    std::remove((std::string(dir) + "/log.txt").c_str());
    rmdir(dir);
    return r;
}

double correctness(const Rubric& r) {
    double s = 0;
    for (const auto& i : r.items)
        if (i.name.rfind("correctness:", 0) == 0) s += i.score;
    return s;
}

std::string items(const Rubric& r) {
    std::string s;
    for (const auto& i : r.items) s += i.name + " " + std::to_string(i.score) + "/" + std::to_string(i.max_score) + ": " + i.output + "\n";
    return s;
}

}  // namespace

TEST_CASE("every solution scores full marks against itself", "[gpu][grading]") {
    for (const auto& ch : track_chapters()) {
        const Rubric r = grade_variant("ref_" + ch, true);
        INFO(ch << "\n" << items(r));
        CHECK(correctness(r) == Approx(4 * kClassPoints));
        CHECK(r.total() == Approx(r.max_total()));
    }
}

TEST_CASE("every stub scores zero", "[gpu][grading]") {
    for (const auto& ch : track_chapters()) {
        const Rubric r = grade_variant("stub_" + ch, false);
        INFO(ch << "\n" << items(r));
        CHECK(r.total() == 0);
    }
}

TEST_CASE("every known-wrong submission gets zero correctness points", "[gpu][grading]") {
    for (const char* w : {"missing_barrier", "unguarded_edge", "swapped_indices", "hardcoded_size", "oob_read"}) {
        const Rubric r = grade_variant(std::string("wrong_") + w, false);
        INFO(w << "\n" << items(r));
        CHECK(correctness(r) == 0);
        CHECK(r.total() == 0);
    }
}
