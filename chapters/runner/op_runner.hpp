/// \file op_runner.hpp
/// \brief The chapter loop written once for every op (see docs/pages/architecture.md):
///        LadderOp<Traits> turns an op's traits into the OpChapter the chapter binaries iterate.
///
/// An op's traits (`chapters/runner/<op>_op.cpp`) supply, for T = float and double:
///   kName                      "gemv": what --op selects
///   Args<T>, Problem<T>        the launcher arguments (with Args::Launch) and a problem on the device
///   Case                       one row group: `variant` ("N", "NN", ...), `shape` (its label)
///   cases(opt)                 the cases a run shows (from --sizes, --trans, or the op's defaults)
///   title(), unit(), ceiling_name()           table title, rate unit, the name of its ceiling
///   shape_args<T>(case)        Args with null pointers: what the model needs
///   make_problem<T>(case, seed), reference<T>(problem)
///   check<T>(step, launch, problem, ref) -> anything with rel_error, ok(), first_bad
///   time<T>(step, launch, problem, BenchOptions) -> BenchStats
///   rate<T>(problem, ms)       useful GB/s or GFLOP/s (common/roofline)
///   ceiling<T>(case, ceilings) the ceiling the op is judged against, in the rate's unit
///   predict<T>(case, step, args, launch, device) -> Prediction (rate, ms, limit, details)
///   model_columns()            the names of Prediction::details (predict-only table)
///   extra_rows<T>(run, case, problem, peer_ms, table, progress): rows beyond the steps (or none)
///   extra_predictions<T>(run, case, args) (optional): {label, Prediction} of those extra rows the
///                              model predicts, for the predict-only table
///   extra_timed_rows(run)      how many extra rows each case times (for the progress line)
///   memory_need<T>(case)       the device and host bytes the case needs at its peak (its problem,
///                              the steps' and the peer's workspaces): a case that does not fit is
///                              skipped, with one line, before anything is allocated; an extra row
///                              that needs more (a copy of A) checks that itself (skipped_row)
/// and, optionally, for `--shapes` (a shape benchmark):
///   shape_cases(opt)           the shape set: Cases whose make_problem builds each shape
#pragma once

#include "memory_fit.hpp"
#include "op_chapter.hpp"
#include "random.hpp"
#include "report.hpp"
#include "stages.hpp"
#include "step.hpp"
#include "stop_signal.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

namespace wb {

/// What an op's model says about one step at one shape.
struct Prediction {
    double rate = NAN;                 ///< predicted GB/s or GFLOP/s
    double ms = NAN;                   ///< predicted time
    std::string limit;                 ///< what limits it, in words
    std::vector<std::string> details;  ///< the op's model_columns(), formatted
};

/// "+12%": the model's error against a measurement ("-" when either is missing).
std::string fmt_model_error(double model, double measured);
/// "4.0e-09", or "FAIL 3.2e-01" when the check failed.
std::string fmt_check(double rel_error, bool ok);
/// Geometric mean (NaN for an empty list).
double geomean(const std::vector<double>& v);

/// A row of a measured table that was not run (an extra row whose own memory does not fit): "-"
/// in every measured column, "skipped: <why>" in the note.
inline ChapterRow skipped_row(std::string precision, std::string variant, std::string shape, std::string step,
                              const std::string& why) {
    std::vector<std::string> cells(measured_csv_columns().size(), "-");
    cells.back() = "skipped: " + why;
    return {std::move(precision), std::move(variant), std::move(shape), std::move(step), std::move(cells)};
}

template <class Traits>
class LadderOp final : public OpChapter {
public:
    std::string name() const override { return Traits::kName; }

    std::size_t timed_rows(const ChapterRun& run) const override {
        return precisions(run).size() * Traits::cases(run.opt).size() *
               (chapters_to_run(run.chapter, run.whole_ladder).size() + 1 + Traits::extra_timed_rows(run));
    }

    OpTable measure(const ChapterRun& run, Progress& prog, const RowsDone& on_rows) const override {
        OpTable t = table(run, measured_columns());
        for (const auto& prec : precisions(run)) {
            if (prec == "float") measure_precision<float>(run, prog, t, on_rows);
            else measure_precision<double>(run, prog, t, on_rows);
        }
        return t;
    }

