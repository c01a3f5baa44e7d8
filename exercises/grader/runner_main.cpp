// The grader's GPU runner (wb_grade_run / wb_grading_variants); scoring is wb_grade_score (score_main.cpp).
//   list                                   the compiled variants
//   run --variant V [--reference R] [--previous P] --record FILE [--seed S] [--no-perf]
//   calibrate --calibration FILE --thresholds FILE
//   check --variant V                      correctness only; exit 0 all pass, 1 not (CTest "exercise")
// scripts/grade.sh drives it; the logic lives in grading.hpp (tested on the CPU) and harness.cu.
// Without a reference solution in the build (solutions/ withheld) `run` records correctness only.
#include "grading.hpp"
#include "harness.hpp"
#include "registry.hpp"

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

namespace {

using namespace wb::grade;

struct Args {
    std::string command;
    std::map<std::string, std::string> opt;
    bool has(const std::string& k) const { return opt.count(k) > 0; }
    std::string get(const std::string& k, const std::string& def = "") const {
        const auto it = opt.find(k);
        return it == opt.end() ? def : it->second;
    }
    std::string need(const std::string& k) const {
        if (!has(k)) throw std::invalid_argument(command + ": option --" + k + " is required");
        return opt.at(k);
    }
};

Args parse_args(int argc, char** argv) {
    Args a;
    if (argc < 2) throw std::invalid_argument("usage: wb_grade_run list|run|calibrate|check [options]");
    a.command = argv[1];
    for (int i = 2; i < argc; ++i) {
        std::string k = argv[i];
        if (k.rfind("--", 0) != 0) throw std::invalid_argument("unexpected argument (" + k + ")");
        k = k.substr(2);
        if (k == "no-perf") {
            a.opt.insert_or_assign(k, std::string(1, '1'));
            continue;
        }
        if (i + 1 >= argc) throw std::invalid_argument("option --" + k + " needs a value");
        a.opt[k] = argv[++i];
    }
    return a;
}

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

std::string ref_name(const std::string& chapter) { return "ref_" + chapter; }

int cmd_list() {
    for (const auto& v : variants())
        std::cout << v.name << "  (" << v.chapter << (v.transpose_diagonal ? ", with transpose_diagonal" : "")
                  << ")\n";
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
    r.variant = sub.name;
    r.reference = ref ? ref->name : "none";
    r.device = device_description();
    r.date = utc_now();
    r.seed = std::to_string(seed);
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
    const Thresholds t = derive_thresholds(cal, "calibration of " + utc_now());
    std::ofstream out(a.need("thresholds"));
    if (!out) throw std::runtime_error("calibrate: cannot write " + a.need("thresholds"));
    comments.insert(comments.begin(), "Calibrated " + utc_now() + " on " + device + ":");
    write_thresholds(out, t, device, comments);
    for (const auto& [ch, th] : t.by_chapter)
        std::printf("  %-14s full_at %.3f  zero_at %.3f\n", ch.c_str(), th.full_at, th.zero_at);
    std::printf("wrote %s and %s\n", a.need("calibration").c_str(), a.need("thresholds").c_str());
    return 0;
}

}  // namespace

namespace wb::grade {

const Variant& find_variant(const std::string& name) {
    std::string known;
    for (const auto& v : variants()) {
        if (v.name == name) return v;
        known += (known.empty() ? "" : ", ") + v.name;
    }
    throw std::invalid_argument("variant (" + name + ") must be one of: " + known);
}

}  // namespace wb::grade

int main(int argc, char** argv) {
    try {
        const Args a = parse_args(argc, argv);
        if (a.command == "list") return cmd_list();
        if (a.command == "run") return cmd_run(a);
        if (a.command == "calibrate") return cmd_calibrate(a);
        if (a.command == "check") return cmd_check(a);
        throw std::invalid_argument("unknown command (" + a.command + "): list|run|calibrate|check");
    } catch (const FormatError& e) {
        std::cerr << "wb_grade_run: malformed input: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "wb_grade_run: " << e.what() << "\n";
        return 2;
    }
}
