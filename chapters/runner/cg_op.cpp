/// \file cg_op.cpp
/// \brief CG as the chapter binaries show it (the traits of op_runner.hpp): n = 1024 ... 8192
///        (--full: 1024 ... 16384, --quick: 2048; or --sizes) at two condition numbers (the variant
///        column: "k=1e2", "k=1e4"; --trans does not apply), A dense SPD with a geometric spectrum
///        (reference_cg.hpp), b = A x_true, x0 = 0,
///        tol 1e-5 (float) or 1e-9 (double).
///        - ms: per iteration (cg_problem.hpp: the difference of two fixed-iteration solves);
///        - GB/s: the step's bytes per iteration (model::cg_iteration_bytes: the matrix its Mv must
///          read, all of A or its lower triangle, + its vector traffic) against the read ceiling;
///        - rel err: the true residual ||b - A x|| / ||b|| in float64 on the CPU after a solve to
///          the tolerance; the note: iterations to converge and the time to solution;
///        - an extra row, "cuSOLVER potrf+potrs": the direct solve's time to solution (its ms
///          column is the whole solve, not an iteration), where the build has cuSOLVER.
///        The model (common/model/cg) predicts ms per iteration; the predict-only table adds the
///        classical iteration bound for the case's condition number.
#include "cg_problem.hpp"
#include "memory_fit.hpp"
#include "gemv.hpp"
#include "gemv_problem.hpp"
#include "model/cg.hpp"
#include "model/gemv.hpp"
#include "symv_problem.hpp"
#include "op_runner.hpp"
#include "roofline.hpp"
#include "stages.hpp"

#include <algorithm>
#include <cmath>

namespace wb {
namespace {

template <class T> double default_tol() { return sizeof(T) == 4 ? 1e-5 : 1e-9; }

/// One Mv of the step's chapter (q = A p: alpha 1, beta 0) as the Mv's own model predicts it, at
/// the launch that chapter's Mv step takes by default (what the CG step calls); -1 for the
/// cuBLAS-composed peer, which has no model.
template <class T>
double mv_model_ms(int chapter, int n, const DeviceProfile& dev) {
    if (chapter < 1 || chapter > chapter_of(Stage::kTuned) || n <= 0) return -1;
    const Stage stage = stage_of(chapter).stage;
    if (stage <= Stage::kPattern) {  // GEMV on all of A
        GemvArgs<T> g;
        g.op = Op::N;
        g.m = g.n = g.lda = n;
        const GemvLaunch l = step<GemvArgs<T>>(chapter).default_launch(g);
        return model::predict_gemv(stage, false, n, n, sizeof(T), gemv_model_launch_of(l), dev, false, /*warm=*/true)
            .predicted_ms;
    }
    SymvArgs<T> sa;  // SYMV on the lower triangle
    sa.uplo = Uplo::Lower;
    sa.n = sa.lda = n;
    const SymvLaunch l = step<SymvArgs<T>>(chapter).default_launch(sa);
    return model::predict_symv(stage, n, sizeof(T), symv_model_launch(l), dev, false, /*warm=*/true).predicted_ms;
}

struct CgOp {
    static constexpr const char* kName = "cg";
    static constexpr bool memory_bound = true;
    static int extra_timed_rows(const ChapterRun&) { return peer::have_cusolver() ? 1 : 0; }
    template <class T> using Args = CgArgs<T>;
    template <class T> using Problem = CgProblem<T>;

    struct Case {
        std::string variant, shape;
        int n;
        double kappa;
    };

    /// The sizes where --sizes names none, each at both condition numbers. Default 1024 ... 8192:
    /// A L2-resident (1024, 2048) and DRAM-bound (4096 in double, 8192), the curves of time to
    /// solution against n; the tuned step runs its persistent kernel at all of them (about 25-40 s
    /// per chapter on an H200, 47 s with --ladder, estimated from the committed H200 runs). --full
    /// adds 16384, where the tuned step switches to its graph of kernels (the slow steps' solves
    /// there with k = 1e4, 752 iterations in double, take seconds each: about 1.5 minutes per
    /// chapter, 2 with --ladder). --quick: 2048.
    static std::vector<int> sizes(const ChapterOptions& o) {
        if (!o.sizes.empty()) return o.sizes;
        const std::vector<int> normal = {1024, 2048, 4096, 8192};
        return pick_set<std::vector<int>>(o, {2048}, normal, {1024, 2048, 4096, 8192, 16384});
    }
    static std::vector<Case> cases(const ChapterOptions& o) {
        const std::vector<int> sizes = CgOp::sizes(o);
        std::vector<Case> v;
        for (double k : {1e2, 1e4})
            for (int n : sizes) v.push_back({k == 1e2 ? "k=1e2" : "k=1e4", std::to_string(n), n, k});
        return v;
    }
    static std::string title() {
        return "CG on A x = b, A dense SPD n x n (geometric spectrum, condition number k), tol 1e-5 (float) / "
               "1e-9 (double); ms and GB/s per iteration";
    }
    static const char* unit() { return "GB/s"; }
    static std::string ceiling_name() { return "read"; }
    static std::string peer_label() { return "cuBLAS CG"; }
    static void adjust_bench(BenchOptions&) {}

