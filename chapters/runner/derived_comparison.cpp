/// \file derived_comparison.cpp
/// \brief Chapter 6's rows (derived_comparison.hpp): each op's derived launch and chapter 5's default on one
///        profile, each predicted by the op's model (common/model/OP.hpp).
#include "derived_comparison.hpp"

#include "derived_launch.hpp"

#include "bench.hpp"
#include "compare.hpp"
#include "conv2d.hpp"
#include "conv2d_problem.hpp"
#include "gemm.hpp"
#include "gemm_design.hpp"
#include "gemm_problem.hpp"
#include "gemv.hpp"
#include "gemv_problem.hpp"
#include "gemv_rules.hpp"
#include "model/cg.hpp"
#include "model/conv2d.hpp"
#include "model/gemm.hpp"
#include "model/gemv.hpp"
#include "model/occupancy.hpp"
#include "model/symv.hpp"
#include "step.hpp"
#include "stop_signal.hpp"
#include "symv.hpp"
#include "symv_problem.hpp"
#include "tuned/conv2d_rules.hpp"
#include "tuned/gemm_default_rule.hpp"
#include "tuned/gemm_splitk.hpp"
#include "tuned/symv_layout.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace wb::ch06 {
namespace {

bool has(const derive::Derivation& d, const std::string& p) {
    return std::any_of(d.params.begin(), d.params.end(), [&](const derive::Derived& x) { return x.parameter == p; });
}

/// The sweep's timing: fewer repetitions than a chapter row (chapter 5's --sweep takes the same).
BenchOptions sweep_bench() {
    BenchOptions bo;
    bo.min_reps = 5;
    bo.max_reps = 30;
    bo.max_seconds = 0.5;
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

/// Times every launch of `launches` (the tuned step's legal launches for this call), adding the
/// derived and the default launch where the list lacks them (named in c.sweep_note), and keeps
/// the best and the worst. `time(launch, options)` returns BenchStats.
template <class Launch, class Time>
void sweep_launches(Comparison& c, std::vector<Launch> launches, const Launch& derived, const Launch& deflt, Time time) {
    for (const auto& [l, what] : {std::pair<const Launch&, const char*>{derived, "derived"}, {deflt, "default"}})
        if (std::find(launches.begin(), launches.end(), l) == launches.end()) {
            launches.push_back(l);
            c.sweep_note += std::string(what) + " launch added (not in the step's list); ";
        }
    const BenchOptions bo = sweep_bench();
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
    }
}

/// One measured case: the derived launch and chapter 5's default on problem `p`, each checked
/// against the float64 reference, then timed (the harness's median, L2 flushed; a launch that
/// fails its check is named in c.measured_note and not timed); with `sweep`, every legal launch
/// of `step` too (sweep_launches). `check(launch, reference)` returns a CheckResult,
/// `time(launch, options)` BenchStats; `bench`: the two launches' timing.
template <class Step, class Problem, class Launch, class Check, class Time>
void measure_case(Comparison& c, const Step& step, Problem& p, const Launch& derived, bool sweep,
                  const BenchOptions& bench, Check check, Time time) {
    const auto ref = p.reference();
    const Launch deflt = step.default_launch(p.args());
    const CheckResult cd = check(derived, ref), cf = check(deflt, ref);
    if (!cd.ok()) c.measured_note += "derived launch failed its check (" + cd.first_bad + ") ";
    if (!cf.ok()) c.measured_note += "default launch failed its check (" + cf.first_bad + ") ";
    if (cd.ok()) c.derived_measured_ms = time(derived, bench).median_ms;
    if (cf.ok()) c.default_measured_ms = time(deflt, bench).median_ms;
    c.default_launch = deflt.str();
    if (sweep) sweep_launches(c, step.legal_launches(p.args()), derived, deflt, time);
}

const char* kWhiteNote = "White's own kernel and launch: the workbook's models describe its tuned kernels, not his";

// ---------------------------------------------------------------------------------------------
// GEMV: the model sees the block's threads and the loads each keeps in flight (not Y)
// ---------------------------------------------------------------------------------------------

double gemv_ms(const DeviceProfile& dev, bool trans, long long m, long long n, int elem, int threads,
               int loads_in_flight) {
    model::GemvStageDesign d = model::gemv_stage_design(Stage::kTuned, trans, elem, threads, dev);
    d.loads_in_flight = loads_in_flight;
    return model::predict_gemv(d, trans, m, n, elem, threads, dev).predicted_ms;
}

template <class T>
void measure_gemv(Comparison& c, bool trans, int m, int n, bool sweep, const BenchOptions& bench) {
    const auto& step = wb::step<GemvArgs<T>>(chapter_of(Stage::kTuned));
    auto p = make_gemv_problem<T>(trans ? Op::T : Op::N, m, n, m, 1);
    measure_case(
        c, step, p, gemv_launch_of(c.derived, trans), sweep, bench,
        [&](const GemvLaunch& l, const auto& ref) { return check_gemv(step, l, p, ref); },
        [&](const GemvLaunch& l, const BenchOptions& bo) { return time_gemv(step, l, p, bo); });
}

std::vector<Comparison> gemv_cases(const DeviceProfile& dev, const std::vector<int>& precisions, bool measure,
                                   bool sweep, const CaseSelection& cs) {
    struct Shape {
        bool trans;
        int m, n;
    };
    std::vector<Shape> shapes;
    if (cs.sizes.empty()) shapes = {{false, 4096, 4096}, {true, 4096, 4096}, {false, 579, 57900}};
    for (long long n : cs.sizes)
        for (bool trans : {false, true}) shapes.push_back({trans, static_cast<int>(n), static_cast<int>(n)});
    shapes.erase(std::remove_if(shapes.begin(), shapes.end(),
                                [&](const Shape& s) { return s.trans ? !cs.op_t : !cs.op_n; }),
                 shapes.end());
    std::vector<Comparison> out;
    for (int elem : precisions)
        for (const Shape& s : shapes) {
            Comparison c;
            const GemvShape call{s.trans ? Op::T : Op::N, s.m, s.n, s.m, elem, 0, 0};
            c.derived = derive_gemv_call(dev, call);
            c.derived_launch = c.derived.launch();
            const int w = 16 / elem;
            if (has(c.derived, "dBlk.x")) {
                const int threads = static_cast<int>(c.derived.value("dBlk.x") * c.derived.value("dBlk.y"));
                c.derived_ms = model::predict_gemv(Stage::kShared, s.trans, s.m, s.n, elem, threads, dev).predicted_ms;
                c.note = "derived: White's shared-memory Mv, predicted with chapter 2's design";
            } else {
                const int threads = static_cast<int>(c.derived.value("block_x") * c.derived.value("block_y"));
                const long long per = s.trans ? 2 * (c.derived.value("C") + 1) : 2 * c.derived.value("U");
                c.derived_ms = gemv_ms(dev, s.trans, s.m, s.n, elem, threads, static_cast<int>(per * w));
            }
            GemvShape shape{s.trans ? Op::T : Op::N, s.m, s.n, s.m, elem, 0, 0};
            GemvMachine mc;
            mc.sm_count = dev.sm_count;
            mc.max_threads_per_sm = dev.max_threads_per_sm;
            mc.bandwidth_gbs = dev.bandwidth_gbs;
            mc.latency_ns = dev.latency_ns;
            mc.regs_per_sm = dev.regs_per_sm;
            const GemvLaunch l = tuned_gemv_default_launch(shape, mc);
            c.default_launch = l.str();
            const int wl = tuned_gemv_rows_per_load(shape);
            const int per = s.trans ? 2 * (l.nb + 1) : 2 * std::max(1, l.ept);
            const int threads = l.block_x * std::max(1, l.block_y);
            if (threads <= dev.max_threads_per_block)
                c.default_ms = gemv_ms(dev, s.trans, s.m, s.n, elem, threads, per * wl);
            if (measure && !has(c.derived, "dBlk.x")) {
                if (elem == 4) measure_gemv<float>(c, s.trans, s.m, s.n, sweep, case_bench(cs.quick));
                else measure_gemv<double>(c, s.trans, s.m, s.n, sweep, case_bench(cs.quick));
            }
            out.push_back(c);
        }
    return out;
}

// ---------------------------------------------------------------------------------------------
// GEMM: the model's design read off the tiles of a launch (gemm_design.hpp)
// ---------------------------------------------------------------------------------------------

template <class T>
GemmLaunch gemm_default(long long m, long long n, long long k) {
    GemmArgs<T> a;
    a.m = static_cast<int>(m);
    a.n = static_cast<int>(n);
    a.k = static_cast<int>(k);
    a.lda = a.m;
    a.ldb = a.k;
    a.ldc = a.m;
    return step<GemmArgs<T>>(chapter_of(Stage::kTuned)).default_launch(a);
}

template <class T>
void measure_gemm(Comparison& c, const GemmLaunch& derived, long long m, long long n, long long k, bool sweep,
                  const BenchOptions& bench) {
    const auto& step = wb::step<GemmArgs<T>>(chapter_of(Stage::kTuned));
    auto p = make_gemm_problem<T>(GemmShape{Op::N, Op::N, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k)}, 1);
    measure_case(
        c, step, p, derived, sweep, bench, [&](const GemmLaunch& l, const auto& ref) { return check_gemm(step, l, p, ref); },
        [&](const GemmLaunch& l, const BenchOptions& bo) { return time_gemm(step, l, p, bo); });
}

