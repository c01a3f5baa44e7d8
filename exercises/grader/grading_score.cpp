// Scoring: a record plus thresholds -> the rubric (grading.hpp). Correctness per size class,
// all-or-nothing per class; performance against the reference timed in the same run, only for
// a submission that is correct everywhere (a fast wrong answer earns nothing).
#include "grading.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace wb::grade {
namespace {

double gbs(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0; }

}  // namespace

double Rubric::total() const {
    double s = 0;
    for (const auto& i : items) s += i.score;
    return s;
}

double Rubric::max_total() const {
    double s = 0;
    for (const auto& i : items) s += i.max_score;
    return s;
}

double relative_speed(const std::vector<PerfResult>& perf) {
    if (perf.empty()) return std::numeric_limits<double>::quiet_NaN();
    double log_sum = 0;
    for (const auto& p : perf) log_sum += std::log(p.ref_ms / p.sub_ms);
    return std::exp(log_sum / double(perf.size()));
}

double performance_points(double speed, const Threshold& t) {
    if (!std::isfinite(speed) || speed <= t.zero_at) return 0;
    if (speed >= t.full_at) return kPerformancePoints;
    const double frac = (speed - t.zero_at) / (t.full_at - t.zero_at);
    return std::round(kPerformancePoints * frac * 10.0) / 10.0;
}

RubricItem sanitizer_item(const std::vector<SanitizerResult>& results, const std::string& tool, bool complete,
                          const std::string& shapes, std::vector<std::string>* not_run) {
    RubricItem item;
    item.name = "sanitizer: " + tool;
    item.max_score = kSanitizerPoints;
    const auto it = std::find_if(results.begin(), results.end(), [&](const SanitizerResult& z) { return z.tool == tool; });
    std::string where;
    if (it != results.end() && it->has_case)
        where = " on " + it->c.label() + " (grid " + (it->grid == "looped" ? "looped" : "as written") + ")";
    if (it == results.end()) {
        item.output = "NOT RUN: the record has no " + tool + " result" +
                      (complete ? std::string() : std::string(" (the run stopped early)")) + "; not scored as passed";
        not_run->push_back(tool);
    } else if (it->result == "pass") {
        item.score = kSanitizerPoints;
        item.output = "no finding on " + shapes + " (grid as written and looped), output right";
    } else if (it->result == "notrun") {
        item.output = "NOT RUN: " + (it->msg.empty() ? std::string("compute-sanitizer not available") : it->msg) +
                      "; not scored as passed";
        not_run->push_back(tool);
    } else if (it->result == "fail" && it->findings > 0) {
        item.output = std::to_string(it->findings) + " finding" + (it->findings == 1 ? "" : "s") + "; the first" + where +
                      (it->kernel.empty() ? std::string() : " in kernel " + it->kernel) + ": " + it->msg;
    } else if (it->result == "fail") {
        item.output = "no finding, but the output was wrong" + where + ": " + it->msg;
    } else {
        item.output = "error" + where + ": " + it->msg;
    }
    return item;
}

bool add_sanitizer_items(Rubric& rb, const std::vector<SanitizerResult>& results, bool complete,
                         const std::string& shapes) {
    bool ok = true;
    std::vector<std::string> not_run;
    for (const auto& tool : sanitizer_tools()) {
        const RubricItem item = sanitizer_item(results, tool, complete, shapes, &not_run);
        const bool skipped = std::find(not_run.begin(), not_run.end(), tool) != not_run.end();
        ok = ok && (item.score > 0 || skipped);
        rb.items.push_back(item);
    }
    if (!not_run.empty()) {
        std::string list;
        for (const auto& x : not_run) list += (list.empty() ? "" : ", ") + x;
        rb.notes.push_back("sanitizer classes NOT RUN (scored 0, not passed): " + list);
    }
    return ok;
}

RubricItem performance_item() {
    RubricItem perf;
    perf.name = "performance vs reference";
    perf.max_score = kPerformancePoints;
    return perf;
}

std::string performance_rule(const Threshold& th, const std::string& source) {
    return "full points at speed >= " + fixed(th.full_at, 2) + "x, none at <= " + fixed(th.zero_at, 2) +
           "x (thresholds: " + source + ")";
}