    OpTable predict(const ChapterRun& run) const override {
        std::vector<std::string> cols = {std::string("model ") + Traits::unit(), "model ms"};
        for (const auto& c : Traits::model_columns()) cols.push_back(c);
        cols.push_back("limit");
        OpTable t = table(run, cols);
        t.title += ": model predictions for " + run.dev.name + " (nothing measured)";
        for (const auto& prec : precisions(run)) {
            if (prec == "float") predict_precision<float>(run, t);
            else predict_precision<double>(run, t);
        }
        return t;
    }

    OpTable sweep(const ChapterRun& run, OpTable& every) const override {
        OpTable t = table(run, {"default launch", Traits::unit(), "best launch", std::string("best ") + Traits::unit(),
                                "best/default"});
        t.title = "Launch sweep of " + step_label(run.chapter, "") + ", " + Traits::kName;
        every = table(run, {"launch", "ms", Traits::unit()});
        every.title = "Every launch";
        for (const auto& prec : precisions(run)) {
            if (prec == "float") sweep_precision<float>(run, t, every);
            else sweep_precision<double>(run, t, every);
        }
        return t;
    }

    Fit memory_fit(const ChapterRun& run, bool shape_set) const override {
        Fit fit;
        for (const auto& prec : precisions(run)) {
            if (prec == "float") fit_precision<float>(run, shape_set, fit);
            else fit_precision<double>(run, shape_set, fit);
        }
        return fit;
    }

    void before_ceilings(const ChapterRun& run) const override {
        if constexpr (requires { Traits::template before_ceilings<float>(run); }) {
            for (const auto& prec : precisions(run)) {
                if (prec == "float") Traits::template before_ceilings<float>(run);
                else Traits::template before_ceilings<double>(run);
            }
        }
    }

    std::size_t shape_rows(const ChapterRun& run) const override {
        if constexpr (requires(const ChapterOptions& o) { Traits::shape_cases(o); })
            return precisions(run).size() * Traits::shape_cases(run.opt).size() * 2;
        else
            return 0;
    }

    OpTable shapes(const ChapterRun& run, Progress& prog, const RowsDone& on_rows) const override {
        OpTable t = table(run, measured_columns());
        if constexpr (requires(const ChapterOptions& o) { Traits::shape_cases(o); }) {
            t.title = Traits::kName + std::string(" shape set: ") + step_label(run.chapter, "") + " against " +
                      Traits::peer_label();
            for (const auto& prec : precisions(run)) {
                if (prec == "float") shapes_precision<float>(run, prog, t, on_rows);
                else shapes_precision<double>(run, prog, t, on_rows);
            }
        }
        return t;
    }

private:
    template <class T> using Args = typename Traits::template Args<T>;
    template <class T> using StepT = Step<Args<T>>;

    static std::vector<std::string> precisions(const ChapterRun& run) {
        if (run.opt.precision == "both") return {"float", "double"};
        return {run.opt.precision};
    }
    template <class T> static std::string prec_name() { return sizeof(T) == 4 ? "float" : "double"; }

    static std::vector<std::string> measured_columns() {
        const std::string u = Traits::unit();
        return {"ms", u, "% " + Traits::ceiling_name(), "x prev", "x naive", "x " + Traits::peer_label(),
                "model " + u, "model err", "rel err", "note"};
    }

    static OpTable table(const ChapterRun& run, std::vector<std::string> cols) {
        OpTable t;
        t.op = Traits::kName;
        t.title = Traits::title() + ": chapter " + std::to_string(run.chapter) + " (" + stage_of(run.chapter).name + ")";
        t.columns = std::move(cols);
        return t;
    }

    static BenchOptions bench_for(const ChapterRun& run) {
        BenchOptions bo = run.bench;
        Traits::adjust_bench(bo);
        return bo;
    }

