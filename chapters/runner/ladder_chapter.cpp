/// \file ladder_chapter.cpp
/// \brief The ladder chapters' shared main (ladder_chapter.hpp): options, device, ceilings, then
///        every selected op's table through the OpChapter interface.
#include "ladder_chapter.hpp"

#include "ceilings.hpp"
#include "cli.hpp"
#include "device.hpp"
#include "device_profile.hpp"
#include "op_runner.hpp"
#include "ops.hpp"
#include "report.hpp"
#include "stages.hpp"
#include "stop_signal.hpp"

#include <CLI/CLI.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <iostream>

namespace wb {

std::vector<int> chapters_to_run(int chapter, bool whole_ladder) {
    if (whole_ladder) {  // the steps up to this chapter's: the ones its binary links
        std::vector<int> all;
        for (const auto& s : stages())
            if (s.chapter <= chapter) all.push_back(s.chapter);
        return all;
    }
    std::vector<int> v{1};
    if (chapter - 1 > 1) v.push_back(chapter - 1);
    if (chapter > 1) v.push_back(chapter);
    return v;
}

const std::vector<std::string>& measured_csv_columns() {
    static const std::vector<std::string> cols = {"ms",      "rate",       "% ceiling", "x prev",  "x naive",
                                                  "x peer",  "model rate", "model err", "rel err", "note"};
    return cols;
}

std::string fmt_model_error(double model, double measured) {
    if (!(model > 0) || !(measured > 0)) return "-";
    const double e = (model - measured) / measured * 100.0;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.0f%%", e);
    return buf;
}

std::string fmt_check(double rel_error, bool ok) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s%.1e", ok ? "" : "FAIL ", rel_error);
    return buf;
}

double geomean(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += std::log(x);
    return v.empty() ? NAN : std::exp(s / static_cast<double>(v.size()));
}

void mark_csv_incomplete(const std::string& path, const std::vector<std::string>& cols, const RunMetadata& meta,
                         int sig, std::size_t rows) {
    if (path.empty() || cols.empty()) return;
    auto column = [&](const std::string& name, std::size_t otherwise) {
        const auto it = std::find(cols.begin(), cols.end(), name);
        return it == cols.end() ? otherwise : static_cast<std::size_t>(it - cols.begin());
    };
    std::vector<std::string> cells(cols.size(), "-");
    cells[column("step", 0)] = std::string("stopped by ") + stop_signal_name(sig);
    cells[column("note", cols.size() - 1)] =
        "the run was stopped: the " + std::to_string(rows) + " rows above are what it measured";
    cells[0] = "(incomplete)";
    Report r("all ops", cols);
    r.add_row(cells);
    r.write_csv(path, meta, true);
}

namespace {

/// The printed table of one op: its own column names.
Report printed(const OpTable& t) {
    std::vector<std::string> cols = {"precision", "variant", "shape", "step"};
    cols.insert(cols.end(), t.columns.begin(), t.columns.end());
    Report r(t.title, cols);
    for (const auto& row : t.rows) {
        std::vector<std::string> cells = {row.precision, row.variant, row.shape, row.step};
        cells.insert(cells.end(), row.cells.begin(), row.cells.end());
        r.add_row(cells);
    }
    return r;
}

/// `<stem>-<op>.csv` when a run writes one file per op (sweeps and predictions of several ops).
std::string per_op_path(const std::string& csv, const std::string& op, const std::string& suffix, bool several) {
    const auto dot = csv.rfind('.');
    const std::string stem = dot == std::string::npos ? csv : csv.substr(0, dot);
    return stem + (several ? "-" + op : std::string()) + suffix + ".csv";
}

void print_summary(const OpTable& t, int chapter) {
    if (t.speedups.empty() && t.notes.empty()) return;
    if (!t.speedups.empty()) {
        std::cout << "\n" << t.op << " summary (geometric mean over shapes) of " << step_label(chapter, "") << ":\n";
        for (const auto& [k, v] : t.speedups) std::cout << "  " << k << ": " << fmt_ratio(geomean(v)) << "\n";
    }
    if (!t.notes.empty()) {
        std::cout << "\nwhat limits each " << t.op << " row, in the model's words:\n";
        for (const auto& n : t.notes) std::cout << "  - " << n << "\n";
    }
}

/// Exit code of a run that finished: 1 when a step failed its check, 3 when cases were skipped
/// because they do not fit in memory, 0 otherwise.
int finished_code(bool failed, std::size_t skipped, const std::string& who) {
    if (skipped > 0)
        std::cerr << who << ": " << skipped << " case(s) skipped: not enough memory (the lines above say how much)\n";
    return failed ? 1 : skipped > 0 ? 3 : 0;
}

std::vector<std::string> registered_names() {
    std::vector<std::string> v;
    for (const auto& op : registered_ops()) v.push_back(op->name());
    return v;
}

}  // namespace