std::vector<Comparison> gemm_cases(const DeviceProfile& dev, const std::vector<int>& precisions, bool measure,
                                   bool sweep, const CaseSelection& cs) {
    struct Shape {
        long long m, n, k;
    };
    std::vector<Shape> shapes;
    if (cs.sizes.empty()) shapes = {{1024, 1024, 1024}, {4096, 4096, 4096}, {1024, 1024, 16384}};
    for (long long n : cs.sizes) shapes.push_back({n, n, n});
    std::vector<Comparison> out;
    for (int elem : precisions)
        for (const Shape& s : shapes) {
            Comparison c;
            const std::vector<GemmLaunch> configs = elem == 4 ? tuned::gemm_configs<float>() : tuned::gemm_configs<double>();
            GemmLaunch derived_launch;
            try {
                c.derived = derive::derive_gemm(dev, s.m, s.n, s.k, elem, gemm_candidates(configs), tuned::splitk::kMaxSplit);
            } catch (const std::invalid_argument&) {
                // None of chapter 5's tiles fits this device (the T10): the rules over powers of two.
                c.derived = derive::derive_gemm(dev, s.m, s.n, s.k, elem);
                c.note = "none of chapter 5's tiles fits " + dev.name + ": derived over the powers of two";
            }
            c.derived_launch = c.derived.launch();
            if (has(c.derived, "dBlk.x")) {
                c.note = kWhiteNote;
            } else {
                // The derived tile is one of the instantiated configurations: its launch, split as derived.
                try {
                    derived_launch = gemm_launch_of(c.derived, configs);
                    c.derived_launch = derived_launch.str();
                    c.derived_ms = model::predict_gemm(gemm_model_design(Stage::kTuned, derived_launch, elem), s.m,
                                                       s.n, s.k, elem, dev).ms;
                } catch (const std::invalid_argument&) {
                    // derived over the powers of two: no configuration of chapter 5 has that tile
                }
            }
            const GemmLaunch l = elem == 4 ? gemm_default<float>(s.m, s.n, s.k) : gemm_default<double>(s.m, s.n, s.k);
            c.default_launch = l.str();
            if (l.math == 2) {
                c.note += std::string(c.note.empty() ? "" : "; ") +
                          "chapter 5's default runs the FP64 tensor cores: the FMA model does not time it";
            } else {
                try {
                    c.default_ms = model::predict_gemm(gemm_model_design(Stage::kTuned, l, elem), s.m, s.n, s.k, elem, dev).ms;
                } catch (const std::invalid_argument&) {
                    c.note += std::string(c.note.empty() ? "" : "; ") + "chapter 5's tile does not fit " + dev.name;
                }
            }
            if (measure && derived_launch.tile_m > 0) {
                if (elem == 4) measure_gemm<float>(c, derived_launch, s.m, s.n, s.k, sweep, case_bench(cs.quick));
                else measure_gemm<double>(c, derived_launch, s.m, s.n, s.k, sweep, case_bench(cs.quick));
            }
            out.push_back(c);
        }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Convolution
// ---------------------------------------------------------------------------------------------

template <class T>
Conv2dLaunch conv2d_default(long long rows, long long cols, int fs) {
    Conv2dArgs<T> a;
    a.rows = static_cast<int>(rows);
    a.cols = static_cast<int>(cols);
    a.fs = fs;
    a.in_pitch = a.out_pitch = a.cols;
    return step<Conv2dArgs<T>>(chapter_of(Stage::kTuned)).default_launch(a);
}

double conv2d_ms(const DeviceProfile& dev, const Conv2dLaunch& l, long long rows, long long cols, int fs, int elem) {
    const int bx = std::max(1, l.block_x), by = std::max(1, l.block_y);
    const int tx = std::max(1, l.thread_x), ty = std::max(1, l.thread_y);
    const int tile_x = l.tile_x > 0 ? l.tile_x : bx * tx, tile_y = l.tile_y > 0 ? l.tile_y : by * ty;
    const auto d = model::conv2d_stage_design(Stage::kTuned, fs, elem, tile_x, tile_y, tx, ty, bx * by);
    return model::predict_conv2d(d, rows, cols, fs, elem, dev).ms;
}

template <class T>
void measure_conv2d(Comparison& c, const Conv2dLaunch& derived, long long n, int fs, bool sweep,
                    const BenchOptions& bench) {
    const auto& step = wb::step<Conv2dArgs<T>>(chapter_of(Stage::kTuned));
    auto p = make_conv2d_problem<T>(Conv2dShape{static_cast<int>(n), static_cast<int>(n), fs}, 1);
    measure_case(
        c, step, p, derived, sweep, bench,
        [&](const Conv2dLaunch& l, const auto& ref) { return check_conv2d(step, l, p, ref); },
        [&](const Conv2dLaunch& l, const BenchOptions& bo) { return time_conv2d(step, l, p, bo); });
}

std::vector<Comparison> conv2d_cases(const DeviceProfile& dev, const std::vector<int>& precisions, bool measure,
                                     bool sweep, const CaseSelection& cs) {
    std::vector<std::pair<long long, int>> shapes;  // (n, FS): an n x n image, each filter size
    for (long long n : cs.sizes.empty() ? std::vector<long long>{4096} : cs.sizes)
        for (int fs : {3, 7, 17, 63}) shapes.push_back({n, fs});
    std::vector<Comparison> out;
    for (int elem : precisions)
        for (const auto& [n, fs] : shapes) {
            Comparison c;
            const Conv2dLaunch l = elem == 4 ? conv2d_default<float>(n, n, fs) : conv2d_default<double>(n, n, fs);
            c.default_launch = l.str();
            try {
                c.default_ms = conv2d_ms(dev, l, n, n, fs, elem);
            } catch (const std::invalid_argument&) {
                c.note = "chapter 5's tile does not fit " + dev.name;
            }
            try {
                const auto configs = elem == 4 ? tuned::conv2d_configs<float>(fs) : tuned::conv2d_configs<double>(fs);
                c.derived = derive::derive_conv2d(dev, n, n, fs, elem, conv2d_candidates(configs));
            } catch (const std::invalid_argument& e) {
                c.derived.op = "conv2d";
                c.derived.shape = std::to_string(n) + " x " + std::to_string(n) + " FS " + std::to_string(fs) +
                                  (elem == 8 ? " double" : " float");
                c.note += std::string(c.note.empty() ? "" : "; ") + e.what();
                out.push_back(c);
                continue;
            }
            c.derived_launch = c.derived.launch();
            if (has(c.derived, "dBlk.x")) {
                c.note += std::string(c.note.empty() ? "" : "; ") + kWhiteNote;
            } else {
                const Conv2dLaunch dl = conv2d_launch_of(c.derived);
                c.derived_launch = dl.str();
                try {
                    c.derived_ms = conv2d_ms(dev, dl, n, n, fs, elem);
                } catch (const std::invalid_argument& e) {
                    c.note += std::string(c.note.empty() ? "" : "; ") + "derived: " + e.what();
                }
                if (measure) {
                    if (elem == 4) measure_conv2d<float>(c, dl, n, fs, sweep, case_bench(cs.quick));
                    else measure_conv2d<double>(c, dl, n, fs, sweep, case_bench(cs.quick));
                }
            }
            out.push_back(c);
        }
    return out;
}

// ---------------------------------------------------------------------------------------------
// SYMV and CG: chapter 5's rule evaluated on the profile (its tiles' resident blocks from the model)
// ---------------------------------------------------------------------------------------------

SymvLaunch symv_default(const DeviceProfile& dev, long long n, int elem) {
    std::vector<tuned::SymvTileOccupancy> tiles;
    for (auto [nb, q] : {std::pair{64, 4}, {64, 8}, {32, 4}}) {
        const int regs = std::min(model::tuned_symv_regs(nb, q, elem), dev.max_regs_per_thread);
        const int smem = std::min(nb * (nb + 1) * elem, dev.smem_per_block_bytes);
        const int threads = std::min(nb * q, dev.max_threads_per_block);
        tiles.push_back({nb, q, model::occupancy(dev, threads, regs, smem).blocks_per_sm});
    }
    const int panels = dev.max_threads_per_block >= model::kSymvPanelThreads ? 1 : 0;
    return tuned::symv_rule(static_cast<int>(n), elem, dev.sm_count, tiles, n * elem, panels);
}

double symv_ms(const DeviceProfile& dev, long long n, int elem, int threads, int nb, int y) {
    model::SymvModelLaunch l;
    l.block_threads = threads;
    l.nb = nb;
    l.y_blocks = y;
    return model::predict_symv(Stage::kTuned, n, elem, l, dev).predicted_ms;
}

int symv_threads(const SymvLaunch& l) {
    return std::max(1, l.block_x) * std::max(1, l.block_y);
}

template <class T>
void measure_symv(Comparison& c, const SymvLaunch& derived, long long n, bool sweep, const BenchOptions& bench) {
    const auto& step = wb::step<SymvArgs<T>>(chapter_of(Stage::kTuned));
    auto p = make_symv_problem<T>(Uplo::Lower, static_cast<int>(n), static_cast<int>(n), 1);
    measure_case(
        c, step, p, derived, sweep, bench, [&](const SymvLaunch& l, const auto& ref) { return check_symv(step, l, p, ref); },
        [&](const SymvLaunch& l, const BenchOptions& bo) { return time_symv(step, l, p, bo); });
}

std::vector<Comparison> symv_cases(const DeviceProfile& dev, const std::vector<int>& precisions, bool cg,
                                   bool measure, bool sweep, const CaseSelection& cs) {
    const std::vector<long long> sizes = !cs.sizes.empty() ? cs.sizes
                                         : cg              ? std::vector<long long>{2048, 16384}
                                                           : std::vector<long long>{4096, 16384};
    std::vector<Comparison> out;
    for (int elem : precisions)
        for (long long n : sizes) {
            Comparison c;
            c.derived = cg ? derive::derive_cg(dev, n, elem) : derive_symv_call(dev, n, n, elem);
            c.derived_launch = cg ? c.derived.launch() : symv_launch_of(c.derived).str();
            const std::string p = cg ? "mv." : "";
            const int nb = static_cast<int>(c.derived.value(p + "nb")), q = static_cast<int>(c.derived.value(p + "Q"));
            const double mv = symv_ms(dev, n, elem, nb * q, nb, static_cast<int>(c.derived.value(p + "Y")));
            const SymvLaunch l = symv_default(dev, n, elem);
            c.default_launch = l.str();
            const double mv_default = symv_ms(dev, n, elem, symv_threads(l), l.nb, std::max(1, l.y_blocks));
            if (!cg) {
                c.derived_ms = mv;
                c.default_ms = mv_default;
                if (measure) {
                    const SymvLaunch dl = symv_launch_of(c.derived);
                    if (elem == 4) measure_symv<float>(c, dl, n, sweep, case_bench(cs.quick));
                    else measure_symv<double>(c, dl, n, sweep, case_bench(cs.quick));
                }
            } else {
                // Per iteration, the Mv at each launch (the CUDA-graph schedule: the persistent
                // kernel's grid is its own rule).
                const double tol = elem == 4 ? 1e-5 : 1e-9;
                c.derived_ms = model::predict_cg(Stage::kTuned, n, elem, dev, 100.0, tol, 0, mv, 1).predicted_ms;
                c.default_ms = model::predict_cg(Stage::kTuned, n, elem, dev, 100.0, tol, 0, mv_default, 1).predicted_ms;
                c.note = "ms per iteration (CUDA-graph schedule), the Mv at each launch; the vector kernels' "
                         "grid and loads are not in the model";
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
    if (op == "cg") return symv_cases(dev, precisions, true, false, false, cases);
    throw std::invalid_argument("ch06 compare_op: op (\"" + op + "\") must be one of gemv, gemm, conv2d, symv, cg");
}

}  // namespace wb::ch06
