// CPU tests of the grading record: the case list's design, writing and parsing records, and the
// strict rejection of malformed ones (tests/grading/data holds recorded files).
#include "catch.hpp"
#include "grading_test_util.hpp"

#include <set>
#include <sstream>

using namespace wb::grade;
using namespace wb::grade::test;

namespace {
const std::string kHead =
    "wbgrade-record 1\nchapter ch02_shared\nvariant sub_ch02_shared\nreference ref_ch02_shared\n";
}

TEST_CASE("every size class holds the shapes that expose size-specific defects", "[cpu][grading]") {
    for (const auto& cls : size_classes()) {
        bool wide = false, tall = false, padded = false, odd = false;
        int n = 0;
        for (const auto& c : graded_cases()) {
            if (c.size_class != cls) continue;
            ++n;
            wide = wide || c.rows < c.cols;
            tall = tall || c.rows > c.cols;
            padded = padded || c.lda > c.cols || c.ldb > c.rows;
            odd = odd || c.rows % 32 != 0 || c.cols % 32 != 0;
            REQUIRE(c.lda >= std::max(1, c.cols));
            REQUIRE(c.ldb >= std::max(1, c.rows));
        }
        INFO("class " << cls);
        CHECK(n >= 4);
        CHECK(wide);
        CHECK(tall);
        CHECK(padded);
        CHECK(odd);
    }
    // A submission hard-coded to one graded size passes at most that case, never a whole class.
    std::set<std::string> labels;
    for (const auto& c : graded_cases()) labels.insert(c.label());
    CHECK(labels.size() == graded_cases().size());
}

TEST_CASE("a written record parses back to the same content", "[cpu][grading]") {
    Record r;
    r.chapter = "ch04_access";
    r.variant = "sub_ch04_access";
    r.reference = "ref_ch04_access";
    r.device = "NVIDIA H100 80GB HBM3 (132 SMs)";
    r.date = "2026-11-22T10:00:00Z";
    r.seed = "17";
    r.cases.push_back({graded_cases()[3], "fail", "run 2: 5 wrong values;\nfirst: B(1,2) = 0x1, expected 0x2"});
    r.cases.push_back({graded_cases()[0], "pass", ""});
    r.perf.push_back({perf_shapes()[0], 0.25, 0.125, 0.5, 0.1});
    r.extras.push_back({"transpose_diagonal", "pass", 0.13, 0.12, ""});
    SanitizerResult z;
    z.tool = "racecheck";
    z.result = "fail";
    z.findings = 2;
    z.has_case = true;
    z.c = sanitizer_cases()[1];
    z.grid = "looped";
    z.kernel = "void wb::ex::sub::(anonymous namespace)::k<(bool)0>(float const*, int)";
    z.msg = "Error: Race reported between Write access at k+0x10 in a.cu:3\nand Read access at k+0x20";
    r.sanitizers.push_back(z);
    SanitizerResult none;
    none.tool = "memcheck";
    none.result = "notrun";
    none.msg = "compute-sanitizer not found";
    r.sanitizers.push_back(none);
    r.complete = true;
    std::ostringstream os;
    write_record(os, r);
    const Record back = parse_text(os.str());
    CHECK(back.chapter == r.chapter);
    CHECK(back.device == r.device);
    CHECK(back.seed == "17");
    REQUIRE(back.cases.size() == 2);
    CHECK(back.cases[0].c == graded_cases()[3]);
    CHECK(back.cases[0].result == "fail");
    CHECK(back.cases[0].msg == "run 2: 5 wrong values; first: B(1,2) = 0x1, expected 0x2");  // newline flattened
    REQUIRE(back.perf.size() == 1);
    CHECK(back.perf[0].sub_ms == Approx(0.25));
    CHECK(back.perf[0].ref_ms == Approx(0.125));
    CHECK(back.perf[0].prev_ms == Approx(0.5));
    REQUIRE(back.extras.size() == 1);
    CHECK(back.extras[0].ms == Approx(0.13));
    REQUIRE(back.sanitizers.size() == 2);
    CHECK(back.sanitizers[0].tool == "racecheck");
    CHECK(back.sanitizers[0].result == "fail");
    CHECK(back.sanitizers[0].findings == 2);
    CHECK(back.sanitizers[0].has_case);
    CHECK(back.sanitizers[0].c == sanitizer_cases()[1]);
    CHECK(back.sanitizers[0].grid == "looped");
    CHECK(back.sanitizers[0].kernel == "wb::ex::sub::(anonymous)::k<(bool)0>");  // shortened, no spaces
    CHECK(back.sanitizers[0].msg == "Error: Race reported between Write access at k+0x10 in a.cu:3 and Read access at k+0x20");
    CHECK(back.sanitizers[1].result == "notrun");
    CHECK_FALSE(back.sanitizers[1].has_case);
    CHECK(back.complete);
}

TEST_CASE("recorded files parse", "[cpu][grading]") {
    const Record sol = load_record("record_solution_ch03.txt");
    CHECK(sol.chapter == "ch03_pattern");
    CHECK(sol.cases.size() == graded_cases().size());
    CHECK(sol.perf.size() == perf_shapes().size());
    CHECK(sol.complete);
    const Record crash = load_record("record_crash_ch01.txt");
    CHECK(crash.cases.size() == 8);
    CHECK_FALSE(crash.abort_msg.empty());
    const Record cut = load_record("record_truncated_ch05.txt");
    CHECK_FALSE(cut.complete);
    CHECK(cut.cases.size() == 13);
}

