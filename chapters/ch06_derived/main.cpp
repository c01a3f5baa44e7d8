/// \file ch06_derived/main.cpp
/// \brief Chapter 6 — launch parameters derived from the machine. For every op and a few shapes it
///        prints each derived parameter with the rule that set it and the metric that bound it,
///        chapter 5's default launch beside it, and the model's predicted time for both.
/// Run: ./workbook run ch06 -- --device-preset t10   (or build/bin/ch06_derived --help)
#include "derived_comparison.hpp"
#include "derived_options.hpp"
#include "report.hpp"

#include "cli.hpp"
#include "device.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

std::string ms(double v) {
    if (v < 0) return "-";
    if (!std::isfinite(v)) return "- (no block of it fits)";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f ms", v);
    return buf;
}

void print(const wb::ch06::Comparison& c) {
    std::cout << "\n" << c.derived.op << " " << c.derived.shape << "\n";
    for (const auto& p : c.derived.params)
        std::cout << "  " << p.parameter << " = " << p.value << "    " << p.rule << ": " << p.metric << "\n";
    std::cout << "  derived launch:     " << (c.derived_launch.empty() ? "- (none: the note says why)" : c.derived_launch)
              << "    predicted " << ms(c.derived_ms) << "\n";
    std::cout << "  chapter 5 default:  " << c.default_launch << "    predicted " << ms(c.default_ms) << "\n";
    if (!c.note.empty()) std::cout << "  " << c.note << "\n";
    if (c.derived_measured_ms >= 0 || c.default_measured_ms >= 0 || !c.measured_note.empty()) {
        std::cout << "  measured:           derived " << ms(c.derived_measured_ms) << ", chapter 5 default "
                  << ms(c.default_measured_ms);
        if (c.derived_measured_ms > 0 && c.default_measured_ms > 0) {
            char buf[48];
            std::snprintf(buf, sizeof buf, " (derived %.2fx the default's speed)",
                          c.default_measured_ms / c.derived_measured_ms);
            std::cout << buf;
        }
        std::cout << (c.measured_note.empty() ? "" : "  " + c.measured_note) << "\n";
    }
    if (c.swept > 0) {
        std::cout << "  sweep (" << c.swept << " legal launches): best " << c.best_launch << " " << ms(c.best_ms)
                  << ", worst " << c.worst_launch << " " << ms(c.worst_ms) << "\n";
        if (c.best_ms > 0) {
            char buf[96];
            std::snprintf(buf, sizeof buf, "  against the sweep's best: derived %.2fx, chapter 5 default %.2fx its speed",
                          c.derived_measured_ms > 0 ? c.best_ms / c.derived_measured_ms : 0.0,
                          c.default_measured_ms > 0 ? c.best_ms / c.default_measured_ms : 0.0);
            std::cout << buf << "\n";
        }
    }
    if (!c.sweep_note.empty()) std::cout << "  sweep: " << c.sweep_note << "\n";
}

}  // namespace

int main(int argc, char** argv) {
    wb::ChapterOptions opt;
    bool sweep = false;
    const int rc = wb::parse_chapter_cli(
        argc, argv, "ch06_derived",
        "Chapter 6 — launch parameters derived from the machine (White §4.5, KBLAS's nb, Q, Y, Little's law): "
        "each op's derived launch with the rule and metric behind each parameter, beside chapter 5's default, "
        "with the model's predicted time for both.",
        opt,
        {{"--sweep",
          "On a GPU, also time every legal launch of the tuned step for each case (GEMV, GEMM, conv2d, SYMV) and print "
          "the sweep's best and worst beside the derived and the default launch (minutes per op)",
          &sweep}});
    if (rc >= 0) return rc;
    wb::ch06::CaseSelection cases;
    try {
        cases = wb::ch06::case_selection(opt);  // before any output: a usage error prints nothing else
    } catch (const std::invalid_argument& e) {
        std::cerr << "ch06_derived: " << e.what() << "\nRun with --help for more information.\n";
        return 2;
    }
    try {
        const bool live = opt.device_preset.empty() && wb::has_cuda_device();
        const wb::DeviceProfile dev = live ? wb::device_profile_from_device(opt.device)
                                           : wb::device_preset(opt.device_preset.empty() ? "h200" : opt.device_preset);
        if (live) wb::select_device(opt.device);
        std::cout << "Chapter 6 — launch parameters derived from the machine\n"
                  << "device: " << dev.name << " (" << dev.sm_count << " SMs, " << dev.bandwidth_gbs << " GB/s, "
                  << dev.latency_ns << " ns latency)" << (live ? "" : ": predictions only, nothing is measured")
                  << "\n";
        for (const std::string& note : wb::ch06::option_notes(opt, live, sweep)) std::cout << "note: " << note << "\n";
        std::vector<int> precisions;
        if (opt.precision != "double") precisions.push_back(4);
        if (opt.precision != "float") precisions.push_back(8);
        // --csv: one row per case (the parameters' rules are the printed text; the launches and
        // times are the rows), each with the run's metadata like every chapter's CSV.
        wb::Report table("chapter 6: derived launches",
                         {"op", "shape", "derived launch", "derived model ms", "default launch", "default model ms",
                          "derived ms", "default ms", "swept", "best launch", "best ms", "worst launch", "worst ms"});
        auto ms = [](double v) {  // "-": not measured, or infinite (no block of the launch fits)
            return std::isfinite(v) && v >= 0 ? wb::fmt(v, 4) : std::string("-");
        };
        for (const std::string& op : cases.ops)
            for (const auto& c : wb::ch06::compare_op(op, dev, precisions, live, live && sweep, cases)) {
                print(c);
                table.add_row({c.derived.op, c.derived.shape, c.derived_launch.empty() ? "-" : c.derived_launch,
                               ms(c.derived_ms), c.default_launch,
                               ms(c.default_ms), ms(c.derived_measured_ms), ms(c.default_measured_ms),
                               std::to_string(c.swept), c.best_launch.empty() ? "-" : c.best_launch, ms(c.best_ms),
                               c.worst_launch.empty() ? "-" : c.worst_launch, ms(c.worst_ms)});
            }
        if (!opt.csv.empty()) {  // the metadata name the GPU that was measured, as every chapter's CSV does
            const wb::DeviceInfo di = live ? wb::query_device(opt.device) : wb::DeviceInfo{};
            table.write_csv(opt.csv, wb::run_metadata(live ? &di : nullptr));
        }
    } catch (const std::exception& e) {  // the options were checked above: this is a failure of the run
        std::cerr << "ch06_derived: error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