    template <class T> static Args<T> shape_args(const Case& c) {
        Args<T> a;
        a.n = c.n;
        a.lda = std::max(1, c.n);
        a.tol = default_tol<T>();
        return a;
    }
    template <class T> static Problem<T> make_problem(const Case& c, std::uint64_t seed) {
        const int max_iter = 4 * model::cg_iteration_bound(c.kappa, default_tol<T>()) + 100;
        return make_cg_problem<T>(c.n, std::max(1, c.n), c.kappa, default_tol<T>(), max_iter, seed);
    }
    template <class T> static MemoryNeed memory_need(const Case& c) {
        return cg_memory_need(sizeof(T), c.n, std::max(1, c.n));
    }
    /// Nothing: the check is the true residual (the float64 CG reference is O(iterations n^2),
    /// the tests' business, not the chapters').
    template <class T> static int reference(const Problem<T>&) { return 0; }
    template <class T>
    static CgCheck check(const Step<Args<T>>& s, const CgLaunch& l, Problem<T>& p, int) {
        return check_cg(s, l, p);
    }
    template <class T> static BenchStats time(const Step<Args<T>>& s, const CgLaunch& l, Problem<T>& p, BenchOptions bo) {
        return time_cg(s, l, p, bo, peer_label());
    }
    template <class T> static double rate(const Problem<T>& p, double ms) { return roofline::gbs(p.rate_bytes, ms); }
    template <class T> static double ceiling(const Case&, const Ceilings& c) { return c.read_gbs; }

    static std::vector<std::string> model_columns() {
        return {"MB/iter", "launches/iter", "round trips/iter", "iterations (bound)", "roofline ms/iter",
                "ms to solution"};
    }
    template <class T>
    static Prediction predict(const Case& c, const Step<Args<T>>& s, const Args<T>& a, const CgLaunch& l,
                              const DeviceProfile& dev) {
        const auto p = model::predict_cg(cg_model_step(s), a.n, sizeof(T), dev, c.kappa, a.tol,
                                         l.check_every, mv_model_ms<T>(s.chapter, a.n, dev), l.schedule, {}, a.lda);
        return {p.predicted_gbs, p.predicted_ms, p.note,
                {fmt((p.matrix_bytes + p.workspace_bytes + p.vector_bytes) / 1e6), fmt(p.launches, 1),
                 fmt(p.round_trips, 2), std::to_string(p.iterations), fmt(p.roofline_ms, 4),
                 fmt(p.predicted_ms * p.iterations, 3)}};
    }

    /// The notes of the case's step rows (iterations, time to solution), and the cuSOLVER row.
    template <class T>
    static void extra_rows(const ChapterRun& run, const Case& c, Problem<T>& p, double /*peer_ms*/, OpTable& t,
                           Progress& prog) {
        const std::string prec = sizeof(T) == 4 ? "float" : "double";
        for (auto it = t.rows.rbegin(); it != t.rows.rend(); ++it) {
            if (it->precision != prec || it->variant != c.variant || it->shape != c.shape) break;
            auto n = p.notes.find(it->step);
            if (n == p.notes.end() || it->cells.size() < 10) continue;
            std::string& note = it->cells[9];
            note = note.empty() ? n->second : note + "; " + n->second;
        }
        const std::string mine = step_label(run.chapter, peer_label());
        if (p.solve_ms.count(mine) && p.solve_ms.count(peer_label()))
            t.speedups[prec + " " + c.variant + " time to solution vs cuBLAS CG"].push_back(p.solve_ms[peer_label()] /
                                                                                          p.solve_ms[mine]);
        if (!peer::have_cusolver()) return;
        prog.step("cg " + prec + " " + c.variant + " " + c.shape + " cusolver");
        // The direct solve factors a copy of A (n x n) with potrf's buffer: where they do not fit
        // beside the problem, the row says so instead of the run failing after the steps' rows.
        const double copy = sizeof(T) * (static_cast<double>(p.n) * p.n + 64.0 * p.n);
        if (const std::string why = device_shortfall_now(copy); !why.empty()) {
            t.rows.push_back(skipped_row(prec, c.variant, c.shape, "cuSOLVER potrf+potrs", why));
            return;
        }
        const Step<Args<T>> chol{"cusolver", "cuSOLVER potrf + potrs", &peer::cg_cholesky<T>,
                                 [](const Args<T>&) { return CgLaunch{}; },
                                 [](const Args<T>&) { return std::vector<CgLaunch>{CgLaunch{}}; }};
        // A direct solve: no iterations; the check is the true residual, under the same bound.
        p.x.upload(p.hx0);
        chol.launch(p.args(), CgLaunch{}, nullptr);
        const std::vector<T> x = p.x.download();
        const double res = ref::true_residual<T>(p.n, p.hA.data(), p.lda, p.hb.data(), x.data());
        const bool ok = p.result.status == CgStatus::Converged && res <= cg_residual_bound<T>(p.tol, p.kappa);
        if (!ok) t.failed = true;
        const double ms = time_cg_solve(chol, CgLaunch{}, p, run.bench).median_ms;
        const std::string mine_note = p.solve_ms.count(mine) ? ("; " + fmt_ratio(ms / p.solve_ms[mine]) + " the time to solution of " + mine)
                                                              : std::string();
        t.rows.push_back({prec, c.variant, c.shape, "cuSOLVER potrf+potrs",
                          {fmt(ms, 4), "-", "-", "-", "-", "-", "-", "-", fmt_check(res, ok),
                           "direct solve: ms = time to solution" + mine_note}});
        if (p.solve_ms.count(mine))
            t.speedups[prec + " " + c.variant + " time to solution vs cuSOLVER"].push_back(ms / p.solve_ms[mine]);
    }
};

}  // namespace

std::unique_ptr<OpChapter> make_op_chapter_cg() { return std::make_unique<LadderOp<CgOp>>(); }

}  // namespace wb