    /// "" when case `c` fits in memory, else its skip line (op, precision, variant, shape, bytes
    /// needed and free): free device memory and the host's available memory on a live device, the
    /// preset's memory when predicting. The device need adds the L2 flush buffer (twice the L2)
    /// and kDeviceSlackBytes for the libraries' handles and workspaces.
    template <class T>
    static std::string shortfall_line(const ChapterRun& run, const typename Traits::Case& c) {
        MemoryNeed need = Traits::template memory_need<T>(c);
        need.device_bytes += 2.0 * static_cast<double>(run.dev.l2_bytes) + kDeviceSlackBytes;
        MemoryFree free;
        if (run.dev.live) {
            free = memory_free_now();
        } else if (run.dev.memory_bytes > 0) {
            free.device_bytes = run.dev.memory_bytes;
            free.device_what = "on " + run.dev.name;
        }
        const std::string why = memory_shortfall(need, free);
        if (why.empty()) return why;
        return std::string(Traits::kName) + " " + prec_name<T>() + " " + c.variant + " " + c.shape +
               ": skipped: " + why;
    }

    /// True (and the case's line printed at once and kept in t.skipped) when case `c` does not fit.
    template <class T>
    static bool too_big(const ChapterRun& run, const typename Traits::Case& c, OpTable& t) {
        const std::string line = shortfall_line<T>(run, c);
        if (line.empty()) return false;
        std::cout << line << std::endl;
        t.skipped.push_back(line);
        return true;
    }

    template <class T>
    static void fit_precision(const ChapterRun& run, bool shape_set, Fit& fit) {
        auto add = [&](const std::vector<typename Traits::Case>& cases) {
            for (const auto& c : cases) {
                ++fit.cases;
                if (std::string line = shortfall_line<T>(run, c); !line.empty()) fit.oversized.push_back(line);
            }
        };
        if constexpr (requires(const ChapterOptions& o) { Traits::shape_cases(o); })
            if (shape_set) return add(Traits::shape_cases(run.opt));
        if (!shape_set) add(Traits::cases(run.opt));
    }

    template <class T>
    void measure_precision(const ChapterRun& run, Progress& prog, OpTable& t, const RowsDone& on_rows) const {
        const std::vector<int> chs = chapters_to_run(run.chapter, run.whole_ladder);
        std::vector<int> order = chs;
        order.push_back(0);  // the peer
        const BenchOptions bo = bench_for(run);
        for (const auto& c : Traits::cases(run.opt)) {
            if (stop_signal() != 0) return;  // stopped: the rows so far are the table
            if (too_big<T>(run, c, t)) continue;
            const std::size_t first = t.rows.size();
            auto p = Traits::template make_problem<T>(c, fresh_seed());
            const auto ref = Traits::template reference<T>(p);
            std::map<int, double> ms, rate;
            std::map<int, std::string> errs, notes;
            bool failed = false;
            for (int ch : order) {
                if (stop_signal() != 0) return;  // a case cut short adds no rows
                const StepT<T>& s = step<Args<T>>(ch);
                const auto l = s.default_launch(p.args());
                prog.step(std::string(Traits::kName) + " " + prec_name<T>() + " " + c.variant + " " + c.shape + " " +
                          s.stage);
                const auto chk = Traits::template check<T>(s, l, p, ref);
                errs[ch] = fmt_check(chk.rel_error, chk.ok());
                if (!chk.ok()) failed = true;
                const BenchStats st = Traits::template time<T>(s, l, p, bo);
                ms[ch] = st.median_ms;
                rate[ch] = Traits::template rate<T>(p, st.median_ms);
                if (st.l2_resident && Traits::memory_bound) notes[ch] = "L2-resident";
            }
            const double ceiling = Traits::template ceiling<T>(c, *run.ceil);
            for (int ch : order) {
                auto ratio = [&](int other) {
                    return ms.count(other) && other != ch ? fmt_ratio(ms[other] / ms[ch]) : std::string("-");
                };
                const StepT<T>& s = step<Args<T>>(ch);
                std::string model = "-", model_err = "-";
                if (ch != 0) {
                    const Prediction pr = predict_or_why<T>(c, s, p.args(), run.dev);
                    model = fmt(pr.rate);
                    model_err = fmt_model_error(pr.rate, rate[ch]);
                }
                t.rows.push_back({prec_name<T>(), c.variant, c.shape, step_label(ch, Traits::peer_label()),
                                  {fmt(ms[ch], 4), fmt(rate[ch]), fmt_pct(rate[ch] / ceiling),
                                   ch >= 2 ? ratio(ch - 1) : "-", ch >= 2 ? ratio(1) : "-", ch != 0 ? ratio(0) : "-",
                                   model, model_err, errs[ch], notes[ch]}});
            }
            if (failed) t.failed = true;
            const std::string key = prec_name<T>() + " " + c.variant;
            if (run.chapter >= 2 && ms.count(run.chapter - 1))
                t.speedups[key + " vs prev"].push_back(ms[run.chapter - 1] / ms[run.chapter]);
            t.speedups[key + " vs " + Traits::peer_label()].push_back(ms[0] / ms[run.chapter]);
            Traits::template extra_rows<T>(run, c, p, ms[0], t, prog);
            if (on_rows) on_rows(t, first);
        }
    }

