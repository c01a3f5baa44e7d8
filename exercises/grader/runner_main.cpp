// The grader's GPU runner (wb_grade_run / wb_grading_variants); scoring is wb_grade_score (score_main.cpp).
//   list                                   the compiled variants
//   run --variant V [--reference R] [--previous P] --record FILE [--seed S] [--no-perf]
//       [--no-sanitize | --sanitize memcheck,racecheck,...]
//                                          the graded cases, the sanitizer classes (each tool runs
//                                          this program's sanitize-child under compute-sanitizer;
//                                          logs beside the record), the timings
//   calibrate --calibration FILE --thresholds FILE
//   check --variant V                      correctness only; exit 0 all pass, 1 not (CTest "exercise")
//   sanitize-child --variant V --result FILE [--case K] [--grid as_written|looped] [--seed S]
//       [--check-output 0|1]               (internal) the sanitized shapes, run under a tool
// scripts/grade.sh drives it; the logic lives in grading.hpp (tested on the CPU) and harness.cu.
// Without a reference solution in the build (solutions/ withheld) `run` records correctness only.
#include "grading.hpp"
#include "harness.hpp"
#include "registry.hpp"
#include "runner_util.hpp"

#include "check.hpp"
#include "device.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <unistd.h>

namespace {

using namespace wb::grade;


std::string ref_name(const std::string& chapter) { return "ref_" + chapter; }

int cmd_list() {
    for (const auto& v : variants())
        std::cout << v.name << "  (" << v.chapter << (v.transpose_diagonal ? ", with transpose_diagonal" : "")
                  << ")\n";
    return 0;
}

// ---- sanitizer classes --------------------------------------------------------------------

/// One run of this program's sanitize-child under one tool.
struct ChildRun {
    int exit_code = -1;
    SanitizerLog log;
    std::string status;  ///< ok | wrong | error | fault | "" (no result written)
    int case_index = -1;
    std::string grid;
    std::string msg;
    std::string output;  ///< the child's own stdout/stderr (for errors)
    bool findings() const { return log.errors + log.warnings > 0 || exit_code == 86; }
};

ChildRun run_child(const std::string& san, const std::string& tool, const std::string& variant,
                   const std::string& dir, std::uint64_t seed, int case_index, const char* grid) {
    std::string stem = dir + "/sanitizer-" + tool;
    if (case_index >= 0) stem += "-case" + std::to_string(case_index + 1) + "-" + grid;
    const std::string log = stem + ".log", res = stem + ".result", out = stem + ".out";
    std::string child_args = "--variant " + shell_quote(variant) + " --result " + shell_quote(res) + " --seed " +
                             std::to_string(seed);
    if (case_index >= 0) child_args += " --case " + std::to_string(case_index) + " --grid " + grid;
    ChildRun r;
    r.exit_code = run_self_under_sanitizer(san, tool, child_args, log, res, out);
    {
        std::ifstream in(log);
        r.log = parse_sanitizer_log(in);
    }
    r.output = read_file(out);
    std::ifstream in(res);
    std::string line;
    if (std::getline(in, line)) {
        std::istringstream ls(line);
        ls >> r.status;
        if (r.status != "ok") {
            ls >> r.case_index >> r.grid;
            std::getline(ls, r.msg);
            if (!r.msg.empty() && r.msg[0] == ' ') r.msg = r.msg.substr(1);
        }
    }
    return r;
}

std::string first_message(const SanitizerLog& l) {
    return l.first.empty() ? std::string("(no message)") : l.first + (l.detail.empty() ? "" : " (" + l.detail + ")");
}

/// One sanitizer class: all shapes in one process; when the tool reports something, the
/// shapes again one by one (in the same order) to name the first one that shows it.
SanitizerResult sanitize_with(const std::string& san, const std::string& tool, const std::string& variant,
                              const std::string& dir, std::uint64_t seed) {
    SanitizerResult z;
    z.tool = tool;
    const auto t0 = std::chrono::steady_clock::now();
    const ChildRun all = run_child(san, tool, variant, dir, seed, -1, nullptr);
    auto set_case = [&z](int k, const std::string& grid) {
        if (k < 0 || k >= static_cast<int>(sanitizer_cases().size())) return;
        z.has_case = true;
        z.c = sanitizer_cases()[static_cast<std::size_t>(k)];
        z.grid = grid;
    };
    if (all.findings()) {
        z.result = "fail";
        z.findings = std::max(1, all.log.errors + all.log.warnings);
        z.msg = first_message(all.log);
        z.kernel = all.log.kernel;
        for (int k = 0; k < static_cast<int>(sanitizer_cases().size()) && !z.has_case; ++k)
            for (const char* g : {"as_written", "looped"}) {
                const ChildRun one = run_child(san, tool, variant, dir, seed, k, g);
                if (!one.findings()) continue;
                set_case(k, g);
                z.msg = first_message(one.log);
                if (!one.log.kernel.empty()) z.kernel = one.log.kernel;
                break;
            }
    } else if (all.status == "wrong") {
        z.result = "fail";
        set_case(all.case_index, all.grid);
        z.msg = all.msg;
    } else if (all.status == "error" || all.status == "fault") {
        z.result = "error";
        set_case(all.case_index, all.grid);
        z.msg = all.msg;
    } else if (all.status == "ok" && all.exit_code == 0) {
        z.result = "pass";
    } else {
        z.result = "error";
        z.msg = no_result_message(tool, all.exit_code,
                                  all.output.empty() ? read_file(dir + "/sanitizer-" + tool + ".log") : all.output);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::ostringstream line;
    line << "  sanitizer " << tool << ": " << z.result << (z.msg.empty() ? "" : " (" + z.msg + ")") << " in "
         << fixed(s, 1) << " s\n";
    std::cerr << line.str();
    return z;
}

std::vector<SanitizerResult> run_sanitizers(const Args& a, const std::string& variant, const std::string& record,
                                            std::uint64_t seed) {
    return run_sanitizer_classes(a, record, [variant, seed](const std::string& san, const std::string& tool,
                                                           const std::string& dir) {
        return sanitize_with(san, tool, variant, dir, seed);
    });
}

int cmd_sanitize_child(const Args& a) {
    const Variant v = find_variant(a.need("variant"));  // a copy: g++ 13 -Wdangling-reference
    if (!wb::has_cuda_device()) return wb::kSkipReturnCode;
    std::ofstream res(a.need("result"));
    if (!res) throw std::runtime_error("sanitize-child: cannot write " + a.need("result"));
    const std::uint64_t seed = std::strtoull(a.get("seed", "5").c_str(), nullptr, 10);
    const bool check_output = a.get("check-output", "1") != "0";
    std::vector<int> ks;
    if (a.has("case")) {
        const int k = std::atoi(a.get("case").c_str());
        if (k < 0 || k >= static_cast<int>(sanitizer_cases().size()))
            throw std::invalid_argument("sanitize-child: --case (" + a.get("case") + ") out of range");
        ks.push_back(k);
    } else {
        for (int k = 0; k < static_cast<int>(sanitizer_cases().size()); ++k) ks.push_back(k);
    }
    std::vector<GridMode> modes = {GridMode::as_written, GridMode::looped};
    if (a.has("grid")) {
        if (a.get("grid") == "as_written") modes = {GridMode::as_written};
        else if (a.get("grid") == "looped") modes = {GridMode::looped};
        else throw std::invalid_argument("sanitize-child: --grid (" + a.get("grid") + ") must be as_written or looped");
    }
    std::string first_wrong;
    for (const int k : ks)
        for (const GridMode m : modes) {
            const GradedCase& c = sanitizer_cases()[static_cast<std::size_t>(k)];
            const std::string where = std::to_string(k) + " " + grid_mode_name(m) + " ";
            try {
                const CaseResult cr = run_sanitized_case(v.transpose, c, seed + std::uint64_t(k), m, check_output);
                if (cr.result == "error") {
                    res << "error " << where << cr.msg << "\n";
                    return 0;
                }
                if (cr.result == "fail" && first_wrong.empty()) first_wrong = "wrong " + where + cr.msg;
            } catch (const FatalDeviceError& e) {
                res << "fault " << where << e.what() << "\n";
                return 0;
            }
        }
    res << (first_wrong.empty() ? std::string("ok") : first_wrong) << "\n";
    return 0;
}

int cmd_run(const Args& a) {
    const Variant sub = find_variant(a.need("variant"));  // a copy: g++ 13 -Wdangling-reference
    const Variant* ref = nullptr;
    for (const auto& v : variants())
        if (v.name == a.get("reference", ref_name(sub.chapter))) ref = &v;
    if (!ref && a.has("reference")) find_variant(a.get("reference"));  // throws, naming the known variants
    const Variant* prev = nullptr;
    if (a.has("previous")) {
        prev = &find_variant(a.get("previous"));
    } else {
        const auto& chs = track_chapters();
        for (std::size_t i = 1; i < chs.size(); ++i)
            if (chs[i] == sub.chapter)
                for (const auto& v : variants())
                    if (v.name == ref_name(chs[i - 1])) prev = &v;
    }
    if (!wb::has_cuda_device()) {
        std::cerr << "wb_grade_run: no CUDA device: nothing graded (exit " << wb::kSkipReturnCode << ")\n";
        return wb::kSkipReturnCode;
    }
    const std::uint64_t seed =
        a.has("seed") ? std::strtoull(a.get("seed").c_str(), nullptr, 10) : static_cast<std::uint64_t>(std::time(nullptr));
    std::ofstream rec(a.need("record"));
    if (!rec) throw std::runtime_error("run: cannot write the record (" + a.need("record") + ")");
    Record r;
    r.chapter = sub.chapter;
    set_run_header(r, sub.name, ref ? ref->name : "none", seed);
    write_record_header(rec, r);
    try {
        std::uint64_t k = 0;
        for (const auto& c : graded_cases()) {
            const CaseResult cr = run_graded_case(sub.transpose, c, seed + k++);
            write_case(rec, cr);
            std::cerr << "  " << c.size_class << " " << c.label() << ": " << cr.result << "\n";
        }
        bool diag_ok = false;
        ExtraResult diag;
        if (sub.transpose_diagonal) {
            diag.name = "transpose_diagonal";
            diag.result = "pass";
            std::uint64_t kd = 1000;
            for (const auto& c : graded_cases()) {
                const CaseResult cr = run_graded_case(sub.transpose_diagonal, c, seed + kd++);
                if (cr.result != "pass") {
                    diag.result = cr.result;
                    diag.msg = c.label() + ": " + cr.msg;
                    break;
                }
            }
            diag_ok = diag.result == "pass";
        }
        for (const auto& z : run_sanitizers(a, sub.name, a.need("record"), seed)) {
            write_sanitizer(rec, z);
            r.sanitizers.push_back(z);
        }
        if (!ref && !a.has("no-perf"))
            std::cerr << "wb_grade_run: no reference solution in this build (solutions/ withheld): correctness only\n";
        if (ref && !a.has("no-perf")) {
            for (const auto& shape : perf_shapes()) {
                std::vector<wb::ex::TransposeFn> fns = {ref->transpose, sub.transpose, prev ? prev->transpose : nullptr};
                const bool time_diag = diag_ok && &shape == &perf_shapes().front() && ref->transpose_diagonal;
                if (time_diag) {
                    fns.push_back(sub.transpose_diagonal);
                    fns.push_back(ref->transpose_diagonal);
                }
                const ShapeTimes t = time_shape(fns, shape);
                PerfResult p;
                p.shape = shape;
                p.ref_ms = t.ms[0];
                p.sub_ms = t.ms[1];
                p.prev_ms = t.ms[2];
                p.copy_ms = t.copy_ms;
                write_perf(rec, p);
                if (time_diag) {
                    diag.ms = t.ms[3];
                    diag.ref_ms = t.ms[4];
                }
            }
        }
        if (sub.transpose_diagonal) write_extra(rec, diag);
    } catch (const FatalDeviceError& e) {
        write_abort(rec, e.what());
        std::cerr << "wb_grade_run: " << e.what() << "\n";
        write_end(rec);
        return 0;  // a crash is a grading outcome, not a grader failure
    }
    write_end(rec);
    return 0;
}

int cmd_check(const Args& a) {
    const Variant v = find_variant(a.need("variant"));  // a copy: g++ 13 -Wdangling-reference
    if (!wb::has_cuda_device()) {
        std::cerr << "wb_grade_run: no CUDA device: skipped (exit " << wb::kSkipReturnCode << ")\n";
        return wb::kSkipReturnCode;
    }
    int failed = 0;
    std::uint64_t k = 0;
    try {
        for (const auto& c : graded_cases()) {
            const CaseResult cr = run_graded_case(v.transpose, c, 99 + k++);
            std::cout << "  " << c.size_class << " " << c.label() << ": " << cr.result
                      << (cr.msg.empty() ? "" : " (" + cr.msg + ")") << "\n";
            failed += cr.result != "pass";
        }
    } catch (const FatalDeviceError& e) {
        std::cout << "  stopped: " << e.what() << "\n";
        return 1;
    }
    std::cout << v.name << ": " << graded_cases().size() - failed << "/" << graded_cases().size() << " cases pass\n";
    return failed == 0 ? 0 : 1;
}

int cmd_calibrate(const Args& a) {
    if (!wb::has_cuda_device()) {
        std::cerr << "wb_grade_run: no CUDA device: cannot calibrate\n";
        return wb::kSkipReturnCode;
    }
    const std::string device = device_description();
    std::vector<Calibration> cal;
    std::printf("Calibrating on %s: reference solutions, median ms per shape (L2 flushed), GB/s of useful bytes\n",
                device.c_str());
    std::vector<std::string> comments;
    for (const auto& ch : track_chapters()) {
        const Variant ref = find_variant(ref_name(ch));  // a copy: g++ 13 -Wdangling-reference
        for (const auto& c : graded_cases())  // a reference that is not correct must not set thresholds
            if (run_graded_case(ref.transpose, c, 7 + std::uint64_t(c.rows)).result != "pass")
                throw std::runtime_error("calibrate: the reference " + ref.name + " fails " + c.label());
        Calibration cb;
        cb.chapter = ch;
        std::ostringstream line;
        line << ch << ":";
        for (const auto& shape : perf_shapes()) {
            std::vector<wb::ex::TransposeFn> fns = {ref.transpose};
            if (ref.transpose_diagonal) fns.push_back(ref.transpose_diagonal);
            const ShapeTimes t = time_shape(fns, shape, 5);
            cb.ms.push_back(t.ms[0]);
            cb.noise = std::max(cb.noise, t.noise);
            const double bytes = transpose_bytes(shape.rows, shape.cols);
            line << " " << shape.label() << " " << t.ms[0] << " ms = " << bytes / (t.ms[0] * 1e6) << " GB/s ("
                 << 100.0 * t.copy_ms / t.ms[0] << "% of copy " << bytes / (t.copy_ms * 1e6) << " GB/s);";
            if (ref.transpose_diagonal)
                line << " diagonal order " << bytes / (t.ms[1] * 1e6) << " GB/s;";
        }
        line << " noise " << cb.noise;
        std::printf("  %s\n", line.str().c_str());
        comments.push_back(line.str());
        cal.push_back(cb);
    }
    {
        std::ofstream out(a.need("calibration"));
        write_calibration(out, cal, device);
    }
    Thresholds t = derive_thresholds(cal, "calibration of " + utc_now());
    {  // the op exercises' thresholds and calibration notes, kept
        std::ifstream in(a.need("thresholds"));
        if (in) t.by_exercise = parse_thresholds(in, a.need("thresholds")).by_exercise;
        std::ifstream again(a.need("thresholds"));
        const std::vector<std::string> other = again ? other_calibration_comments(again, "Calibrated ")
                                                     : std::vector<std::string>{};
        comments.insert(comments.begin(), "Calibrated " + utc_now() + " on " + device + ":");
        comments.insert(comments.end(), other.begin(), other.end());
    }
    std::ofstream out(a.need("thresholds"));
    if (!out) throw std::runtime_error("calibrate: cannot write " + a.need("thresholds"));
    write_thresholds(out, t, device, comments);
    for (const auto& [ch, th] : t.by_chapter)
        std::printf("  %-14s full_at %.3f  zero_at %.3f\n", ch.c_str(), th.full_at, th.zero_at);
    std::printf("wrote %s and %s\n", a.need("calibration").c_str(), a.need("thresholds").c_str());
    return 0;
}

}  // namespace

namespace wb::grade {

const Variant& find_variant(const std::string& name) { return find_named(variants(), name, "variant"); }

}  // namespace wb::grade

int main(int argc, char** argv) {
    return runner_main("wb_grade_run", argc, argv, "usage: wb_grade_run list|run|calibrate|check [options]",
                       {{"list", [](const Args&) { return cmd_list(); }},
                        {"run", cmd_run},
                        {"calibrate", cmd_calibrate},
                        {"check", cmd_check},
                        {"sanitize-child", cmd_sanitize_child}});
}
