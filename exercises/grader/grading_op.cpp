// The op exercises' rubric (grading_op.hpp): registry, record, scoring.
#include "grading_op.hpp"

#include "grading_parse.hpp"

#include <algorithm>
#include <cmath>
#include <istream>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace wb::grade {

namespace {

std::string one_line(std::string s) {
    std::replace(s.begin(), s.end(), '\n', ' ');
    std::replace(s.begin(), s.end(), '\r', ' ');
    return s;
}

bool known_result(const std::string& r) { return r == "pass" || r == "fail" || r == "error"; }

}  // namespace

const std::vector<OpExerciseInfo>& op_exercises() {
    // The classes' cases are chosen in tests/grading/op_classes.cpp; every class holds at least one.
    static const std::vector<OpExerciseInfo> v = {
        {"gemv_batched", "ch01_global",
         {"small", "odd_sizes", "lda_gt_rows", "offsets", "beta0_poisoned", "transposed"}},
        {"syrk", "ch02_shared",
         {"small", "odd_sizes", "ld_gt_rows", "beta0_poisoned", "lower", "upper", "quick_return"}},
        {"separable", "ch02_shared", {"small", "odd_sizes", "pitch_gt_cols", "wide_filter", "thin", "large"}},
        {"gbmv", "ch03_pattern",
         {"small", "odd_sizes", "lda_gt_band", "offsets", "beta0_poisoned", "transposed", "wide_bands", "many_blocks"}},
        {"spmv", "ch03_pattern", {"small", "odd_sizes", "beta0_poisoned", "lower", "upper", "many_columns"}},
        {"cg_jacobi", "ch04_access", {"small", "empty", "padding", "no_padding", "few_blocks", "large"}},
        {"separable_padded", "ch04_access",
         {"small", "odd_sizes", "partial_float4", "pitch_gt_cols", "wide_filter", "thin", "large"}},
        {"spmv_workspace", "ch04_access", {"small", "odd_sizes", "beta0_poisoned", "lower", "upper", "many_columns"}},
        {"syrk_regblock", "ch05_unrolled",
         {"small", "odd_sizes", "ld_gt_rows", "beta0_poisoned", "lower", "upper", "quick_return"}},
        {"cg_graph", "ch05_unrolled", {"small", "odd_sizes", "lda_gt_n", "no_iterations", "many_iterations", "many_rows"}},
    };
    return v;
}

const OpExerciseInfo& find_op_exercise(const std::string& name) { return find_named(op_exercises(), name, "exercise"); }

void write_op_record_header(std::ostream& os, const OpRecord& r) {
    os << "wbgrade-op-record 1\n"
       << "exercise " << r.exercise << "\n"
       << "variant " << r.variant << "\n"
       << "reference " << (r.reference.empty() ? "none" : r.reference) << "\n"
       << "device " << one_line(r.device) << "\n"
       << "date " << r.date << "\n"
       << "seed " << r.seed << "\n"
       << std::flush;
}

void write_op_case(std::ostream& os, const OpCaseResult& c) {
    os << "case class=" << c.shape_class << " result=" << c.result << " msg=" << one_line(c.text) << "\n" << std::flush;
}

void write_op_perf(std::ostream& os, const std::string& timed, double sub_ms, double ref_ms) {
    os << "perf sub_ms=" << fixed(sub_ms, 6) << " ref_ms=" << fixed(ref_ms, 6) << " msg=" << one_line(timed) << "\n"
       << std::flush;
}

void write_op_sanitizer(std::ostream& os, const SanitizerResult& s) {
    SanitizerResult z = s;
    z.has_case = false;  // an op's shape is named in the message
    write_sanitizer(os, z);
}

void write_op_record(std::ostream& os, const OpRecord& r) {
    write_op_record_header(os, r);
    for (const auto& c : r.cases) write_op_case(os, c);
    if (!r.timed.empty()) write_op_perf(os, r.timed, r.sub_ms, r.ref_ms);
    for (const auto& z : r.sanitizers) write_op_sanitizer(os, z);
    if (!r.abort_msg.empty()) write_abort(os, r.abort_msg);
    if (r.complete) write_end(os);
}