    /// `--shapes`: this chapter's step (checked, then timed) and the peer on every shape case;
    /// the summary keeps x peer per variant (its geometric mean) and the lowest with its shape.
    template <class T>
    void shapes_precision(const ChapterRun& run, Progress& prog, OpTable& t, const RowsDone& on_rows) const {
        const BenchOptions bo = bench_for(run);
        std::map<std::string, std::pair<double, std::string>> lowest;  // variant -> (ratio, shape)
        for (const auto& c : Traits::shape_cases(run.opt)) {
            if (stop_signal() != 0) break;  // stopped: the rows so far are the table
            if (too_big<T>(run, c, t)) continue;
            const std::size_t first = t.rows.size();
            auto p = Traits::template make_problem<T>(c, fresh_seed());
            const auto ref = Traits::template reference<T>(p);
            std::map<int, double> ms;
            std::map<int, std::string> errs, launches;
            bool cut = false;
            for (int ch : {run.chapter, 0}) {
                if ((cut = stop_signal() != 0)) break;
                const StepT<T>& s = step<Args<T>>(ch);
                const auto l = s.default_launch(p.args());
                prog.step(std::string(Traits::kName) + " " + prec_name<T>() + " " + c.variant + " " + c.shape + " " +
                          s.stage);
                const auto chk = Traits::template check<T>(s, l, p, ref);
                errs[ch] = fmt_check(chk.rel_error, chk.ok());
                if (!chk.ok()) t.failed = true;
                ms[ch] = Traits::template time<T>(s, l, p, bo).median_ms;
                if (ch != 0) launches[ch] = l.str();
            }
            if (cut) break;  // a case cut short adds no rows
            const double ceiling = Traits::template ceiling<T>(c, *run.ceil);
            for (int ch : {run.chapter, 0}) {
                const double rate = Traits::template rate<T>(p, ms[ch]);
                std::string model = "-", model_err = "-";
                if (ch != 0) {
                    const Prediction pr = predict_or_why<T>(c, step<Args<T>>(ch), p.args(), run.dev);
                    model = fmt(pr.rate);
                    model_err = fmt_model_error(pr.rate, rate);
                }
                t.rows.push_back({prec_name<T>(), c.variant, c.shape, step_label(ch, Traits::peer_label()),
                                  {fmt(ms[ch], 4), fmt(rate), fmt_pct(rate / ceiling), "-", "-",
                                   ch != 0 ? fmt_ratio(ms[0] / ms[ch]) : "-", model, model_err, errs[ch],
                                   ch != 0 ? c.shape_class + "; " + launches[ch] : c.shape_class}});
            }
            const std::string key = prec_name<T>() + " " + c.variant;
            const double r = ms[0] / ms[run.chapter];
            t.speedups[key + " vs " + Traits::peer_label()].push_back(r);
            if (!lowest.count(key) || r < lowest[key].first) lowest[key] = {r, c.shape};
            if (on_rows) on_rows(t, first);
        }
        for (const auto& [key, low] : lowest)  // printed with the geometric means
            t.speedups[key + " lowest vs " + Traits::peer_label() + " (" + low.second + ")"] = {low.first};
    }

    /// The model's prediction for a step's default launch, or, when the model rejects the design
    /// on this device (a block that cannot be resident on White's T10, say), a row that says why.
    template <class T>
    static Prediction predict_or_why(const typename Traits::Case& c, const StepT<T>& s, const Args<T>& a,
                                     const DeviceProfile& dev) {
        try {
            return Traits::template predict<T>(c, s, a, s.default_launch(a), dev);
        } catch (const std::invalid_argument& e) {
            Prediction p;
            p.limit = std::string("not predicted on ") + dev.name + ": " + e.what();
            return p;
        }
    }

