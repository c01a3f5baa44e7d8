// CPU tests of chapter 6's reading of the shared options (chapters/runner/derived_options) and of
// the cases they select in compare_op: --op checked before anything is printed, --sizes and
// --trans applied to the cases, and a note for each option a run cannot apply (none ignored silently).
#include "catch.hpp"

#include "derived_comparison.hpp"
#include "derived_launch.hpp"
#include "derived_options.hpp"
#include "derived_shapes.hpp"
#include "gemv_rules.hpp"
#include "step.hpp"
#include "symv.hpp"
#include "tuned/conv2d_rules.hpp"
#include "tuned/gemm_default_rule.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

std::string invalid_message(const wb::ChapterOptions& opt) {
    try {
        wb::ch06::case_selection(opt);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string invalid_message_flags(const wb::ChapterOptions& opt, bool shapes, bool wave_tail) {
    try {
        wb::ch06::case_selection(opt, shapes, wave_tail);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

bool any_contains(const std::vector<std::string>& v, const std::string& part) {
    return std::any_of(v.begin(), v.end(), [&](const std::string& s) { return contains(s, part); });
}

}  // namespace

TEST_CASE("chapter 6 options: --op names compared ops, --sizes in [1, 65536]", "[cpu][ch06][cli]") {
    wb::ChapterOptions opt;
    CHECK(invalid_message(opt).empty());
    opt.op = "gemv,cg";
    CHECK(invalid_message(opt).empty());
    opt.op = "symv,gemv,symv";  // each op's cases once, in the order given
    CHECK(wb::ch06::case_selection(opt).ops == std::vector<std::string>{"symv", "gemv"});
    opt.op = "all";
    CHECK(wb::ch06::case_selection(opt).ops == wb::ch06::compared_ops());
    opt.op = "gemv,foo";
    const std::string m = invalid_message(opt);
    CHECK(contains(m, "--op (gemv,foo)"));
    CHECK(contains(m, "\"foo\" is not one"));
    CHECK(contains(m, "gemv, gemm, conv2d, symv, cg"));
    opt.op = "all,gemv";  // "all" alone, not in a list
    CHECK(contains(invalid_message(opt), "--op"));
    opt.op = "all";
    for (int bad : {0, -4, wb::ch06::kMaxSize + 1}) {
        opt.sizes = {1024, bad};
        INFO(bad);
        const std::string s = invalid_message(opt);
        CHECK(contains(s, "--sizes (" + std::to_string(bad) + ", entry 2)"));
        CHECK(contains(s, "[1, 65536]"));
    }
}

TEST_CASE("chapter 6 options: --sizes and --trans select the cases", "[cpu][ch06][cli]") {
    wb::ChapterOptions opt;
    opt.sizes = {1000, 1000, 64};
    opt.trans = "T";
    const wb::ch06::CaseSelection cs = wb::ch06::case_selection(opt);
    CHECK(cs.sizes == std::vector<long long>{1000, 64});  // each size once
    CHECK_FALSE(cs.op_n);
    CHECK(cs.op_t);

    const wb::DeviceProfile h200 = wb::device_preset("h200");
    const auto gemv = wb::ch06::compare_op("gemv", h200, {4}, false, false, cs);
    REQUIRE(gemv.size() == 2);
    CHECK(gemv[0].derived.shape.rfind("T 1000 x 1000", 0) == 0);
    CHECK(gemv[1].derived.shape.rfind("T 64 x 64", 0) == 0);
    // Without --sizes and --trans: the page's three GEMV shapes.
    CHECK(wb::ch06::compare_op("gemv", h200, {4}).size() == 3);
    opt.trans = "N";
    opt.sizes.clear();
    const auto n_only = wb::ch06::compare_op("gemv", h200, {4, 8}, false, false, wb::ch06::case_selection(opt));
    CHECK(n_only.size() == 4);  // N 4096^2 and N 579 x 57900, float and double
    for (const auto& c : n_only) CHECK(c.derived.shape.rfind("N ", 0) == 0);

    wb::ch06::CaseSelection one;
    one.sizes = {2000};
    CHECK(wb::ch06::compare_op("gemm", h200, {4}, false, false, one).size() == 1);
    CHECK(wb::ch06::compare_op("conv2d", h200, {4}, false, false, one).size() == 4);  // FS 3, 7, 17, 63
    const auto symv = wb::ch06::compare_op("symv", h200, {8}, false, false, one);
    REQUIRE(symv.size() == 1);
    CHECK(contains(symv[0].derived.shape, "2000"));
    CHECK(wb::ch06::compare_op("cg", h200, {8}, false, false, one).size() == 1);
}

TEST_CASE("chapter 6: every op at the edges of --sizes on every preset", "[cpu][ch06][derive]") {
    wb::ch06::CaseSelection cs;
    cs.sizes = {1, 3, 17, 100, 579, 65536};
    for (const std::string& preset : wb::device_preset_names())
        for (const std::string& op : wb::ch06::compared_ops()) {
            INFO(preset << " " << op);
            std::vector<wb::ch06::Comparison> rows;
            REQUIRE_NOTHROW(rows = wb::ch06::compare_op(op, wb::device_preset(preset), {4, 8}, false, false, cs));
            CHECK(!rows.empty());
            for (const auto& c : rows) CHECK(!c.default_launch.empty());
        }
}

TEST_CASE("chapter 6 options: --launches-csv needs --sweep or --wave-tail and a writable path", "[cpu][ch06][cli]") {
    using Catch::Matchers::Contains;
    CHECK_NOTHROW(wb::ch06::check_launches_csv("", false, false));  // not given: nothing to check
    CHECK_THROWS_WITH(wb::ch06::check_launches_csv("launches.csv", false, false),
                      Contains("--launches-csv (launches.csv)") && Contains("needs --sweep or --wave-tail"));
    CHECK_NOTHROW(wb::ch06::check_launches_csv("launches.csv", true, false));
    CHECK_NOTHROW(wb::ch06::check_launches_csv("launches.csv", false, true));
    CHECK_THROWS_WITH(wb::ch06::check_launches_csv("/no-such-folder-wb/launches.csv", true, false),
                      Contains("--launches-csv (/no-such-folder-wb/launches.csv) cannot be written"));
    CHECK_THROWS_WITH(wb::ch06::check_launches_csv("/", false, true), Contains("it is a folder"));
}

TEST_CASE("chapter 6 options: a note for each option a run cannot apply", "[cpu][ch06][cli]") {
    wb::ChapterOptions opt;
    CHECK(wb::ch06::option_notes(opt, false, false).empty());
    CHECK(wb::ch06::option_notes(opt, true, true).empty());
    CHECK(any_contains(wb::ch06::option_notes(opt, false, true), "--sweep"));
    opt.full = true;
    CHECK(any_contains(wb::ch06::option_notes(opt, true, false), "--full"));
    opt.full = false;
    opt.quick = true;
    CHECK(any_contains(wb::ch06::option_notes(opt, false, false), "--quick"));
    CHECK(wb::ch06::option_notes(opt, true, false).empty());  // on a GPU --quick shortens the timings
    opt.quick = false;
    opt.device = 2;
    CHECK(any_contains(wb::ch06::option_notes(opt, false, false), "--device 2"));
    opt.device = 0;
    opt.trans = "T";
    CHECK(any_contains(wb::ch06::option_notes(opt, false, false), "GEMM"));
    opt.op = "gemv";
    CHECK(wb::ch06::option_notes(opt, false, false).empty());  // --trans applies to every case run
    CHECK(any_contains(wb::ch06::option_notes(opt, false, true, false, "l.csv"), "--launches-csv l.csv"));
    CHECK(!any_contains(wb::ch06::option_notes(opt, true, true, false, "l.csv"), "--launches-csv"));  // a GPU sweeps
}

TEST_CASE("chapter 6 options: --shapes and --wave-tail select their sets", "[cpu][ch06][cli]") {
    wb::ChapterOptions opt;
    const wb::ch06::CaseSelection held = wb::ch06::case_selection(opt, true, false);
    CHECK(held.shapes);
    CHECK(held.ops == wb::ch06::compared_ops());
    // At least 12 shapes per op (issue 40, item 4), none of them the page's.
    CHECK(wb::ch06::gemv_cases_of(held).size() >= 12);
    CHECK(wb::ch06::gemm_cases_of(held).size() >= 12);
    CHECK(wb::ch06::conv2d_cases_of(held).size() >= 12);
    CHECK(wb::ch06::symv_cases_of(held).size() >= 12);
    CHECK(wb::ch06::cg_cases_of(held).size() >= 12);
    for (const auto& c : wb::ch06::gemm_cases_of(held)) CHECK(!(c.m == 4096 && c.n == 4096 && c.k == 4096));
    // The wave tail: GEMV and SYMV only, n = 64 k.
    const wb::ch06::CaseSelection tail = wb::ch06::case_selection(opt, false, true);
    CHECK(tail.ops == std::vector<std::string>{"gemv", "symv"});
    for (const auto& c : wb::ch06::gemv_cases_of(tail)) CHECK(c.n % 64 == 0);
    for (const auto& c : wb::ch06::symv_cases_of(tail)) CHECK(c.n % 64 == 0);
    CHECK(wb::ch06::symv_cases_of(tail).size() >= 40);
    // Usage errors: two sets at once, or a wave tail of no op it runs.
    CHECK(contains(invalid_message_flags(opt, true, true), "--shapes and --wave-tail"));
    opt.sizes = {1000};
    CHECK(contains(invalid_message_flags(opt, true, false), "--shapes and --sizes"));
    CHECK(contains(invalid_message_flags(opt, false, true), "--wave-tail and --sizes"));
    opt.sizes.clear();
    opt.op = "gemm,cg";
    CHECK(contains(invalid_message_flags(opt, false, true), "must name gemv or symv"));
    opt.op = "all";
    CHECK(any_contains(wb::ch06::option_notes(opt, false, false, true), "--wave-tail"));
}

TEST_CASE("chapter 6: every derived launch of the held-out sets and the wave tail is in its step's legal list",
          "[cpu][ch06][derive]") {
    // The sweep is the derivation's oracle only if it can reach every launch the rules give
    // (issue 40, item 2): on the h200 preset (the profile the tuned steps derive for without a
    // GPU), each held-out case's derived launch is one of the tuned step's legal launches.
    const wb::DeviceProfile h200 = wb::device_preset("h200");
    wb::ch06::CaseSelection held, tail;
    held.shapes = true;
    tail.wave_tail = true;
    for (int elem : {4, 8}) {
        std::vector<wb::ch06::GemvCase> gemv = wb::ch06::gemv_cases_of(held), gemv_tail = wb::ch06::gemv_cases_of(tail);
        gemv.insert(gemv.end(), gemv_tail.begin(), gemv_tail.end());
        std::vector<wb::ch06::SquareCase> symv = wb::ch06::symv_cases_of(held), symv_tail = wb::ch06::symv_cases_of(tail);
        symv.insert(symv.end(), symv_tail.begin(), symv_tail.end());
        for (const auto& s : gemv) {
            const wb::GemvShape call{s.trans ? wb::Op::T : wb::Op::N, s.m, s.n, s.lda, elem, 0, 0};
            const wb::GemvLaunch l = wb::ch06::gemv_launch_of(wb::ch06::derive_gemv_call(h200, call), s.trans);
            const auto v = wb::tuned_gemv_launches(call);
            INFO((s.trans ? "T " : "N ") << s.m << " x " << s.n << " lda " << s.lda << " elem " << elem << ": " << l.str());
            CHECK(std::find(v.begin(), v.end(), l) != v.end());
        }
        for (const auto& s : symv) {
            const wb::SymvLaunch l = wb::ch06::symv_launch_of(wb::ch06::derive_symv_call(h200, s.n, s.lda, elem));
            const auto v = elem == 4 ? wb::tuned::symv_configs<float>() : wb::tuned::symv_configs<double>();
            INFO("symv " << s.n << " lda " << s.lda << " elem " << elem << ": " << l.str());
            CHECK(std::find(v.begin(), v.end(), l) != v.end());
        }
        for (const auto& s : wb::ch06::conv2d_cases_of(held)) {
            const wb::Conv2dLaunch l = wb::tuned::conv2d_launch_of(wb::ch06::derive_conv2d_call(h200, s.rows, s.cols, s.fs, elem));
            const auto v = elem == 4 ? wb::tuned::conv2d_configs<float>(s.fs) : wb::tuned::conv2d_configs<double>(s.fs);
            INFO("conv2d " << s.rows << " x " << s.cols << " FS " << s.fs << " elem " << elem << ": " << l.str());
            CHECK(std::find(v.begin(), v.end(), l) != v.end());
        }
    }
    for (const auto& s : wb::ch06::gemm_cases_of(held)) {
        wb::GemmArgs<float> a;
        a.m = s.m, a.n = s.n, a.k = s.k;
        a.lda = s.m + s.ld_extra, a.ldb = s.k + s.ld_extra, a.ldc = s.m;
        const wb::GemmLaunch l = wb::ch06::derive_gemm_call<float>(h200, a, false).launch;
        const auto v = wb::tuned::gemm_launches(a);
        INFO("gemm " << s.m << " x " << s.n << " x " << s.k << ": " << l.str());
        CHECK(std::find(v.begin(), v.end(), l) != v.end());
    }
}