OpRecord parse_op_record(std::istream& is) {
    using namespace detail;
    OpRecord r;
    Entry e;
    const int& n = e.n;
    const std::string &line = e.line, &kind = e.kind, &rest = e.rest;
    bool header = false;
    const OpExerciseInfo* ex = nullptr;
    std::set<std::string> seen_keys, seen_tools;
    while (next_record_entry(is, e, header, r.complete, "wbgrade-op-record", "an op grading record")) {
        if (kind == "exercise" || kind == "variant" || kind == "reference" || kind == "device" || kind == "date" ||
            kind == "seed") {
            if (!seen_keys.insert(kind).second) bad("'" + kind + "' given twice", n, line);
            if (kind == "exercise") {
                try {
                    ex = &find_op_exercise(rest);
                } catch (const std::invalid_argument& err) {
                    bad(err.what(), n, line);
                }
                r.exercise = rest;
            }
            if (kind == "variant") r.variant = rest;
            if (kind == "reference") r.reference = rest;
            if (kind == "device") r.device = rest;
            if (kind == "date") r.date = rest;
            if (kind == "seed") r.seed = rest;
        } else if (kind == "case") {
            if (!ex) bad("a case before the 'exercise' line", n, line);
            const auto f = fields(rest, n, line);
            only(f, {"class", "result", "msg"}, n, line);
            OpCaseResult c;
            c.shape_class = need(f, "class", n, line);
            if (std::find(ex->classes.begin(), ex->classes.end(), c.shape_class) == ex->classes.end())
                bad("class '" + c.shape_class + "' is not one of " + ex->name + "'s", n, line);
            c.result = need(f, "result", n, line);
            if (!known_result(c.result)) bad("result must be pass, fail or error", n, line);
            c.text = need(f, "msg", n, line);
            r.cases.push_back(c);
        } else if (kind == "perf") {
            if (!r.timed.empty()) bad("'perf' given twice", n, line);
            const auto f = fields(rest, n, line);
            only(f, {"sub_ms", "ref_ms", "msg"}, n, line);
            r.sub_ms = number(need(f, "sub_ms", n, line), "sub_ms", n, line);
            r.ref_ms = number(need(f, "ref_ms", n, line), "ref_ms", n, line);
            r.timed = need(f, "msg", n, line);
            if (r.timed.empty()) bad("perf needs msg=<the timed case>", n, line);
        } else if (kind == "sanitize") {
            const auto f = fields(rest, n, line);
            only(f, {"tool", "result", "findings", "kernel", "msg"}, n, line);
            r.sanitizers.push_back(sanitize_fields(f, seen_tools, n, line));
        } else if (kind == "abort") {
            const auto f = fields(rest, n, line);
            only(f, {"msg"}, n, line);
            r.abort_msg = need(f, "msg", n, line);
        } else if (kind == "end") {
            r.complete = true;
        } else {
            bad("unknown line '" + kind + "'", n, line);
        }
    }
    if (!header) throw FormatError("empty op record (no 'wbgrade-op-record 1' line)");
    if (!ex) throw FormatError("the op record names no exercise");
    return r;
}