    /// The cases a prediction covers: the shape set with --shapes where the op has one.
    static std::vector<typename Traits::Case> predicted_cases(const ChapterRun& run) {
        if constexpr (requires(const ChapterOptions& o) { Traits::shape_cases(o); })
            if (run.shape_set) return Traits::shape_cases(run.opt);
        return Traits::cases(run.opt);
    }

    template <class T>
    void predict_precision(const ChapterRun& run, OpTable& t) const {
        for (const auto& c : predicted_cases(run)) {
            if (too_big<T>(run, c, t)) continue;  // against the preset's memory
            const Args<T> a = Traits::template shape_args<T>(c);
            for (int ch : chapters_to_run(run.chapter, run.whole_ladder)) {
                const StepT<T>& s = step<Args<T>>(ch);
                Prediction pr = predict_or_why<T>(c, s, a, run.dev);
                pr.details.resize(Traits::model_columns().size(), "-");
                std::vector<std::string> cells = {fmt(pr.rate), fmt(pr.ms, 4)};
                cells.insert(cells.end(), pr.details.begin(), pr.details.end());
                cells.push_back(pr.limit.substr(0, pr.limit.find_first_of(":;")));
                t.rows.push_back({prec_name<T>(), c.variant, c.shape, step_label(ch, Traits::peer_label()), cells});
                if (std::find(t.notes.begin(), t.notes.end(), pr.limit) == t.notes.end()) t.notes.push_back(pr.limit);
            }
            // Rows a measured table adds beyond the steps that the model predicts too (an op's
            // second mode of a step, e.g. SYMV's atomics): label and prediction.
            if constexpr (requires { Traits::template extra_predictions<T>(run, c, a); })
                for (auto& [label, pr] : Traits::template extra_predictions<T>(run, c, a)) {
                    pr.details.resize(Traits::model_columns().size(), "-");
                    std::vector<std::string> cells = {fmt(pr.rate), fmt(pr.ms, 4)};
                    cells.insert(cells.end(), pr.details.begin(), pr.details.end());
                    cells.push_back(pr.limit.substr(0, pr.limit.find_first_of(":;")));
                    t.rows.push_back({prec_name<T>(), c.variant, c.shape, label, cells});
                }
        }
    }

    template <class T>
    void sweep_precision(const ChapterRun& run, OpTable& t, OpTable& every) const {
        const StepT<T>& s = step<Args<T>>(run.chapter);
        BenchOptions bo = bench_for(run);
        bo.min_reps = std::min(bo.min_reps, 5);
        bo.max_reps = std::min(bo.max_reps, 30);
        bo.max_seconds = std::min(bo.max_seconds, 0.5);
        for (const auto& c : Traits::cases(run.opt)) {
            if (stop_signal() != 0) return;
            if (too_big<T>(run, c, t)) continue;
            auto p = Traits::template make_problem<T>(c, fresh_seed());
            const auto def = s.default_launch(p.args());
            double def_ms = NAN, best_ms = INFINITY;
            auto best = def;
            for (const auto& l : s.legal_launches(p.args())) {
                if (stop_signal() != 0) return;  // the launches timed so far stay in `every`
                const double m = Traits::template time<T>(s, l, p, bo).median_ms;
                every.rows.push_back({prec_name<T>(), c.variant, c.shape, step_label(run.chapter, ""),
                                      {l.str(), fmt(m, 4), fmt(Traits::template rate<T>(p, m))}});
                if (l == def) def_ms = m;
                if (m < best_ms) {
                    best_ms = m;
                    best = l;
                }
            }
            if (std::isnan(def_ms)) def_ms = Traits::template time<T>(s, def, p, bo).median_ms;
            t.rows.push_back({prec_name<T>(), c.variant, c.shape, step_label(run.chapter, ""),
                              {def.str(), fmt(Traits::template rate<T>(p, def_ms)), best.str(),
                               fmt(Traits::template rate<T>(p, best_ms)), fmt_ratio(def_ms / best_ms)}});
        }
    }
};

}  // namespace wb
