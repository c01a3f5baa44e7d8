// GPU test of the grader itself (label gpu): every stub scores zero, every solution full marks
// (the sanitizer classes included), every known-wrong submission of tests/grading/wrong/ zero
// points in the classes its "// grading: chapter=... zero=..." line names, and no performance
// points. Each variant is graded by the runner program in its own process, as scripts/grade.sh
// does, because a wrong kernel may fault and lose the CUDA context.
// Environment: WB_GRADING_ONLY=a,b,... grades only the variants (ref_*, stub_*, wrong_*) or
// wrong/ files named there; WB_GRADING_KEEP=DIR keeps each variant's record, logs and sanitizer
// logs in DIR/<variant>/ instead of deleting them.
#include "catch.hpp"

#include "grading.hpp"
#include "grading_test_util.hpp"

#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace wb::grade;
using namespace wb::grade::test;

namespace {

bool selected(const std::string& variant) {
    const char* only = std::getenv("WB_GRADING_ONLY");
    if (!only || !*only) return true;
    const std::string list = "," + std::string(only) + ",";
    const std::size_t us = variant.find('_');
    return list.find("," + variant + ",") != std::string::npos ||
           (us != std::string::npos && list.find("," + variant.substr(us + 1) + ",") != std::string::npos);
}

Rubric grade_variant(const std::string& variant, bool perf) {
    char dir_tmpl[] = "/tmp/wb_grading_XXXXXX";
    const char* keep = std::getenv("WB_GRADING_KEEP");
    std::string kept;
    if (keep && *keep) {
        kept = std::string(keep) + "/" + variant;
        REQUIRE(std::system(("mkdir -p \"" + kept + "\"").c_str()) == 0);
    }
    const char* dir = kept.empty() ? mkdtemp(dir_tmpl) : kept.c_str();
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
    if (kept.empty()) {
        const std::string rm = std::string("rm -rf \"") + dir + "\"";
        if (std::system(rm.c_str()) != 0) WARN("could not remove " << dir);
    }
    return r;
}

double item(const Rubric& r, const std::string& name) {
    for (const auto& i : r.items)
        if (i.name == name) return i.score;
    FAIL("no rubric item " << name);
    return -1;
}

double correctness(const Rubric& r) {
    double s = 0;
    for (const auto& i : r.items)
        if (i.name.rfind("correctness:", 0) == 0) s += i.score;
    return s;
}

bool sanitizers_ran(const Rubric& r) {
    for (const auto& i : r.items)
        if (i.name.rfind("sanitizer:", 0) == 0 && i.output.rfind("NOT RUN", 0) == 0) return false;
    return true;
}

std::string items(const Rubric& r) {
    std::string s;
    for (const auto& i : r.items) s += i.name + " " + std::to_string(i.score) + "/" + std::to_string(i.max_score) + ": " + i.output + "\n";
    return s;
}

}  // namespace

TEST_CASE("every solution scores full marks against itself", "[gpu][grading]") {
    for (const auto& ch : track_chapters()) {
        if (!selected("ref_" + ch)) continue;
        const Rubric r = grade_variant("ref_" + ch, true);
        INFO(ch << "\n" << items(r));
        CHECK(correctness(r) == Approx(4 * kClassPoints));
        if (!sanitizers_ran(r)) {
            WARN("compute-sanitizer not found: the sanitizer classes were not run (scored 0), full marks not checked");
            continue;
        }
        CHECK(r.total() == Approx(r.max_total()));
    }
}

TEST_CASE("every stub scores zero", "[gpu][grading]") {
    for (const auto& ch : track_chapters()) {
        if (!selected("stub_" + ch)) continue;
        const Rubric r = grade_variant("stub_" + ch, false);
        INFO(ch << "\n" << items(r));
        CHECK(r.total() == 0);
    }
}

TEST_CASE("every known-wrong submission scores zero in the classes that catch it", "[gpu][grading]") {
    const auto wrongs = wrong_variants(WB_GRADING_WRONG_DIR);
    REQUIRE(wrongs.size() >= 9);
    for (const auto& w : wrongs) {
        if (!selected("wrong_" + w.name)) continue;
        const Rubric r = grade_variant("wrong_" + w.name, false);
        INFO(w.name << " (graded as " << w.chapter << ")\n" << items(r));
        for (const auto& z : w.zero) {
            INFO("class " << z);
            if (z.rfind("sanitizer:", 0) == 0 && !sanitizers_ran(r)) {
                WARN(w.name << ": " << z << " not run (no compute-sanitizer): scored 0, not checked");
                continue;
            }
            CHECK(item(r, z) == 0);
        }
        CHECK(item(r, "performance vs reference") == 0);
        CHECK(r.total() < r.max_total());
    }
}