Rubric score_op(const OpRecord& r, const Thresholds& t) {
    const OpExerciseInfo& ex = find_op_exercise(r.exercise);
    Rubric rb;
    rb.chapter = ex.chapter + " " + ex.name;
    rb.variant = r.variant;
    rb.device = r.device;
    rb.date = r.date;
    const std::vector<double> points = op_class_points(ex.classes.size());
    bool all_correct = true;
    for (std::size_t k = 0; k < ex.classes.size(); ++k) {
        const std::string& cls = ex.classes[k];
        const double class_points = points[k];
        RubricItem item;
        item.name = "correctness: " + cls;
        item.max_score = class_points;
        int total = 0, passed = 0;
        std::string failures;
        for (const auto& c : r.cases) {
            if (c.shape_class != cls) continue;
            ++total;
            if (c.result == "pass")
                ++passed;
            else
                failures += "  " + c.result + ": " + c.text + "\n";
        }
        const bool ok = total > 0 && passed == total;
        item.score = ok ? class_points : 0.0;
        all_correct = all_correct && ok;
        if (total == 0)
            item.output = "NOT RUN: no case of this class was recorded" +
                          (r.abort_msg.empty() ? std::string(r.complete ? "" : " (the run stopped early)")
                                               : " (" + r.abort_msg + ")");
        else if (failures.empty())
            item.output = std::to_string(passed) + "/" + std::to_string(total) +
                          " cases pass (float64 reference, poisoned gaps and guard bands intact; grid as written and looped)";
        else  // the first line (the class CSV's finding) names the first failure
            item.output = std::to_string(passed) + "/" + std::to_string(total) + " cases pass; first " +
                          failures.substr(2, failures.find('\n') - 2) + "\n" + failures.substr(0, failures.size() - 1);
        rb.items.push_back(item);
    }

    all_correct = add_sanitizer_items(rb, r.sanitizers, r.complete, "the small cases") && all_correct;

    const Threshold th = t.for_exercise(ex.name);
    RubricItem perf = performance_item();
    const std::string rule = performance_rule(th, t.source);
    if (!all_correct) {
        perf.output = "not scored: performance points need every shape class and every sanitizer class that ran to pass\n" + rule;
    } else if (r.timed.empty() || r.sub_ms <= 0 || r.ref_ms <= 0) {
        perf.output = "not measured: no reference solution in this build (solutions/ withheld) or run with --no-perf\n" + rule;
    } else {
        const double speed = r.ref_ms / r.sub_ms;
        perf.score = performance_points(speed, th);
        perf.output = "speed " + fixed(speed, 2) + "x the reference on " + r.timed + ": submission " + fixed(r.sub_ms, 4) +
                      " ms, reference " + fixed(r.ref_ms, 4) + " ms; " + rule;
    }
    rb.items.push_back(perf);
    if (!r.seed.empty()) rb.notes.push_back("input seed " + r.seed + " (replay: WB_SEED=" + r.seed + ")");
    if (!r.abort_msg.empty()) rb.notes.push_back("the run stopped early: " + r.abort_msg);
    if (!r.complete && r.abort_msg.empty())
        rb.notes.push_back("the record has no 'end' line: the runner died (crash or time limit); missing cases count as failed");
    rb.notes.push_back("pass mark " + fixed(kPassMark, 0) + " of " + fixed(rb.max_total(), 0) + ": " +
                       (rb.total() >= kPassMark ? "passed" : "below the pass mark"));
    return rb;
}

std::vector<double> op_class_points(std::size_t classes) {
    if (classes == 0) throw std::invalid_argument("op_class_points: classes (0) must be >= 1");
    // In tenths, so that the rubric's rounded points add up to exactly 40.
    const long tenths = static_cast<long>(std::lround(kClassPoints * static_cast<double>(size_classes().size()) * 10.0));
    const long n = static_cast<long>(classes), each = tenths / n, extra = tenths % n;
    std::vector<double> p;
    for (long k = 0; k < n; ++k) p.push_back(static_cast<double>(each + (k < extra ? 1 : 0)) / 10.0);
    return p;
}

Rubric score_op_build_failure(const std::string& exercise, const std::string& build_log) {
    const OpExerciseInfo& ex = find_op_exercise(exercise);
    Rubric rb;
    rb.chapter = ex.chapter + " " + ex.name;
    rb.variant = "submission";
    const std::string why = "not run: the submission did not compile";
    rb.items.push_back({"build", 0, 0, "the submission did not compile; every test scores 0. Compiler output:\n" + build_log});
    const std::vector<double> points = op_class_points(ex.classes.size());
    for (std::size_t k = 0; k < ex.classes.size(); ++k) rb.items.push_back({"correctness: " + ex.classes[k], 0, points[k], why});
    for (const auto& tool : sanitizer_tools()) rb.items.push_back({"sanitizer: " + tool, 0, kSanitizerPoints, why});
    rb.items.push_back({"performance vs reference", 0, kPerformancePoints, why});
    return rb;
}

Threshold derive_op_threshold(double noise) {
    Threshold t;
    t.full_at = std::clamp(1.0 - std::max(0.10, 3.0 * noise), 0.5, 0.95);
    t.zero_at = 0.5;
    if (t.zero_at > t.full_at - 0.15) t.zero_at = t.full_at - 0.15;
    return t;
}

}  // namespace wb::grade