int run_ladder_chapter(int argc, char** argv, int chapter) {
    const StageInfo& info = stage_of(chapter);
    ChapterRun run;
    run.chapter = chapter;
    bool sweep = false, list_ops = false, shapes = false;
    double read_gbs = 0;  // --read-gbs: 0 keeps the preset's datasheet bandwidth
    CLI::App app{"Chapter " + std::to_string(chapter) + " — " + info.title, info.directory};
    add_chapter_options(app, run.opt, registered_names());
    app.add_flag("--ladder", run.whole_ladder,
                 "Run every step up to this chapter's (chapter 5: the whole ladder), not only naive, previous and "
                 "this one");
    app.add_flag("--sweep", sweep, "Time every legal launch of this chapter's step and print the best");
    app.add_flag("--list-ops", list_ops, "Print the registered ops, one per line, and exit");
    app.add_flag("--shapes", shapes,
                 "Time this chapter's step and the peer on each op's shape set (ops that have one), the ratio "
                 "per shape and its geometric mean per variant");
    app.add_option("--read-gbs", read_gbs,
                   "With --device-preset: predict against this read bandwidth, GB/s (a run's measured read "
                   "ceiling, printed in its header), as a run on the card does, instead of the preset's datasheet "
                   "figure; so a prediction without a GPU reproduces the model column of a measured table");
    app.footer("Exit codes: 0 done; 1 a step failed its check, or an error; 2 a usage error; 3 some cases were "
               "skipped because they do not fit in memory (each says how much it needs); 130 / 143 stopped by "
               "SIGINT / SIGTERM (the rows measured so far are printed and kept in the CSV, marked incomplete).");
    try {
        app.parse(argc, argv);
        validate_chapter_options(run.opt, registered_names());
        if (app.count("--read-gbs") > 0 && !(read_gbs > 0 && std::isfinite(read_gbs)))
            throw std::invalid_argument("chapter options: --read-gbs (" + fmt(read_gbs) +
                                        ") must be a finite number of GB/s > 0");
        if (app.count("--read-gbs") > 0 && run.opt.device_preset.empty())
            throw std::invalid_argument("chapter options: --read-gbs needs --device-preset (a run on a GPU "
                                        "predicts against the read ceiling it measures)");
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);  // prints the help (code 0) or the error
        return code == 0 ? 0 : 2;      // every usage error exits with 2
    } catch (const std::invalid_argument& e) {
        std::cerr << info.directory << ": " << e.what() << "\n";
        return 2;
    }
    if (list_ops) {
        for (const auto& n : registered_names()) std::cout << n << "\n";
        return 0;
    }
    const std::vector<const OpChapter*> ops = select_ops(run.opt.op);
    const bool several = ops.size() > 1;
    try {
        RunMetadata meta = run_metadata(nullptr);
        const bool measure = run.opt.device_preset.empty() && has_cuda_device();
        if (!measure) {
            if (run.opt.device_preset.empty())
                std::cout << "no CUDA device found: printing the model's predictions for the h200 preset; nothing "
                             "was measured\n";
            run.dev = device_preset(run.opt.device_preset.empty() ? "h200" : run.opt.device_preset);
            if (read_gbs > 0) run.dev.bandwidth_gbs = read_gbs;  // as a measured run sets it (below)
            if (shapes)
                std::cout << "--shapes times on a GPU: printing the model's predictions of the shape set (of the "
                             "default cases where an op has none)\n";
            run.shape_set = shapes;
            std::size_t skipped = 0;
            for (const OpChapter* op : ops) {
                const OpTable t = op->predict(run);
                printed(t).print(std::cout);
                print_summary(t, chapter);
                std::cout << "\n";
                if (!run.opt.csv.empty()) printed(t).write_csv(per_op_path(run.opt.csv, t.op, "", several), meta);
                skipped += t.skipped.size();
            }
            return finished_code(false, skipped, info.directory);
        }
        clear_stop();
        install_stop_handlers();  // from here on a SIGINT or SIGTERM keeps the rows measured so far
        // A stopped run: the GPU is left idle, the exit code says which signal.
        auto stopped = [&](std::size_t rows) {
            const int sig = stop_signal();
            (void)cudaDeviceSynchronize();
            std::cerr << info.directory << ": stopped by " << stop_signal_name(sig) << " after " << rows
                      << " measured rows"
                      << (run.opt.csv.empty() ? "" : " (kept in " + run.opt.csv + ", marked incomplete)") << "\n";
            return stop_exit_code(sig);
        };
        select_device(run.opt.device);
        const DeviceInfo di = query_device(run.opt.device);
        meta = run_metadata(&di);
        run.dev = device_profile_from_device(run.opt.device);
        {  // a run none of whose cases fits says so at once, before the ceilings are measured
            std::size_t cases = 0;
            std::vector<std::string> oversized;
            for (const OpChapter* op : ops) {
                const OpChapter::Fit f = op->memory_fit(run, shapes);
                cases += f.cases;
                oversized.insert(oversized.end(), f.oversized.begin(), f.oversized.end());
            }
            if (cases > 0 && oversized.size() == cases) {
                for (const auto& line : oversized) std::cout << line << "\n";
                return finished_code(false, oversized.size(), info.directory);
            }
        }
        for (const OpChapter* op : ops) op->before_ceilings(run);
        const Ceilings& ceil = measured_ceilings();
        run.ceil = &ceil;
        run.dev.bandwidth_gbs = ceil.read_gbs;  // the models predict against the measured read stream
        if (ceil.read_gbs > 0 && ceil.copy_kernel_gbs > 0)  // and the measured cost of mixing in writes
            run.dev.copy_over_read = ceil.copy_kernel_gbs / ceil.read_gbs;
        run.dev.sgemm_clock_mhz = ceil.sgemm_clock_mhz;  // and the clock a GEMM's power leaves
        run.dev.dgemm_clock_mhz = ceil.dgemm_clock_mhz;
        if (run.opt.quick) {
            run.bench.min_reps = 3;
            run.bench.max_reps = 10;
            run.bench.max_seconds = 0.3;
        }
        std::cout << "Chapter " << chapter << " — " << info.title << "\n"
                  << di.name << ", " << di.sm_count << " SMs, commit " << meta.commit << ", " << meta.date << "\n"
                  << "ceilings: read " << fmt(ceil.read_gbs) << " GB/s, copy " << fmt(ceil.copy_gbs) << " GB/s (memcpy "
                  << fmt(ceil.copy_memcpy_gbs) << ", kernel " << fmt(ceil.copy_kernel_gbs) << "), theoretical "
                  << fmt(ceil.theoretical_gbs) << " GB/s; FP32 FMA " << fmt(ceil.fp32_fma_gflops) << " GFLOP/s (peak "
                  << fmt(ceil.fp32_peak_gflops) << "); FP64 FMA " << fmt(ceil.fp64_fma_gflops)
                  << (ceil.fp64_tensor_gflops > 0 ? ", FP64 tensor cores " + fmt(ceil.fp64_tensor_gflops) : std::string())
                  << " GFLOP/s"
                  << (ceil.sgemm_clock_mhz > 0 ? "; SM clock " + fmt(ceil.sm_clock_mhz) + " MHz, under an SGEMM's power " +
                                                     fmt(ceil.sgemm_clock_mhz) + ", a DGEMM's " + fmt(ceil.dgemm_clock_mhz)
                                               : std::string())
                  << "; L2 flushed before every timed call\n\n";
        if (sweep) {
            std::size_t skipped = 0, rows = 0;
            for (const OpChapter* op : ops) {
                if (stop_signal() != 0) break;
                OpTable every;
                const OpTable t = op->sweep(run, every);
                printed(t).print(std::cout);
                std::cout << "\n";
                if (!run.opt.csv.empty()) {
                    printed(t).write_csv(per_op_path(run.opt.csv, t.op, "", several), meta);
                    printed(every).write_csv(per_op_path(run.opt.csv, t.op, "_all", several), meta);
                }
                skipped += t.skipped.size();
                rows += every.rows.size();
                if (stop_signal() != 0 && !run.opt.csv.empty()) {
                    std::vector<std::string> cols = {"precision", "variant", "shape", "step"};
                    cols.insert(cols.end(), every.columns.begin(), every.columns.end());
                    mark_csv_incomplete(per_op_path(run.opt.csv, t.op, "_all", several), cols, meta, stop_signal(),
                                        every.rows.size());
                }
            }
            if (stop_signal() != 0) return stopped(rows);
            return finished_code(false, skipped, info.directory);
        }
        std::size_t total = 0;
        for (const OpChapter* op : ops) total += shapes ? op->shape_rows(run) : op->timed_rows(run);
        Progress prog(info.directory, total);
        std::vector<std::string> csv_cols = {"op", "precision", "variant", "shape", "step"};
        csv_cols.insert(csv_cols.end(), measured_csv_columns().begin(), measured_csv_columns().end());
        csv_cols.push_back("unit");
        // The CSV grows case by case, so a run cut short (a time limit) keeps what it measured.
        if (!run.opt.csv.empty()) Report("all ops", csv_cols).write_csv(run.opt.csv, meta);
        auto write_rows = [&](const OpTable& t, std::size_t first) {
            if (run.opt.csv.empty()) return;
            Report csv("all ops", csv_cols);
            for (std::size_t i = first; i < t.rows.size(); ++i) {
                const ChapterRow& row = t.rows[i];
                std::vector<std::string> cells = {t.op, row.precision, row.variant, row.shape, row.step};
                cells.insert(cells.end(), row.cells.begin(), row.cells.end());
                cells.push_back(t.columns.size() > 1 ? t.columns[1] : "");
                csv.add_row(cells);
            }
            csv.write_csv(run.opt.csv, meta, true);
        };
        bool failed = false;
        std::size_t skipped = 0, rows = 0;
        for (const OpChapter* op : ops) {
            if (stop_signal() != 0) break;
            if (shapes && op->shape_rows(run) == 0) {
                std::cout << op->name() << ": no shape set (--shapes)\n\n";
                continue;
            }
            const OpTable t = shapes ? op->shapes(run, prog, write_rows) : op->measure(run, prog, write_rows);
            printed(t).print(std::cout);
            print_summary(t, chapter);
            std::cout << "\n";
            if (t.failed) {
                std::cerr << info.directory << ": a " << t.op << " step failed its correctness check (see 'rel err')\n";
                failed = true;
            }
            skipped += t.skipped.size();
            rows += t.rows.size();
        }
        if (stop_signal() != 0) {
            mark_csv_incomplete(run.opt.csv, csv_cols, meta, stop_signal(), rows);
            return stopped(rows);
        }
        return finished_code(failed, skipped, info.directory);
    } catch (const std::exception& e) {
        std::cerr << info.directory << ": " << e.what() << "\n";
        return 1;
    }
}

}  // namespace wb
