/// \file gemv_chapter.cpp
/// \brief The ladder chapters' shared main (see gemv_chapter.hpp).
#include "gemv_chapter.hpp"

#include "ceilings.hpp"
#include "cli.hpp"
#include "device.hpp"
#include "device_profile.hpp"
#include "gemv_problem.hpp"
#include "memory_lab.hpp"
#include "model.hpp"
#include "progress.hpp"
#include "random.hpp"
#include "report.hpp"
#include "roofline.hpp"

#include <CLI/CLI.hpp>

#include <cmath>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

namespace wb {
namespace {

const std::vector<int> kDefaultSizes = {1024, 2048, 4096, 8192, 16384};

std::vector<std::string> precisions(const ChapterOptions& o) {
    if (o.precision == "both") return {"float", "double"};
    return {o.precision};
}
std::vector<Op> ops(const ChapterOptions& o) {
    if (o.trans == "both") return {Op::N, Op::T};
    return {parse_op(o.trans)};
}

/// The chapters whose steps a run shows: naive, previous, this (or the whole ladder).
std::vector<int> chapters_to_run(int chapter, bool whole_ladder) {
    if (whole_ladder) return {1, 2, 3, 4, 5};
    std::vector<int> v{1};
    if (chapter - 1 > 1) v.push_back(chapter - 1);
    if (chapter > 1) v.push_back(chapter);
    return v;
}

std::string step_label(int ch, const std::string& stage) {
    if (ch == 0) return "cuBLAS";
    return "ch0" + std::to_string(ch) + " " + stage;
}

const std::vector<std::string> kColumns = {"precision", "op",     "n",       "step",     "ms",     "GB/s",
                                           "% read",    "% copy", "x prev",  "x naive",  "x cuBLAS",
                                           "model GB/s", "rel err", "note"};

/// Predictions only (no GPU, or --device-preset).
int predict_only(const ChapterOptions& o, const ChapterInfo& info, const std::vector<int>& sizes, bool ladder) {
    const std::string preset = o.device_preset.empty() ? "h200" : o.device_preset;
    const DeviceProfile dev = device_preset(preset);
    Report rep("Chapter " + std::to_string(info.chapter) + " — " + info.title + ": model predictions for " +
                   dev.name + " (nothing measured)",
               {"precision", "op", "n", "step", "useful MB", "DRAM MB", "sectors", "blocks/SM", "model GB/s",
                "model ms", "limit"});
    std::set<std::string> notes;
    for (const auto& prec : precisions(o)) {
        const int elem = prec == "float" ? 4 : 8;
        for (Op op : ops(o))
            for (int n : sizes)
                for (int ch : chapters_to_run(info.chapter, ladder)) {
                    const auto& step = gemv_step<float>(ch);
                    const GemvArgs<float> shape{op, n, n};
                    const Launch l = step.default_launch(shape);
                    const auto p = model::predict_gemv(step.stage, op == Op::T, n, n, elem,
                                                       l.block_x * std::max(1, l.block_y), dev, true);
                    rep.add_row({prec, std::string(1, op_char(op)), std::to_string(n), step_label(ch, step.stage),
                                 fmt(p.useful_bytes / 1e6), fmt(p.dram_bytes / 1e6), std::to_string(p.transactions),
                                 std::to_string(p.occ.blocks_per_sm), fmt(p.predicted_gbs), fmt(p.predicted_ms, 4),
                                 p.note.substr(0, p.note.find_first_of(":;"))});
                    notes.insert(p.note);
                }
    }
    rep.print(std::cout);
    std::cout << "\nwhat limits each row, in the model's words:\n";
    for (const auto& n : notes) std::cout << "  - " << n << "\n";
    if (!o.csv.empty()) rep.write_csv(o.csv, run_metadata(nullptr));
    return 0;
}

struct Measured {
    double ms = NAN;
    double gbs = NAN;
};

template <class T>
void measure_precision(const ChapterOptions& o, const ChapterInfo& info, const std::vector<int>& sizes, bool ladder,
                       const Ceilings& ceil, const DeviceProfile& dev, Report& rep, Progress& prog,
                       std::map<std::string, std::vector<double>>& speedups) {
    const std::string prec = sizeof(T) == 4 ? "float" : "double";
    const std::vector<int> chs = chapters_to_run(info.chapter, ladder);
    BenchOptions bo;
    if (o.quick) {
        bo.min_reps = 3;
        bo.max_reps = 10;
        bo.max_seconds = 0.3;
    }
    for (Op op : ops(o)) {
        for (int n : sizes) {
            auto p = make_gemv_problem<T>(op, n, n, n, fresh_seed());
            const auto ref = p.reference();
            std::map<int, Measured> got;  // chapter -> measurement (0 = cuBLAS)
            std::map<int, std::string> errs, notes;
            std::vector<int> order = chs;
            order.push_back(0);
            for (int ch : order) {
                const GemvStep<T>& step = ch == 0 ? gemv_peer<T>() : gemv_step<T>(ch);
                const Launch l = step.default_launch(p.args());
                prog.step(prec + " " + op_char(op) + " n=" + std::to_string(n) + " " + step.stage);
                const GemvCheck c = check_gemv(step, l, p, ref);
                std::ostringstream e;
                e.precision(1);
                e << std::scientific << c.rel_error;
                errs[ch] = c.ok() ? e.str() : "FAIL " + e.str();
                const BenchStats s = time_gemv(step, l, p, bo);
                got[ch] = {s.median_ms, roofline::gbs(p.useful_bytes(), s.median_ms)};
                if (s.l2_resident) notes[ch] = "L2-resident";
            }
            for (int ch : order) {
                const GemvStep<T>& step = ch == 0 ? gemv_peer<T>() : gemv_step<T>(ch);
                const Measured& me = got[ch];
                auto ratio = [&](int other) {
                    return got.count(other) && other != ch ? fmt_ratio(got[other].ms / me.ms) : std::string("-");
                };
                const int prev = ch - 1;
                std::string model_gbs = "-";
                if (ch != 0) {
                    const Launch l = step.default_launch(p.args());
                    const auto pr = model::predict_gemv(step.stage, op == Op::T, n, n, sizeof(T),
                                                        l.block_x * std::max(1, l.block_y), dev, true);
                    model_gbs = fmt(pr.predicted_gbs);
                }
                rep.add_row({prec, std::string(1, op_char(op)), std::to_string(n), step_label(ch, step.stage),
                             fmt(me.ms, 4), fmt(me.gbs), fmt_pct(me.gbs / ceil.read_gbs), fmt_pct(me.gbs / ceil.copy_gbs),
                             ch >= 2 ? ratio(prev) : "-", ch >= 2 ? ratio(1) : "-", ch != 0 ? ratio(0) : "-", model_gbs,
                             errs[ch], notes[ch]});
            }
            // The read floor: the same bytes of A read once by the chapter-0 read kernel, no
            // arithmetic, same flush. Where cuBLAS sits on it, no GEMV can beat cuBLAS by much.
            prog.step(prec + " " + op_char(op) + " n=" + std::to_string(n) + " read A only");
            BenchOptions fo = bo;
            fo.working_set_bytes = static_cast<std::size_t>(p.m) * p.n * sizeof(T);
            const lab::CeilingRow fl = lab::measure_read_floor(fo.working_set_bytes, fo);
            const double fl_gbs = roofline::gbs(p.useful_bytes(), fl.ms);
            rep.add_row({prec, std::string(1, op_char(op)), std::to_string(n), "read A only", fmt(fl.ms, 4), fmt(fl_gbs),
                         fmt_pct(fl_gbs / ceil.read_gbs), fmt_pct(fl_gbs / ceil.copy_gbs), "-", "-",
                         fmt_ratio(got[0].ms / fl.ms), "-", "-", "floor: A read once, no arithmetic"});
            const std::string key = prec + " " + op_char(op);
            speedups[key + " read A only vs cuBLAS"].push_back(got[0].ms / fl.ms);
            if (info.chapter >= 2 && got.count(info.chapter - 1))
                speedups[key + " vs prev"].push_back(got[info.chapter - 1].ms / got[info.chapter].ms);
            speedups[key + " vs cuBLAS"].push_back(got[0].ms / got[info.chapter].ms);
        }
    }
}

/// --sweep: time every legal Launch of this chapter's step (a preview of chapter 6's search).
template <class T>
void sweep_precision(const ChapterOptions& o, const ChapterInfo& info, const std::vector<int>& sizes, Report& rep,
                     Report& all) {
    const std::string prec = sizeof(T) == 4 ? "float" : "double";
    const GemvStep<T>& step = gemv_step<T>(info.chapter);
    BenchOptions bo;
    bo.min_reps = 5;
    bo.max_reps = 30;
    bo.max_seconds = 0.5;
    for (Op op : ops(o))
        for (int n : sizes) {
            auto p = make_gemv_problem<T>(op, n, n, n, fresh_seed());
            const Launch def = step.default_launch(p.args());
            double def_ms = NAN, best_ms = INFINITY;
            Launch best;
            for (const Launch& l : step.legal_launches(p.args())) {
                const double ms = time_gemv(step, l, p, bo).median_ms;
                all.add_row({prec, std::string(1, op_char(op)), std::to_string(n), l.str(), fmt(ms, 4),
                             fmt(roofline::gbs(p.useful_bytes(), ms))});
                if (l == def) def_ms = ms;
                if (ms < best_ms) {
                    best_ms = ms;
                    best = l;
                }
            }
            if (std::isnan(def_ms)) def_ms = time_gemv(step, def, p, bo).median_ms;
            rep.add_row({prec, std::string(1, op_char(op)), std::to_string(n), def.str(),
                         fmt(roofline::gbs(p.useful_bytes(), def_ms)), best.str(),
                         fmt(roofline::gbs(p.useful_bytes(), best_ms)), fmt_ratio(def_ms / best_ms)});
        }
}

double geomean(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += std::log(x);
    return v.empty() ? NAN : std::exp(s / v.size());
}

}  // namespace

int run_ladder_chapter(int argc, char** argv, const ChapterInfo& info) {
    ChapterOptions o;
    bool ladder = false;
    CLI::App app{"Chapter " + std::to_string(info.chapter) + " — " + info.title, info.name};
    add_chapter_options(app, o);
    app.add_flag("--ladder", ladder, "Run every step of the ladder, not only naive, previous and this one");
    bool sweep = false;
    app.add_flag("--sweep", sweep, "Time every legal launch of this chapter's step and print the best");
    try {
        app.parse(argc, argv);
        validate_chapter_options(o);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const std::invalid_argument& e) {
        std::cerr << info.name << ": " << e.what() << "\n";
        return 2;
    }
    if (o.op != "gemv") {
        std::cerr << info.name << ": --op " << o.op << " has no ladder yet in this chapter (only gemv)\n";
        return 2;
    }
    const std::vector<int> sizes = o.sizes.empty() ? kDefaultSizes : o.sizes;
    try {
        if (!o.device_preset.empty()) return predict_only(o, info, sizes, ladder);
        if (!has_cuda_device()) {
            std::cout << "no CUDA device found: printing the model's predictions for the h200 preset; nothing "
                         "was measured\n";
            return predict_only(o, info, sizes, ladder);
        }
        select_device(o.device);
        const DeviceInfo di = query_device(o.device);
        const RunMetadata meta = run_metadata(&di);
        const Ceilings& ceil = measured_ceilings();
        DeviceProfile dev = device_profile_from_device(o.device);
        dev.bandwidth_gbs = ceil.read_gbs;  // the model predicts against the measured read stream
        std::cout << "Chapter " << info.chapter << " — " << info.title << "\n"
                  << di.name << ", " << di.sm_count << " SMs, commit " << meta.commit << ", " << meta.date << "\n"
                  << "ceilings: read " << fmt(ceil.read_gbs) << " GB/s, copy " << fmt(ceil.copy_gbs)
                  << " GB/s (memcpy " << fmt(ceil.copy_memcpy_gbs) << ", kernel " << fmt(ceil.copy_kernel_gbs)
                  << "), theoretical " << fmt(ceil.theoretical_gbs) << " GB/s; L2 flushed before every timed call\n\n";
        Report rep("GEMV y = 1.5 op(A) x + 0.5 y, lda = n: chapter " + std::to_string(info.chapter) + " (" +
                       gemv_step<float>(info.chapter).stage + ")",
                   kColumns);
        if (sweep) {
            Report sw("Launch sweep of ch0" + std::to_string(info.chapter) + " " + gemv_step<float>(info.chapter).stage,
                      {"precision", "op", "n", "default launch", "GB/s", "best launch", "best GB/s", "best/default"});
            Report all("Every launch", {"precision", "op", "n", "launch", "ms", "GB/s"});
            for (const auto& prec : precisions(o)) {
                if (prec == "float")
                    sweep_precision<float>(o, info, sizes, sw, all);
                else
                    sweep_precision<double>(o, info, sizes, sw, all);
            }
            sw.print(std::cout);
            if (!o.csv.empty()) {
                sw.write_csv(o.csv, meta);
                // every launch, next to the summary: <stem>_all.csv
                const auto dot = o.csv.rfind('.');
                all.write_csv((dot == std::string::npos ? o.csv : o.csv.substr(0, dot)) + "_all.csv", meta);
            }
            return 0;
        }
        const std::size_t total = precisions(o).size() * ops(o).size() * sizes.size() *
                                  (chapters_to_run(info.chapter, ladder).size() + 2);
        Progress prog(info.name, total);
        std::map<std::string, std::vector<double>> speedups;
        for (const auto& prec : precisions(o)) {
            if (prec == "float")
                measure_precision<float>(o, info, sizes, ladder, ceil, dev, rep, prog, speedups);
            else
                measure_precision<double>(o, info, sizes, ladder, ceil, dev, rep, prog, speedups);
        }
        rep.print(std::cout);
        std::cout << "\nsummary (geometric mean over sizes) of ch0" << info.chapter << " "
                  << gemv_step<float>(info.chapter).stage << ":\n";
        for (const auto& [k, v] : speedups) std::cout << "  " << k << ": " << fmt_ratio(geomean(v)) << "\n";
        if (!o.csv.empty()) rep.write_csv(o.csv, meta);
        for (const auto& row : rep.rows())
            if (row[12].rfind("FAIL", 0) == 0) {
                std::cerr << info.name << ": a step failed its correctness check (see 'rel err')\n";
                return 1;
            }
        return 0;
    } catch (const std::exception& e) {
        std::cerr << info.name << ": " << e.what() << "\n";
        return 1;
    }
}

}  // namespace wb