Rubric score(const Record& r, const Thresholds& t) {
    Rubric rb;
    rb.chapter = r.chapter;
    rb.variant = r.variant;
    rb.device = r.device;
    rb.date = r.date;
    bool all_correct = true;
    for (const auto& cls : size_classes()) {
        RubricItem item;
        item.name = "correctness: " + cls;
        item.max_score = kClassPoints;
        int total = 0, passed = 0;
        std::string failures;
        for (const auto& g : graded_cases()) {
            if (g.size_class != cls) continue;
            ++total;
            const auto it = std::find_if(r.cases.begin(), r.cases.end(),
                                         [&](const CaseResult& c) { return c.c == g; });
            if (it == r.cases.end()) {
                failures += "  " + g.label() + ": not run" +
                            (r.abort_msg.empty() ? std::string(" (the run stopped early)") : " (" + r.abort_msg + ")") +
                            "\n";
            } else if (it->result == "pass") {
                ++passed;
            } else {
                failures += "  " + g.label() + ": " + it->result + (it->msg.empty() ? "" : ": " + it->msg) + "\n";
            }
        }
        item.score = passed == total ? kClassPoints : 0.0;
        all_correct = all_correct && passed == total;
        item.output = std::to_string(passed) + "/" + std::to_string(total) +
                      " cases pass (bit-exact, guard bands intact; grid as written and looped)";
        if (!failures.empty()) item.output += "\n" + failures.substr(0, failures.size() - 1);
        rb.items.push_back(item);
    }

    const std::string sanitized = std::to_string(sanitizer_cases().size()) + " small shapes";
    all_correct = add_sanitizer_items(rb, r.sanitizers, r.complete, sanitized) && all_correct;

    const Threshold th = t.for_chapter(r.chapter);
    RubricItem perf = performance_item();
    const std::string rule = performance_rule(th, t.source);
    if (!all_correct) {
        perf.output = "not scored: performance points need every size class and every sanitizer class that ran to pass\n" + rule;
    } else if (r.perf.empty()) {
        perf.output = "not measured: no reference solution in this build (solutions/ withheld) or run with --no-perf\n" + rule;
    } else if (r.perf.size() != perf_shapes().size()) {
        perf.output = "not scored: " + std::to_string(r.perf.size()) + " of " + std::to_string(perf_shapes().size()) +
                      " timed shapes were recorded\n" + rule;
    } else {
        const double speed = relative_speed(r.perf);
        perf.score = performance_points(speed, th);
        std::ostringstream os;
        os << "speed " << fixed(speed, 2) << "x the reference (geometric mean over shapes); " << rule;
        for (const auto& p : r.perf) {
            const double bytes = transpose_bytes(p.shape.rows, p.shape.cols);
            os << "\n  " << p.shape.label() << ": submission " << fixed(p.sub_ms, 4) << " ms ("
               << fixed(gbs(bytes, p.sub_ms), 0) << " GB/s), reference " << fixed(p.ref_ms, 4) << " ms ("
               << fixed(gbs(bytes, p.ref_ms), 0) << " GB/s)";
            if (p.prev_ms > 0) os << ", previous chapter " << fixed(gbs(bytes, p.prev_ms), 0) << " GB/s";
            if (p.copy_ms > 0)
                os << ", copy ceiling " << fixed(gbs(bytes, p.copy_ms), 0) << " GB/s (submission at "
                   << fixed(100.0 * p.copy_ms / p.sub_ms, 1) << "%)";
        }
        perf.output = os.str();
    }
    rb.items.push_back(perf);

    for (const auto& e : r.extras) {
        RubricItem item;
        item.name = "reported: " + e.name;
        item.max_score = 0;
        std::ostringstream os;
        os << "correctness " << e.result;
        if (!e.msg.empty()) os << " (" << e.msg << ")";
        if (e.ms > 0 && e.ref_ms > 0)
            os << "; " << fixed(e.ms, 4) << " ms, the reference's " << e.name << " " << fixed(e.ref_ms, 4) << " ms";
        if (e.ms > 0 && !r.perf.empty() && r.perf.front().sub_ms > 0)
            os << "; " << fixed(r.perf.front().sub_ms / e.ms, 2) << "x the speed of transpose on "
               << r.perf.front().shape.label();
        os << " (not scored)";
        item.output = os.str();
        rb.items.push_back(item);
    }
    if (!r.seed.empty()) rb.notes.push_back("input seed " + r.seed + " (replay: WB_SEED=" + r.seed + ")");
    if (!r.abort_msg.empty()) rb.notes.push_back("the run stopped early: " + r.abort_msg);
    if (!r.complete && r.abort_msg.empty())
        rb.notes.push_back("the record has no 'end' line: the runner died (crash or time limit); missing cases count as failed");
    return rb;
}

Rubric score_build_failure(const std::string& chapter, const std::string& build_log) {
    Rubric rb;
    rb.chapter = chapter;
    rb.variant = "submission";
    RubricItem build;
    build.name = "build";
    build.max_score = 0;
    build.output = "the submission did not compile; every test scores 0. Compiler output:\n" + build_log;
    rb.items.push_back(build);
    for (const auto& cls : size_classes())
        rb.items.push_back({"correctness: " + cls, 0, kClassPoints, "not run: the submission did not compile"});
    for (const auto& tool : sanitizer_tools())
        rb.items.push_back({"sanitizer: " + tool, 0, kSanitizerPoints, "not run: the submission did not compile"});
    rb.items.push_back({"performance vs reference", 0, kPerformancePoints, "not run: the submission did not compile"});
    return rb;
}

}  // namespace wb::grade
