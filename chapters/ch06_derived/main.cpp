/// \file ch06_derived/main.cpp
/// \brief Chapter 6 — launch parameters derived from the machine. For every op and a few shapes it
///        prints each derived parameter with the rule that set it and the metric that bound it,
///        chapter 5's default launch beside it, and the model's predicted time for both; on a GPU
///        both measured, and with --sweep every legal launch of the tuned step (the oracle).
/// Run: ./workbook run ch06 -- --device-preset t10   (or build/bin/ch06_derived --help)
#include "derived_comparison.hpp"
#include "derived_launch.hpp"
#include "derived_options.hpp"
#include "launch_rows.hpp"
#include "report.hpp"

#include "cli.hpp"
#include "device.hpp"

#include <CLI/CLI.hpp>

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

std::string num(const char* f, double v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, f, v);
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
        if (c.derived_measured_ms > 0 && c.default_measured_ms > 0)
            std::cout << num(" (derived %.2fx the default's speed)", c.default_measured_ms / c.derived_measured_ms);
        std::cout << (c.measured_note.empty() ? "" : "  " + c.measured_note) << "\n";
    }
    if (c.swept > 0) {
        std::cout << "  sweep (" << c.swept << " legal launches): best " << c.best_launch << " " << ms(c.best_ms)
                  << ", worst " << c.worst_launch << " " << ms(c.worst_ms) << "\n";
        if (c.best_ms > 0)
            std::cout << "  against the sweep's best: derived " << num("%.2fx", std::max(0.0, c.derived_vs_best()))
                      << ", chapter 5 default " << num("%.2fx", std::max(0.0, c.default_vs_best()))
                      << " its speed (as the sweep timed them: derived " << ms(c.derived_time()) << ", default "
                      << ms(c.default_time()) << ")\n";
        std::cout << "  the model's ranking: "
                  << (c.rho >= -1 ? num("Spearman's rho %.2f", c.rho) + " over " + std::to_string(c.ranked) + " launches"
                                  : "no rho (fewer than two launches predicted, or all predicted alike)")
                  << "\n";
    }
    if (!c.sweep_note.empty()) std::cout << "  sweep: " << c.sweep_note << "\n";
}

/// The op's cases in one table (the measured times, each against the sweep's best), then the
/// summary line: what the chapter page quotes from a run's text.
void print_summary(const std::vector<wb::ch06::Comparison>& rows, const wb::ch06::OpSummary& s) {
    if (s.cases == 0) return;
    std::printf("\n%s: the derivation against the sweep (ms, as the sweep timed each launch; derived/best and "
                "default/best: the best's time over each, 1 = the best)\n",
                s.op.c_str());
    std::printf("  %-32s %10s %10s %10s %13s %13s %6s\n", "shape", "derived", "default", "best", "derived/best",
                "default/best", "rho");
    for (const auto& c : rows) {
        if (c.swept == 0) continue;
        std::printf("  %-32s %10.4f %10.4f %10.4f %13.3f %13.3f %6s\n", c.derived.shape.c_str(), c.derived_time(),
                    c.default_time(), c.best_ms, c.derived_vs_best(), c.default_vs_best(),
                    c.rho >= -1 ? num("%.2f", c.rho).c_str() : "-");
    }
    std::cout << s.op << ": derived / the sweep's best over " << s.cases << " cases: mean " << num("%.3f", s.mean)
              << ", worst " << num("%.3f", s.worst) << " (" << s.worst_shape << ")"
              << "; chapter 5's default: mean " << num("%.3f", s.default_mean) << ", worst "
              << num("%.3f", s.default_worst);
    if (s.ranked_cases > 0)
        std::cout << "; Spearman's rho of the model over " << s.ranked_cases << " cases: mean " << num("%.2f", s.rho_mean)
                  << ", worst " << num("%.2f", s.rho_worst);
    std::cout << "\n";
}

}  // namespace

