// CPU tests of the grader's outputs: escaping, Gradescope's results.json and JUnit XML.
#include "catch.hpp"
#include "grading_test_util.hpp"

#include <sstream>

using namespace wb::grade;
using namespace wb::grade::test;

namespace {
std::size_t count(const std::string& s, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
    return n;
}
}  // namespace

TEST_CASE("JSON and XML escaping", "[cpu][grading]") {
    CHECK(json_escape("a\"b\\c\nd\te\x01") == "a\\\"b\\\\c\\nd\\te\\u0001");
    CHECK(xml_escape("<a href=\"x\">&'</a>\x02") == "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
}

TEST_CASE("results.json lists every rubric item with its score", "[cpu][grading]") {
    Rubric r = score(load_record("record_oob_ch01.txt"), Thresholds{});
    std::ostringstream os;
    write_results_json(os, r);
    const std::string j = os.str();
    CHECK(j.find("\"score\": 0.0") != std::string::npos);
    CHECK(count(j, "\"max_score\"") == r.items.size());
    CHECK(j.find("\"name\": \"ch01_global correctness: small\"") != std::string::npos);
    CHECK(j.find("\n    ") != std::string::npos);
    CHECK(count(j, "{") == count(j, "}"));
    CHECK(j.find("read outside A") != std::string::npos);
    // every raw newline inside a string is escaped: the outputs carry several lines each
    CHECK(count(j, "\\n") >= 4);
}

TEST_CASE("JUnit XML marks items below their maximum as failures", "[cpu][grading]") {
    const Rubric r = score(load_record("record_slow_ch04.txt"), load_thresholds("thresholds_h200.txt"));
    std::ostringstream os;
    write_junit_xml(os, r);
    const std::string x = os.str();
    CHECK(x.rfind("<?xml", 0) == 0);
    CHECK(count(x, "<testcase ") == r.items.size());
    CHECK(count(x, "<failure ") == 1);  // only performance lost points
    CHECK(x.find("failures=\"1\"") != std::string::npos);
    CHECK(count(x, "<testsuite ") == count(x, "</testsuite>"));
}

TEST_CASE("the rubric table shows items, thresholds and the total", "[cpu][grading]") {
    const Rubric r = score(load_record("record_solution_ch03.txt"), load_thresholds("thresholds_h200.txt"));
    std::ostringstream os;
    print_rubric(os, r);
    const std::string t = os.str();
    CHECK(t.find("correctness: rectangular") != std::string::npos);
    CHECK(t.find("full points at speed >= 0.90x, none at <= 0.75x") != std::string::npos);
    CHECK(t.find("100.0") != std::string::npos);
    CHECK(t.find("GB/s") != std::string::npos);
}