TEST_CASE("malformed records are rejected with the line named", "[cpu][grading]") {
    const std::string good_case = "case class=small rows=3 cols=5 lda=5 ldb=3 result=pass\n";
    const std::vector<std::pair<const char*, std::string>> bad = {
        {"empty", ""},
        {"no header", "chapter ch02_shared\n"},
        {"wrong version", "wbgrade-record 2\n"},
        {"unknown line", kHead + "speed 1.0\n"},
        {"unknown key", kHead + "case class=small rows=3 cols=5 lda=5 ldb=3 result=pass colour=red\n"},
        {"missing key", kHead + "case class=small rows=3 cols=5 lda=5 result=pass\n"},
        {"not an integer", kHead + "case class=small rows=3x cols=5 lda=5 ldb=3 result=pass\n"},
        {"negative size", kHead + "case class=small rows=-3 cols=5 lda=5 ldb=3 result=pass\n"},
        {"ungraded case", kHead + "case class=small rows=4 cols=5 lda=5 ldb=4 result=pass\n"},
        {"wrong class", kHead + "case class=large rows=3 cols=5 lda=5 ldb=3 result=pass\n"},
        {"duplicate case", kHead + good_case + good_case},
        {"bad result", kHead + "case class=small rows=3 cols=5 lda=5 ldb=3 result=ok\n"},
        {"time not a number", kHead + "perf shape=8192x8192 sub_ms=fast ref_ms=0.1\n"},
        {"time NaN", kHead + "perf shape=8192x8192 sub_ms=nan ref_ms=0.1\n"},
        {"time infinite", kHead + "perf shape=8192x8192 sub_ms=0.1 ref_ms=inf\n"},
        {"time negative", kHead + "perf shape=8192x8192 sub_ms=-0.1 ref_ms=0.1\n"},
        {"time zero", kHead + "perf shape=8192x8192 sub_ms=0 ref_ms=0.1\n"},
        {"time trailing junk", kHead + "perf shape=8192x8192 sub_ms=0.1ms ref_ms=0.1\n"},
        {"unknown shape", kHead + "perf shape=100x100 sub_ms=0.1 ref_ms=0.1\n"},
        {"duplicate shape",
         kHead + "perf shape=8192x8192 sub_ms=0.1 ref_ms=0.1\nperf shape=8192x8192 sub_ms=0.1 ref_ms=0.1\n"},
        {"duplicate key", kHead + "perf shape=8192x8192 sub_ms=0.1 sub_ms=0.2 ref_ms=0.1\n"},
        {"field without =", kHead + "perf shape=8192x8192 sub_ms 0.1 ref_ms=0.1\n"},
        {"text after end", kHead + "end\n" + good_case},
        {"end with fields", kHead + "end now\n"},
        {"chapter twice", kHead + "chapter ch02_shared\n"},
        {"unknown chapter", "wbgrade-record 1\nchapter ch09_magic\nvariant v\nreference r\n"},
        {"short chapter name", "wbgrade-record 1\nchapter ch02\nvariant v\nreference r\n"},
        {"no variant line", "wbgrade-record 1\nchapter ch02_shared\nreference r\n"},
        {"extra without name", kHead + "extra result=pass\n"},
        {"unknown tool", kHead + "sanitize tool=helgrind result=pass\n"},
        {"tool twice", kHead + "sanitize tool=memcheck result=pass\nsanitize tool=memcheck result=pass\n"},
        {"bad sanitize result", kHead + "sanitize tool=memcheck result=clean\n"},
        {"sanitize without tool", kHead + "sanitize result=pass\n"},
        {"partial shape", kHead + "sanitize tool=memcheck result=fail rows=130 cols=197\n"},
        {"unsanitized shape", kHead + "sanitize tool=memcheck result=fail rows=3 cols=5 lda=5 ldb=3\n"},
        {"bad grid", kHead + "sanitize tool=memcheck result=fail rows=67 cols=65 lda=67 ldb=69 grid=wide\n"},
        {"grid without shape", kHead + "sanitize tool=memcheck result=fail grid=looped\n"},
        {"findings not a number", kHead + "sanitize tool=memcheck result=fail findings=many\n"},
    };
    for (const auto& [name, text] : bad) {
        INFO("malformed record: " << name);
        CHECK_THROWS_AS(parse_text(text), FormatError);
    }
    CHECK_THROWS_WITH(parse_text(kHead + "perf shape=8192x8192 sub_ms=nan ref_ms=0.1\n"),
                      Catch::Contains("line 5") && Catch::Contains("sub_ms"));
}

TEST_CASE("comments, blank lines and CRLF endings are accepted", "[cpu][grading]") {
    const Record r = parse_text("# a comment\r\n\r\nwbgrade-record 1\r\nchapter ch01_global\r\nvariant v\r\n"
                                "reference ref_ch01_global\r\ncase class=small rows=1 cols=1 lda=1 ldb=1 "
                                "result=fail msg=x = y, z\r\nend\r\n");
    REQUIRE(r.cases.size() == 1);
    CHECK(r.cases[0].msg == "x = y, z");
    CHECK(r.complete);
}