int main(int argc, char** argv) {
    wb::ChapterOptions opt;
    bool sweep = false, shapes = false, wave_tail = false;
    std::string launches_csv;
    const int code = wb::parse_chapter_cli(
        argc, argv, "ch06_derived",
        "Chapter 6 — launch parameters derived from the machine (White §4.5, KBLAS's nb, Q, Y, Little's law): "
        "each op's derived launch with the rule and metric behind each parameter, beside chapter 5's default, "
        "with the model's predicted time for both.",
        opt,
        {{"--sweep",
          "On a GPU, also time every legal launch of the tuned step for each case (GEMV, GEMM, conv2d, SYMV), "
          "print the sweep's best and worst beside the derived and the default launch, and Spearman's rho of "
          "the model's predicted times against the measured ones (minutes per op)",
          &sweep},
         {"--shapes",
          "Each op's held-out shape set (at least 12 shapes no rule was written from: non-powers of two, "
          "skinny both ways, odd leading dimensions, both sides of a wave boundary) in place of the page's "
          "shapes",
          &shapes},
         {"--wave-tail",
          "GEMV (n x n, op N and T) and SYMV at n = 64 k across a wave boundary, each case swept on a GPU: "
          "chapter 5's default, the derived launch and the sweep's best, for scripts/plot_wave_tail.py (with "
          "--csv)",
          &wave_tail}},
        [&](CLI::App& app) {
            app.add_option("--launches-csv", launches_csv,
                           "With --sweep or --wave-tail: write every swept launch of each case to this CSV, one row "
                           "each (the run's metadata, op, shape, precision, launch, is derived, is default, predicted "
                           "ms, measured ms, params), for scripts/launch_ranks.py");
        });
    if (code >= 0) return code;
    wb::ch06::CaseSelection cases;
    try {
        cases = wb::ch06::case_selection(opt, shapes, wave_tail);  // before any output: a usage error prints nothing else
        wb::ch06::check_launches_csv(launches_csv, sweep, wave_tail);
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
        for (const std::string& note : wb::ch06::option_notes(opt, live, sweep, wave_tail, launches_csv))
            std::cout << "note: " << note << "\n";
        std::vector<int> precisions;
        if (opt.precision != "double") precisions.push_back(4);
        if (opt.precision != "float") precisions.push_back(8);
        // --csv: one row per case (the parameters' rules are the printed text; the launches and
        // times are the rows), then per op its summary rows (shape "mean of N cases", "worst"),
        // each with the run's metadata like every chapter's CSV.
        wb::Report table("chapter 6: derived launches",
                         {"op", "shape", "derived launch", "derived model ms", "default launch", "default model ms",
                          "derived ms", "default ms", "swept", "best launch", "best ms", "worst launch", "worst ms",
                          "derived/best", "default/best", "derived/default", "rho", "ranked", "bytes"});
        wb::Report launches = wb::ch06::launches_report();  // --launches-csv: every swept launch of each case
        auto msv = [](double v) {  // "-": not measured, or infinite (no block of the launch fits)
            return std::isfinite(v) && v >= 0 ? wb::fmt(v, 4) : std::string("-");
        };
        auto ratio = [](double v) { return v > 0 ? wb::fmt(v, 3) : std::string("-"); };
        auto rho = [](double v) { return v >= -1 ? wb::fmt(v, 3) : std::string("-"); };
        for (const std::string& op : cases.ops) {
            if (op == "gemm")  // what the GEMM derivation reads besides the profile
                for (int elem : precisions) std::cout << "\n" << wb::ch06::gemm_kernel_rates_text(elem, live);
            const auto rows = wb::ch06::compare_op(op, dev, precisions, live, live && (sweep || wave_tail), cases);
            for (const auto& c : rows) {
                print(c);
                wb::ch06::add_launch_rows(launches, c);
                const double vs_default = c.derived_measured_ms > 0 && c.default_measured_ms > 0
                                              ? c.default_measured_ms / c.derived_measured_ms
                                              : -1;
                table.add_row({c.derived.op, c.derived.shape, c.derived_launch.empty() ? "-" : c.derived_launch,
                               msv(c.derived_ms), c.default_launch, msv(c.default_ms), msv(c.derived_measured_ms),
                               msv(c.default_measured_ms), std::to_string(c.swept),
                               c.best_launch.empty() ? "-" : c.best_launch, msv(c.best_ms),
                               c.worst_launch.empty() ? "-" : c.worst_launch, msv(c.worst_ms),
                               ratio(c.derived_vs_best()), ratio(c.default_vs_best()), ratio(vs_default), rho(c.rho),
                               std::to_string(c.ranked), c.bytes > 0 ? wb::fmt(c.bytes, 0) : "-"});
            }
            const wb::ch06::OpSummary s = wb::ch06::summarize(op, rows);
            print_summary(rows, s);
            if (s.cases > 0) {
                table.add_row({op, "mean of " + std::to_string(s.cases) + " cases", "-", "-", "-", "-", "-", "-", "-",
                               "-", "-", "-", "-", ratio(s.mean), ratio(s.default_mean), "-", rho(s.rho_mean),
                               std::to_string(s.ranked_cases), "-"});
                table.add_row({op, "worst (" + s.worst_shape + ")", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-",
                               "-", ratio(s.worst), ratio(s.default_worst), "-", rho(s.rho_worst), "-", "-"});
            }
        }
        if (!opt.csv.empty() || !launches_csv.empty()) {  // the metadata name the GPU that was measured
            const wb::DeviceInfo di = live ? wb::query_device(opt.device) : wb::DeviceInfo{};
            const wb::RunMetadata meta = wb::run_metadata(live ? &di : nullptr);
            if (!opt.csv.empty()) table.write_csv(opt.csv, meta);
            if (!launches_csv.empty()) launches.write_csv(launches_csv, meta);
        }
    } catch (const std::exception& e) {  // the options were checked above: this is a failure of the run
        std::cerr << "ch06_derived: error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
