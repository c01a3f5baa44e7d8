// The op exercises' GPU runner (wb_grade_op); scoring is `wb_grade_score score-op`.
//   list                                   the compiled exercises and variants
//   run --exercise E [--variant V] --record FILE [--seed S] [--no-perf]
//       [--no-sanitize | --sanitize memcheck,racecheck,...]
//                                          every case of E against its float64 reference, each in
//                                          every shape class it counts in; the sanitizer classes
//                                          (this program's sanitize-child under compute-sanitizer,
//                                          logs beside the record); the submission and the
//                                          reference solution timed in the same run (V: sub)
//   calibrate --thresholds FILE            times every exercise's solution in rounds and writes its
//                                          'exercise' threshold line into FILE (other lines kept)
//   sanitize-child --exercise E --variant V --result FILE [--seed S]
//                                          (internal) the cases of class "small", under a tool
// Bad arguments exit 2 before the device is looked for; without a GPU `run` exits 77.
// scripts/grade.sh (`./workbook grade chNN --exercise E`) drives it; the logic it records is scored
// by grading_op.hpp (tested on the CPU).
#include "grading_op.hpp"
#include "op_runner.hpp"
#include "runner_util.hpp"

#include "device.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>


namespace {

using namespace wb::grade;
using wb::grade::test::OpCaseOutcome;
using wb::grade::test::OpVariant;
using wb::grade::test::op_variants;

const OpVariant& find_op_variant(const std::string& exercise, const std::string& name) {
    find_op_exercise(exercise);  // throws, naming the known exercises
    std::string known;
    for (const auto& v : op_variants()) {
        if (v.exercise != exercise) continue;
        if (v.name == name) return v;
        known += (known.empty() ? "" : ", ") + v.name;
    }
    if (known.empty()) throw std::invalid_argument("exercise (" + exercise + ") is not compiled into this runner");
    throw std::invalid_argument("variant (" + name + ") of " + exercise + " must be one of: " + known);
}

const OpVariant* find_optional(const std::string& exercise, const std::string& name) {
    for (const auto& v : op_variants())
        if (v.exercise == exercise && v.name == name) return &v;
    return nullptr;
}

int cmd_list() {
    for (const auto& v : op_variants()) std::printf("%-14s %s\n", v.exercise.c_str(), v.name.c_str());
    return 0;
}

/// Refuses to grade when one of the exercise's classes holds no case (it could never fail) or a
/// case counts in a class the exercise does not register. Needs no device.
void check_classes_have_cases(const OpVariant& v) {
    const auto& classes = find_op_exercise(v.exercise).classes;
    std::vector<std::string> covered;
    for (const auto& of_case : v.case_classes())
        for (const auto& cl : of_case) {
            if (std::find(classes.begin(), classes.end(), cl) == classes.end())
                throw std::logic_error("op_classes() gives " + v.exercise + " a class it does not register: " + cl);
            covered.push_back(cl);
        }
    for (const auto& cl : classes)
        if (std::find(covered.begin(), covered.end(), cl) == covered.end())
            throw std::logic_error("class " + cl + " of " + v.exercise + " holds no case: it could never fail");
}

std::uint64_t seed_of(const Args& a) {
    if (!a.has("seed")) return static_cast<std::uint64_t>(std::time(nullptr));
    const std::string s = a.get("seed");
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument("--seed (" + s + ") must be a whole number");
    return std::strtoull(s.c_str(), nullptr, 10);
}

int cmd_sanitize_child(const Args& a) {
    const std::string exercise = a.need("exercise"), variant = a.need("variant");  // named: g++ 13 -Wdangling-reference
    const OpVariant& v = find_op_variant(exercise, variant);
    if (!wb::has_cuda_device()) return wb::kSkipReturnCode;
    std::ofstream res(a.need("result"));
    if (!res) throw std::runtime_error("sanitize-child: cannot write " + a.need("result"));
    std::string first;
    v.run(seed_of(a), true, [&](const OpCaseOutcome& o) {
        if (first.empty() && !o.finding.empty()) first = o.label + " " + o.finding;
    });
    res << (first.empty() ? std::string("ok") : "wrong " + first) << "\n";
    return 0;
}

/// One sanitizer class: every small case of the variant under `tool`, in one process.
SanitizerResult sanitize_with(const std::string& san, const std::string& tool, const OpVariant& v,
                              const std::string& dir, std::uint64_t seed) {
    SanitizerResult z;
    z.tool = tool;
    const std::string stem = dir + "/sanitizer-" + tool, log = stem + ".log", res = stem + ".result", out = stem + ".out";
    const int exit_code = run_self_under_sanitizer(
        san, tool,
        "--exercise " + shell_quote(v.exercise) + " --variant " + shell_quote(v.name) + " --result " + shell_quote(res) +
            " --seed " + std::to_string(seed),
        log, res, out);
    std::ifstream lin(log);
    const SanitizerLog l = parse_sanitizer_log(lin);
    std::ifstream rin(res);
    std::string status;
    std::getline(rin, status);
    if (l.errors + l.warnings > 0 || exit_code == 86) {
        z.result = "fail";
        z.findings = std::max(1, l.errors + l.warnings);
        z.kernel = l.kernel;
        z.msg = (l.first.empty() ? std::string("(no message)") : l.first) + (l.detail.empty() ? "" : " (" + l.detail + ")") +
                " (the small cases, grid as written and looped)";
    } else if (status.rfind("wrong ", 0) == 0) {
        z.result = "fail";
        z.msg = status.substr(6);
    } else if (status == "ok" && exit_code == 0) {
        z.result = "pass";
    } else {
        z.result = "error";
        z.msg = no_result_message(tool, exit_code, read_file(out).empty() ? read_file(log) : read_file(out));
    }
    std::cerr << "  sanitizer " << tool << ": " << z.result << (z.msg.empty() ? "" : " (" + z.msg + ")") << "\n";
    return z;
}

std::vector<SanitizerResult> run_sanitizers(const Args& a, const OpVariant& v, const std::string& record,
                                            std::uint64_t seed) {
    return run_sanitizer_classes(a, record, [&v, seed](const std::string& san, const std::string& tool,
                                                      const std::string& dir) {
        return sanitize_with(san, tool, v, dir, seed);
    });
}

int cmd_run(const Args& a) {
    const std::string exercise = a.need("exercise"), variant = a.get("variant", "sub");  // named: g++ 13 -Wdangling-reference
    const OpVariant& sub = find_op_variant(exercise, variant);
    const OpVariant* ref = find_optional(sub.exercise, "solution");
    const std::string record = a.need("record");
    const std::uint64_t seed = seed_of(a);
    if (a.has("sanitize") && a.has("no-sanitize")) throw std::invalid_argument("run: --sanitize and --no-sanitize exclude each other");
    for (std::string rest = a.get("sanitize", ""); !rest.empty();) {
        const std::string tool = rest.substr(0, rest.find(','));
        rest = rest.find(',') == std::string::npos ? "" : rest.substr(rest.find(',') + 1);
        const auto& tools = sanitizer_tools();
        if (std::find(tools.begin(), tools.end(), tool) == tools.end())
            throw std::invalid_argument("run: --sanitize (" + tool + ") must name memcheck, racecheck, synccheck or initcheck");
    }
    check_classes_have_cases(sub);
    if (!wb::has_cuda_device()) {
        std::cerr << "wb_grade_op: no CUDA device: nothing graded (exit " << wb::kSkipReturnCode << ")\n";
        return wb::kSkipReturnCode;
    }
    std::ofstream rec(record);
    if (!rec) throw std::runtime_error("run: cannot write the record (" + record + ")");
    OpRecord r;
    r.exercise = sub.exercise;
    set_run_header(r, sub.name, ref ? ref->name : "none", seed);
    write_op_record_header(rec, r);
    try {
        sub.run(seed, false, [&](const OpCaseOutcome& o) {
            for (const auto& cl : o.classes) {
                OpCaseResult c;
                c.shape_class = cl;
                c.result = o.finding.empty() ? "pass" : (o.error ? "error" : "fail");
                c.text = o.label + (o.finding.empty() ? "" : ": " + o.finding);
                write_op_case(rec, c);
            }
            std::cerr << "  " << o.label << ": " << (o.finding.empty() ? "pass" : o.finding) << "\n";
        });
        for (const auto& z : run_sanitizers(a, sub, record, seed)) write_op_sanitizer(rec, z);
        if (!ref && !a.has("no-perf"))
            std::cerr << "wb_grade_op: no reference solution in this build (solutions/ withheld): correctness only\n";
        if (ref && !a.has("no-perf")) {
            const double ref_ms = ref->time_ms(seed), sub_ms = sub.time_ms(seed);
            write_op_perf(rec, sub.timed, sub_ms, ref_ms);
        }
    } catch (const FatalDeviceError& e) {
        write_abort(rec, e.what());
        std::cerr << "wb_grade_op: " << e.what() << "\n";
        write_end(rec);
        return 0;  // a crash is a grading outcome, not a grader failure
    } catch (const std::exception& e) {  // a CUDA failure while timing: the context may be gone
        write_abort(rec, e.what());
        std::cerr << "wb_grade_op: " << e.what() << "\n";
    }
    write_end(rec);
    return 0;
}

int cmd_calibrate(const Args& a) {
    const std::string path = a.need("thresholds");
    if (!wb::has_cuda_device()) {
        std::cerr << "wb_grade_op: no CUDA device: cannot calibrate\n";
        return wb::kSkipReturnCode;
    }
    Thresholds t;
    std::vector<std::string> comments;  // the transpose track's calibration notes first, kept
    {
        std::ifstream in(path);
        if (in) t = parse_thresholds(in, path);
        std::ifstream again(path);
        if (again) comments = other_calibration_comments(again, "Op exercises calibrated ");
    }
    comments.push_back("Op exercises calibrated " + utc_now() + " on " + device_description() + ":");
    for (const auto& ex : op_exercises()) {
        const OpVariant* ref = find_optional(ex.name, "solution");
        if (!ref) continue;
        std::string wrong;  // a reference that is not correct must not set thresholds
        ref->run(7, false, [&](const OpCaseOutcome& o) {
            if (wrong.empty() && !o.finding.empty()) wrong = o.label + ": " + o.finding;
        });
        if (!wrong.empty()) throw std::runtime_error("calibrate: the solution of " + ex.name + " fails " + wrong);
        std::vector<double> ms;
        for (int round = 0; round < 5; ++round) ms.push_back(ref->time_ms(11 + static_cast<std::uint64_t>(round)));
        std::sort(ms.begin(), ms.end());  // (min and max after sorting: iterators into ms would move)
        const double noise = (ms.back() - ms.front()) / ms[ms.size() / 2];
        t.by_exercise[ex.name] = derive_op_threshold(noise);
        comments.push_back(ex.name + ": median " + fixed(ms[ms.size() / 2], 4) + " ms, noise " + fixed(noise, 3) + " on " +
                           ref->timed);
        std::printf("  %-14s %s\n", ex.name.c_str(), comments.back().c_str());
    }
    std::ofstream out(path);
    if (!out) throw std::runtime_error("calibrate: cannot write " + path);
    write_thresholds(out, t, device_description(), comments);
    std::printf("wrote %s\n", path.c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return runner_main("wb_grade_op", argc, argv, "usage: wb_grade_op list|run|calibrate|sanitize-child [options]",
                       {{"list", [](const Args&) { return cmd_list(); }},
                        {"run", cmd_run},
                        {"calibrate", cmd_calibrate},
                        {"sanitize-child", cmd_sanitize_child}});
}
