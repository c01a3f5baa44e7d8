/// \file derived_comparison.cpp
/// \brief Chapter 6's rows (derived_comparison.hpp): each op's derived launch and chapter 5's default on one
///        profile, each predicted by the op's model (common/model/OP.hpp); on a GPU measured, and
///        with the sweep every legal launch of the tuned step measured and ranked by the model.
#include "derived_comparison.hpp"

#include "derived_launch.hpp"
#include "derived_shapes.hpp"
#include "launch_rows.hpp"

#include "bench.hpp"
#include "cg.hpp"
#include "cg_problem.hpp"
#include "compare.hpp"
#include "conv2d.hpp"
#include "conv2d_problem.hpp"
#include "derive/rank_correlation.hpp"
#include "gemm.hpp"
#include "gemm_design.hpp"
#include "gemm_problem.hpp"
#include "gemv.hpp"
#include "gemv_launch_model.hpp"
#include "gemv_problem.hpp"
#include "gemv_rules.hpp"
#include "model/cg.hpp"
#include "model/conv2d.hpp"
#include "model/gemm.hpp"
#include "model/gemv.hpp"
#include "model/occupancy.hpp"
#include "model/symv.hpp"
#include "roofline.hpp"
#include "step.hpp"
#include "stop_signal.hpp"
#include "symv.hpp"
#include "symv_problem.hpp"
#include "tuned/conv2d_rules.hpp"
#include "tuned/gemm_default_rule.hpp"
#include "tuned/symv_layout.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace wb::ch06 {
namespace {

bool has(const derive::Derivation& d, const std::string& p) {
    return std::any_of(d.params.begin(), d.params.end(), [&](const derive::Derived& x) { return x.parameter == p; });
}

void add_note(std::string& note, const std::string& more) { note += (note.empty() ? "" : "; ") + more; }

/// The sweep's timing: fewer repetitions than a chapter row (chapter 5's --sweep takes the same),
/// with --quick fewer still (the wave tail's dozens of cases).
BenchOptions sweep_bench(bool quick) {
    BenchOptions bo;
    bo.min_reps = 5;
    bo.max_reps = quick ? 15 : 30;
    bo.max_seconds = quick ? 0.2 : 0.5;
    return bo;
}

/// A case's timing: the harness's defaults, or with --quick the ladder chapters' shorter run.
BenchOptions case_bench(bool quick) {
    BenchOptions bo;
    if (quick) {
        bo.min_reps = 3;
        bo.max_reps = 10;
        bo.max_seconds = 0.3;
    }
    return bo;
}

/// Times every launch of `launches` (the tuned step's legal launches for this call) and keeps the
/// best and the worst. The derived and the default launch must be among them: where one is not,
/// the list is at fault (it must reach every choice the rules make); it is timed beside the list
/// and named in c.sweep_note. Each launch's predicted and measured times are kept in
/// c.swept_launches (--launches-csv). Spearman's rho pairs `predict(launch)` (the model's ms; negative:
/// no prediction) with the measured times. `time(launch, options)` returns BenchStats.
template <class Launch, class Time, class Predict>
void sweep_launches(Comparison& c, std::vector<Launch> launches, const Launch& derived, const Launch& deflt, Time time,
                    Predict predict, bool quick) {
    for (const auto& [l, what] : {std::pair<const Launch&, const char*>{derived, "derived"}, {deflt, "default"}})
        if (std::find(launches.begin(), launches.end(), l) == launches.end()) {
            launches.push_back(l);
            c.sweep_note += std::string(what) + " launch not in the step's list (a defect of the list), timed beside it; ";
        }
    const BenchOptions bo = sweep_bench(quick);
    std::vector<double> predicted, measured;
    for (const Launch& l : launches) {
        if (stop_signal() != 0) {
            c.sweep_note += "stopped after " + std::to_string(c.swept) + " launches; ";
            break;
        }
        const double ms = time(l, bo).median_ms;
        ++c.swept;
        if (c.best_ms < 0 || ms < c.best_ms) {
            c.best_ms = ms;
            c.best_launch = l.str();
        }
        if (ms > c.worst_ms) {
            c.worst_ms = ms;
            c.worst_launch = l.str();
        }
        double p = -1;
        try {
            p = predict(l);
        } catch (const std::invalid_argument&) {
            p = -1;  // a launch the model has no design for
        }
        c.swept_launches.push_back({l.str(), launch_params(l), l == derived, l == deflt, p, ms});
        if (std::isfinite(p) && p > 0 && std::isfinite(ms) && ms > 0) {
            predicted.push_back(p);
            measured.push_back(ms);
        }
    }
    const double rho = derive::spearman_rho(predicted, measured);
    c.ranked = static_cast<int>(predicted.size());
    c.rho = std::isnan(rho) ? -2 : rho;
}

/// One measured case: the derived launch and chapter 5's default on problem `p`, each checked
/// against the float64 reference, then timed (the harness's median, L2 flushed; a launch that
/// fails its check is named in c.measured_note and not timed); with `sweep`, every legal launch
/// of `step` too (sweep_launches). `check(launch, reference)` returns a CheckResult,
/// `time(launch, options)` BenchStats, `predict(launch)` the model's ms; `quick`: the shorter
/// timings; `keep(launch)`: the legal launches the derivation competes with.
template <class Step, class Problem, class Launch, class Check, class Time, class Predict>
void measure_case(Comparison& c, const Step& step, Problem& p, const Launch& derived, bool sweep, bool quick,
                  Check check, Time time, Predict predict,
                  bool (*keep)(const Launch&) = nullptr) {
    const BenchOptions bench = case_bench(quick);
    const auto ref = p.reference();
    const Launch deflt = step.default_launch(p.args());
    const CheckResult cd = check(derived, ref), cf = check(deflt, ref);
    if (!cd.ok()) c.measured_note += "derived launch failed its check (" + cd.first_bad + ") ";
    if (!cf.ok()) c.measured_note += "default launch failed its check (" + cf.first_bad + ") ";
    if (cd.ok()) c.derived_measured_ms = time(derived, bench).median_ms;
    if (cf.ok()) c.default_measured_ms = time(deflt, bench).median_ms;
    c.default_launch = deflt.str();
    if (!sweep) return;
    std::vector<Launch> legal = step.legal_launches(p.args());
    if (keep) legal.erase(std::remove_if(legal.begin(), legal.end(), [&](const Launch& l) { return !keep(l); }), legal.end());
    sweep_launches(c, legal, derived, deflt, time, predict, quick);
}

const char* kWhiteNote = "White's own kernel and launch: the workbook's models describe its tuned kernels, not his";

// ---------------------------------------------------------------------------------------------
// GEMV: each launch predicted by gemv_launch_ms (gemv_launch_model.hpp)
// ---------------------------------------------------------------------------------------------

template <class T>
void measure_gemv(Comparison& c, const DeviceProfile& dev, const GemvCase& s, bool sweep, bool quick) {
    const auto& step = wb::step<GemvArgs<T>>(chapter_of(Stage::kTuned));
    auto p = make_gemv_problem<T>(s.trans ? Op::T : Op::N, s.m, s.n, s.lda, 1);
    const GemvShape shape{s.trans ? Op::T : Op::N, s.m, s.n, s.lda, static_cast<int>(sizeof(T)), 0, 0};
    measure_case(
        c, step, p, gemv_launch_of(c.derived, s.trans), sweep, quick,
        [&](const GemvLaunch& l, const auto& ref) { return check_gemv(step, l, p, ref); },
        [&](const GemvLaunch& l, const BenchOptions& bo) { return time_gemv(step, l, p, bo); },
        [&](const GemvLaunch& l) { return gemv_launch_ms(dev, shape, l); });
}

std::vector<Comparison> gemv_cases(const DeviceProfile& dev, const std::vector<int>& precisions, bool measure,
                                   bool sweep, const CaseSelection& cs) {
    std::vector<Comparison> out;
    for (int elem : precisions)
        for (const GemvCase& s : gemv_cases_of(cs)) {
            Comparison c;
            c.elem_bytes = elem;
            const GemvShape call{s.trans ? Op::T : Op::N, s.m, s.n, s.lda, elem, 0, 0};
            c.derived = derive_gemv_call(dev, call);
            if (s.lda != s.m) c.derived.shape += " lda " + std::to_string(s.lda);
            c.derived_launch = c.derived.launch();
            c.bytes = static_cast<double>(elem) * (static_cast<double>(s.m) * s.n + s.m + s.n);
            if (has(c.derived, "dBlk.x")) {
                const int threads = static_cast<int>(c.derived.value("dBlk.x") * c.derived.value("dBlk.y"));
                c.derived_ms = model::predict_gemv(Stage::kShared, s.trans, s.m, s.n, elem, threads, dev).predicted_ms;
                c.note = "derived: White's shared-memory Mv, predicted with chapter 2's design";
            } else {
                const GemvLaunch dl = gemv_launch_of(c.derived, s.trans);
                c.derived_launch = dl.str();
                c.derived_ms = gemv_launch_ms(dev, call, dl);
            }
            const GemvLaunch l = gemv_derived_launch(dev, call);  // chapter 5's default is the derivation
            c.default_launch = l.str();
            c.default_ms = gemv_launch_ms(dev, call, l);
            if (measure && !has(c.derived, "dBlk.x")) {
                if (elem == 4) measure_gemv<float>(c, dev, s, sweep, cs.quick);
                else measure_gemv<double>(c, dev, s, sweep, cs.quick);
            }
            out.push_back(c);
        }
    return out;
}

// ---------------------------------------------------------------------------------------------
// GEMM: the model's design read off the tiles of a launch (gemm_design.hpp)
// ---------------------------------------------------------------------------------------------

/// An NN call of case `s` with no memory behind it (predict-only): the pointers' alignment is a
/// null's, the leading dimensions the case's.
template <class T>
GemmArgs<T> gemm_args(const GemmCase& s) {
    GemmArgs<T> a;
    a.op_a = s.op_a;
    a.m = s.m;
    a.n = s.n;
    a.k = s.k;
    a.lda = (s.op_a == Op::N ? s.m : s.k) + s.ld_extra;
    a.ldb = s.k + s.ld_extra;
    a.ldc = s.m;
    a.beta = T(0.5);  // the problems' beta (gemm_problem.hpp)
    return a;
}

/// The model's time for a tuned GEMM launch: the GEMV's where the call runs as one, the tensor
/// cores' where math = 2, the tiles' otherwise (negative where the model has no design for it).
template <class T>
double gemm_launch_ms(const DeviceProfile& dev, const GemmArgs<T>& a, const GemmLaunch& l) {
    if (l.gemv == 2) {
        GemvArgs<T> g;
        if (!ladder_gemm_as_gemv<T>(a, &g)) return -1;
        return model::predict_gemv(Stage::kTuned, g.op == Op::T, g.m, g.n, sizeof(T), 256, dev, a.beta != T(0))
            .predicted_ms;
    }
    return gemm_tiles_ms(dev, a.m, a.n, a.k, sizeof(T), l, a.op_a == Op::T, a.op_b == Op::T);
}

template <class T>
void measure_gemm(Comparison& c, const DeviceProfile& dev, const GemmCase& s, bool sweep, bool quick) {
    const auto& step = wb::step<GemmArgs<T>>(chapter_of(Stage::kTuned));
    GemmShape shape{s.op_a, Op::N, s.m, s.n, s.k};
    if (s.ld_extra > 0) {
        shape.lda = (s.op_a == Op::N ? s.m : s.k) + s.ld_extra;
        shape.ldb = s.k + s.ld_extra;
    }
    auto p = make_gemm_problem<T>(shape, 1);
    // The derivation on the call as allocated (its pointers' alignment too), the device's profile.
    const GemmLaunch derived = derive_gemm_call<T>(dev, p.args(), true).launch;
    c.derived_launch = derived.str();
    measure_case(
        c, step, p, derived, sweep, quick, [&](const GemmLaunch& l, const auto& ref) { return check_gemm(step, l, p, ref); },
        [&](const GemmLaunch& l, const BenchOptions& bo) { return time_gemm(step, l, p, bo); },
        [&](const GemmLaunch& l) { return gemm_launch_ms<T>(dev, p.args(), l); });
}

template <class T>
Comparison gemm_case(const DeviceProfile& dev, const GemmCase& s, bool measure, bool sweep, const CaseSelection& cs) {
    Comparison c;
    c.elem_bytes = static_cast<int>(sizeof(T));
    const GemmArgs<T> a = gemm_args<T>(s);
    const GemmDerived g = derive_gemm_call<T>(dev, a, measure);
    c.derived = g.derivation;
    c.derived.shape = std::to_string(s.m) + " x " + std::to_string(s.n) + " x " + std::to_string(s.k) +
                      (sizeof(T) == 8 ? " double" : " float") + (s.ld_extra > 0 ? " ld+" + std::to_string(s.ld_extra) : "") +
                      (s.op_a == Op::T ? " TN" : "");
    c.derived_launch = g.derivation.launch();
    if (has(c.derived, "dBlk.x")) {
        c.note = kWhiteNote;
    } else if (!g.runs) {
        c.note = "none of chapter 5's tiles fits " + dev.name + ": derived over the powers of two";
    } else {
        c.derived_launch = g.launch.str();
        c.derived_ms = gemm_launch_ms<T>(dev, a, g.launch);
    }
    const GemmLaunch l = step<GemmArgs<T>>(chapter_of(Stage::kTuned)).default_launch(a);
    c.default_launch = l.str();
    try {
        c.default_ms = gemm_launch_ms<T>(dev, a, l);
    } catch (const std::invalid_argument&) {
        add_note(c.note, "chapter 5's tile does not fit " + dev.name);
    }
    if (measure && g.runs) measure_gemm<T>(c, dev, s, sweep, cs.quick);
    return c;
}

std::vector<Comparison> gemm_cases(const DeviceProfile& dev, const std::vector<int>& precisions, bool measure,
                                   bool sweep, const CaseSelection& cs) {
    std::vector<Comparison> out;
    for (int elem : precisions)
        for (const GemmCase& s : gemm_cases_of(cs))
            out.push_back(elem == 4 ? gemm_case<float>(dev, s, measure, sweep, cs) : gemm_case<double>(dev, s, measure, sweep, cs));
    return out;
}

// ---------------------------------------------------------------------------------------------
// Convolution
// ---------------------------------------------------------------------------------------------

/// The case's image rows start on 16-byte vectors (its pitch a multiple of the vector; the
/// problem's buffers are allocated aligned).
bool conv2d_vector_rows(const Conv2dCase& s, int elem) { return (s.cols + s.pitch_extra) % (16 / elem) == 0; }

template <class T>
Conv2dLaunch conv2d_default(const Conv2dCase& s) {
    Conv2dArgs<T> a;
    a.rows = s.rows;
    a.cols = s.cols;
    a.fs = s.fs;
    a.in_pitch = a.out_pitch = s.cols + s.pitch_extra;
    return step<Conv2dArgs<T>>(chapter_of(Stage::kTuned)).default_launch(a);
}

double conv2d_ms(const DeviceProfile& dev, const Conv2dLaunch& l, const Conv2dCase& s, int elem) {
    const int bx = std::max(1, l.block_x), by = std::max(1, l.block_y);
    const int tx = std::max(1, l.thread_x), ty = std::max(1, l.thread_y);
    const int tile_x = l.tile_x > 0 ? l.tile_x : bx * tx, tile_y = l.tile_y > 0 ? l.tile_y : by * ty;
    return model::predict_conv2d_launch(tile_x, tile_y, tx, ty, bx * by, s.rows, s.cols, s.fs, elem,
                                        conv2d_vector_rows(s, elem), dev, l.blocked != 0)
        .ms;
}

template <class T>
void measure_conv2d(Comparison& c, const DeviceProfile& dev, const Conv2dLaunch& derived, const Conv2dCase& s,
                    bool sweep, bool quick) {
    const auto& step = wb::step<Conv2dArgs<T>>(chapter_of(Stage::kTuned));
    Conv2dShape shape{s.rows, s.cols, s.fs};
    if (s.pitch_extra > 0) shape.in_pitch = shape.out_pitch = s.cols + s.pitch_extra;
    auto p = make_conv2d_problem<T>(shape, 1);
    measure_case(
        c, step, p, derived, sweep, quick,
        [&](const Conv2dLaunch& l, const auto& ref) { return check_conv2d(step, l, p, ref); },
        [&](const Conv2dLaunch& l, const BenchOptions& bo) { return time_conv2d(step, l, p, bo); },
        [&](const Conv2dLaunch& l) { return conv2d_ms(dev, l, s, sizeof(T)); });
}

std::vector<Comparison> conv2d_cases(const DeviceProfile& dev, const std::vector<int>& precisions, bool measure,
                                     bool sweep, const CaseSelection& cs) {
    std::vector<Comparison> out;
    for (int elem : precisions)
        for (const Conv2dCase& s : conv2d_cases_of(cs)) {
            Comparison c;
            c.elem_bytes = elem;
            const Conv2dLaunch l = elem == 4 ? conv2d_default<float>(s) : conv2d_default<double>(s);
            c.default_launch = l.str();
            try {
                c.default_ms = conv2d_ms(dev, l, s, elem);
            } catch (const std::invalid_argument&) {
                c.note = "chapter 5's tile does not fit " + dev.name;
            }
            const std::string shape = std::to_string(s.rows) + " x " + std::to_string(s.cols) + " FS " +
                                      std::to_string(s.fs) + (elem == 8 ? " double" : " float") +
                                      (s.pitch_extra > 0 ? " pitch+" + std::to_string(s.pitch_extra) : "");
            try {
                c.derived = derive_conv2d_call(dev, s.rows, s.cols, s.fs, elem, conv2d_vector_rows(s, elem));
            } catch (const std::invalid_argument& e) {
                c.derived.op = "conv2d";
                c.derived.shape = shape;
                add_note(c.note, e.what());
                out.push_back(c);
                continue;
            }
            c.derived.shape = shape;
            c.derived_launch = c.derived.launch();
            if (has(c.derived, "dBlk.x")) {
                add_note(c.note, kWhiteNote);
            } else {
                const Conv2dLaunch dl = conv2d_launch_of(c.derived);
                c.derived_launch = dl.str();
                try {
                    c.derived_ms = conv2d_ms(dev, dl, s, elem);
                } catch (const std::invalid_argument& e) {
                    add_note(c.note, std::string("derived: ") + e.what());
                }
                if (measure) {
                    if (elem == 4) measure_conv2d<float>(c, dev, dl, s, sweep, cs.quick);
                    else measure_conv2d<double>(c, dev, dl, s, sweep, cs.quick);
                }
            }
            out.push_back(c);
        }
    return out;
}

// ---------------------------------------------------------------------------------------------
// SYMV and CG: chapter 5's default on the profile (the derivation, as tuned::symv_default reads it)
// ---------------------------------------------------------------------------------------------

SymvLaunch symv_default(const DeviceProfile& dev, long long n, long long lda, int elem) {
    return tuned::symv_derived_launch(dev, n, lda, elem);  // chapter 5's default is the derivation
}

/// The model's time for a tuned SYMV launch.
double symv_launch_ms(const DeviceProfile& dev, long long n, int elem, const SymvLaunch& l) {
    return model::predict_symv(Stage::kTuned, n, elem, symv_model_launch(l), dev).predicted_ms;
}

template <class T>
void measure_symv(Comparison& c, const DeviceProfile& dev, const SymvLaunch& derived, const SquareCase& s, bool sweep,
                  bool quick) {
    const auto& step = wb::step<SymvArgs<T>>(chapter_of(Stage::kTuned));
    auto p = make_symv_problem<T>(Uplo::Lower, s.n, s.lda, 1);
    measure_case(
        c, step, p, derived, sweep, quick, [&](const SymvLaunch& l, const auto& ref) { return check_symv(step, l, p, ref); },
        [&](const SymvLaunch& l, const BenchOptions& bo) { return time_symv(step, l, p, bo); },
        [&](const SymvLaunch& l) { return symv_launch_ms(dev, s.n, sizeof(T), l); },
        // The deterministic launches: the derivation and chapter 5's default give the same y run
        // after run, which launches adding partials with atomics (a launch option) do not.
        +[](const SymvLaunch& l) { return l.atomics == 0; });
}

/// CG: the solve at the derived launch (the vector kernels' block derived, the rest the tuned
/// step's own rules: its default's check interval and schedule), chapter 5's default and, with
/// `sweep`, every legal launch: each solve checked (converged, true residual under the bound), ms
/// per iteration timed. kappa 100, the chapter's tolerances.
template <class T>
void measure_cg(Comparison& c, const DeviceProfile& dev, const SquareCase& s, bool sweep, bool quick) {
    const auto& step = wb::step<CgArgs<T>>(chapter_of(Stage::kTuned));
    const double kappa = 100.0, tol = sizeof(T) == 4 ? 1e-5 : 1e-9;
    auto p = make_cg_problem<T>(s.n, s.lda, kappa, tol, 4 * model::cg_iteration_bound(kappa, tol) + 100, 1);
    const CgLaunch deflt = step.default_launch(p.args());
    const CgLaunch derived = cg_launch_of(c.derived, deflt);
    c.default_launch = deflt.str();
    c.derived_launch = derived.str();
    auto time = [&](const CgLaunch& l, const BenchOptions& bo) { return time_cg(step, l, p, bo); };
    auto predict = [&](const CgLaunch& l) {
        const double mv = symv_launch_ms(dev, s.n, sizeof(T), symv_default(dev, s.n, s.lda, sizeof(T)));
        return model::predict_cg(Stage::kTuned, s.n, sizeof(T), dev, kappa, tol, l.check_every, mv, l.schedule, {}, s.lda)
            .predicted_ms;
    };
    const CgCheck cd = check_cg(step, derived, p), cf = check_cg(step, deflt, p);
    if (!cd.ok()) c.measured_note += "derived launch failed its check (" + cd.first_bad + ") ";
    if (!cf.ok()) c.measured_note += "default launch failed its check (" + cf.first_bad + ") ";
    if (cd.ok()) c.derived_measured_ms = time(derived, case_bench(quick)).median_ms;
    if (cf.ok()) c.default_measured_ms = time(deflt, case_bench(quick)).median_ms;
    if (sweep) sweep_launches(c, step.legal_launches(p.args()), derived, deflt, time, predict, quick);
}

std::vector<Comparison> symv_cases(const DeviceProfile& dev, const std::vector<int>& precisions, bool cg,
                                   bool measure, bool sweep, const CaseSelection& cs) {
    std::vector<Comparison> out;
    for (int elem : precisions)
        for (const SquareCase& s : cg ? cg_cases_of(cs) : symv_cases_of(cs)) {
            const long long n = s.n;
            Comparison c;
            c.elem_bytes = elem;
            c.derived = cg ? derive::derive_cg(dev, n, elem, s.lda) : derive_symv_call(dev, n, s.lda, elem);
            if (s.lda != s.n) c.derived.shape += " lda " + std::to_string(s.lda);
            const SymvLaunch dl = symv_launch_of(c.derived, cg ? "mv." : "");
            c.derived_launch = cg ? c.derived.launch() : dl.str();
            c.bytes = static_cast<double>(elem) * (static_cast<double>(n) * (n + 1) / 2 + 3.0 * n);
            const double mv = symv_launch_ms(dev, n, elem, dl);
            const SymvLaunch l = symv_default(dev, n, s.lda, elem);
            c.default_launch = l.str();
            const double mv_default = symv_launch_ms(dev, n, elem, l);
            if (!cg) {
                c.derived_ms = mv;
                c.default_ms = mv_default;
                if (measure) {
                    if (elem == 4) measure_symv<float>(c, dev, dl, s, sweep, cs.quick);
                    else measure_symv<double>(c, dev, dl, s, sweep, cs.quick);
                }
            } else {
                // Per iteration, the Mv at each launch, at the derived check interval and schedule
                // (chapter 5's default is the same derivation on the device's profile).
                const double tol = elem == 4 ? 1e-5 : 1e-9;
                const CgLaunch cl = cg_launch_of(c.derived);
                c.derived_ms = model::predict_cg(Stage::kTuned, n, elem, dev, 100.0, tol, cl.check_every, mv, cl.schedule,
                                                 {}, s.lda)
                                   .predicted_ms;
                c.default_ms = model::predict_cg(Stage::kTuned, n, elem, dev, 100.0, tol, cl.check_every, mv_default,
                                                 cl.schedule, {}, s.lda)
                                   .predicted_ms;
                c.note = "ms per iteration at the derived check interval and schedule, the Mv at each launch; the "
                         "model ranks schedules and check intervals, not the vector kernels' block";
                if (measure) {  // the tuned CG runs chapter 5's SYMV default inside the solve
                    if (elem == 4) measure_cg<float>(c, dev, s, sweep, cs.quick);
                    else measure_cg<double>(c, dev, s, sweep, cs.quick);
                }
            }
            out.push_back(c);
        }
    return out;
}

}  // namespace

const std::vector<std::string>& compared_ops() {
    static const std::vector<std::string> ops = {"gemv", "gemm", "conv2d", "symv", "cg"};
    return ops;
}

std::vector<Comparison> compare_op(const std::string& op, const DeviceProfile& dev, const std::vector<int>& precisions,
                                   bool measure, bool sweep, const CaseSelection& cases) {
    if (op == "gemv") return gemv_cases(dev, precisions, measure, sweep, cases);
    if (op == "gemm") return gemm_cases(dev, precisions, measure, sweep, cases);
    if (op == "conv2d") return conv2d_cases(dev, precisions, measure, sweep, cases);
    if (op == "symv") return symv_cases(dev, precisions, false, measure, sweep, cases);
    if (op == "cg") return symv_cases(dev, precisions, true, measure, sweep, cases);
    throw std::invalid_argument("ch06 compare_op: op (\"" + op + "\") must be one of gemv, gemm, conv2d, symv, cg");
}

OpSummary summarize(const std::string& op, const std::vector<Comparison>& rows) {
    OpSummary s;
    s.op = op;
    double sum = 0, sum_default = 0, sum_rho = 0;
    int n_default = 0;
    for (const Comparison& c : rows) {
        if (c.derived_vs_best() > 0) {
            ++s.cases;
            sum += c.derived_vs_best();
            if (s.worst < 0 || c.derived_vs_best() < s.worst) {
                s.worst = c.derived_vs_best();
                s.worst_shape = c.derived.shape;
            }
        }
        if (c.default_vs_best() > 0) {
            ++n_default;
            sum_default += c.default_vs_best();
            if (s.default_worst < 0 || c.default_vs_best() < s.default_worst) s.default_worst = c.default_vs_best();
        }
        if (c.rho >= -1) {
            ++s.ranked_cases;
            sum_rho += c.rho;
            if (s.rho_worst < -1 || c.rho < s.rho_worst) s.rho_worst = c.rho;
        }
    }
    if (s.cases > 0) s.mean = sum / s.cases;
    if (n_default > 0) s.default_mean = sum_default / n_default;
    if (s.ranked_cases > 0) s.rho_mean = sum_rho / s.ranked_cases;
    return s;
}

}  // namespace wb::ch06
