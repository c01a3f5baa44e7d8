/// \file symv_op.cpp
/// \brief SYMV as the chapter binaries show it (the traits of op_runner.hpp): n = 1024 ... 16384
///        (--full adds 32768, --quick is 2048 and 8192; or --sizes), both triangles (the variant
///        column is uplo, "L" or "U"; --trans does not apply to SYMV and is ignored), GB/s of
///        roofline::symv_bytes against the measured read ceiling, the stage model of common/model/symv
///        beside each step (predict-only tables add Nath §7.2's optimality bound, 4 x bandwidth /
///        size(T) GFLOP/s), and extra rows per case:
///        - "cuBLAS atomics": the peer with CUBLAS_ATOMICS_ALLOWED (the peer's second legal launch;
///          its "x cuBLAS" cell is how much faster it is than the default mode), and
///        - "ch05 tuned atomics" (chapter 5 on): the tuned step's atomics mode (launch
///          atomics = 1) beside its deterministic default.
///        The summary gains "vs cuBLAS atomics": the chapter's step against the atomics mode,
///        both timed back to back in the extra rows.
///        --shapes (shape_cases): KBLAS's submatrix experiment (TOMS Fig. 11-12), the trailing
///        submatrix A(k:, k:) of a 16384 x 16384 lower matrix (lda = 16384, n = 16384 - k; or
///        --sizes N) at every offset k = 0 ... 64, the step and cuBLAS's default mode; one
///        matrix for every offset (drawn once), fresh x and y per offset.
#include "symv_problem.hpp"
#include "model/symv.hpp"
#include "op_runner.hpp"
#include "random.hpp"
#include "roofline.hpp"

#include <algorithm>

namespace wb {
namespace {

struct SymvOp {
    static constexpr const char* kName = "symv";
    static constexpr bool memory_bound = true;
    /// cuBLAS atomics, and from chapter 5 on (the binaries that link the tuned step) its atomics mode.
    static int extra_timed_rows(const ChapterRun& run) { return run.chapter >= chapter_of(Stage::kTuned) ? 2 : 1; }
    template <class T> using Args = SymvArgs<T>;
    template <class T> using Problem = SymvProblem<T>;

    struct Case {
        std::string variant, shape;
        Uplo uplo;
        int n;
        int lda = 0;              ///< 0: n
        std::size_t offset = 0;   ///< A starts this many elements into its allocation (a submatrix)
        std::string shape_class;  ///< --shapes: the note column's class
        bool submatrix = false;   ///< --shapes: A is a submatrix of the experiment's one matrix (parent)
    };

    /// The submatrix set: A(k:, k:) of an N x N lower matrix at k = 0 ... 64, so that the column
    /// starts take every alignment (k a multiple of 32 elements or not: KBLAS's Fig. 11-12; the
    /// tuned step's origin shift for each k: tuned::symv_origin_shift).
    static std::vector<Case> shape_cases(const ChapterOptions& o) {
        const int full = o.sizes.empty() ? 16384 : o.sizes.front();
        std::vector<Case> v;
        for (int k = 0; k <= 64 && k < full; ++k) {
            Case c{"L", "A(" + std::to_string(k) + ":," + std::to_string(k) + ":) of " + std::to_string(full),
                   Uplo::Lower, full - k, full, 0, ""};
            c.lda = full;
            c.offset = static_cast<std::size_t>(k) + static_cast<std::size_t>(k) * full;
            c.shape_class = k % 32 == 0 ? "submatrix, k a multiple of 32" : "submatrix";
            c.submatrix = true;
            v.push_back(c);
        }
        return v;
    }

    /// The sizes where --sizes names none. Default 1024 ... 16384: the matrix L2-resident at 1024
    /// and 2048 (and 4096 in float), DRAM-bound above, where each step's line meets the read ceiling
    /// (about 30 s per chapter on an H200, estimated from the committed H200 runs; the host writing
    /// the matrices is most of it). --full adds 32768 (where
    /// cuBLAS's rate drops: 2 GB of float, 4 GB of double, four times the host's work of 16384:
    /// about 2 minutes in all). --quick: 2048 and 8192.
    static std::vector<int> sizes(const ChapterOptions& o) {
        if (!o.sizes.empty()) return o.sizes;
        return pick_set<std::vector<int>>(o, {2048, 8192}, {1024, 2048, 4096, 8192, 16384},
                                          {1024, 2048, 4096, 8192, 16384, 32768});
    }
    static std::vector<Case> cases(const ChapterOptions& o) {
        const std::vector<int> sizes = SymvOp::sizes(o);
        std::vector<Case> v;
        for (Uplo u : {Uplo::Lower, Uplo::Upper})
            for (int n : sizes) v.push_back({std::string(1, uplo_char(u)), std::to_string(n), u, n, 0, 0, ""});
        return v;
    }
    static std::string title() {
        return "SYMV y = 1.5 A x + 0.5 y, A symmetric n x n (only the uplo triangle read), lda = n";
    }
    static const char* unit() { return "GB/s"; }
    static std::string ceiling_name() { return "read"; }
    static std::string peer_label() { return "cuBLAS"; }
    static void adjust_bench(BenchOptions&) {}

    template <class T> static Args<T> shape_args(const Case& c) {
        Args<T> a;
        a.uplo = c.uplo;
        a.n = c.n;
        a.lda = c.lda > 0 ? c.lda : std::max(1, c.n);
        a.alpha = T(1.5);
        a.beta = T(0.5);
        return a;
    }
    template <class T> static Problem<T> make_problem(const Case& c, std::uint64_t seed) {
        const int lda = c.lda > 0 ? c.lda : std::max(1, c.n);
        if (!c.submatrix) return make_symv_problem<T>(c.uplo, c.n, lda, seed, T(1.5), T(0.5), c.offset);
        // --shapes: every offset's submatrix from one matrix, drawn once per size and precision
        // (as KBLAS's experiment: submatrices of one matrix; drawing 16384^2 values takes ~4 s).
        return make_symv_problem_from<T>(parent<T>(c.offset + static_cast<std::size_t>(lda) * c.n), c.uplo, c.n, lda,
                                         seed, T(1.5), T(0.5), c.offset);
    }
    /// The problem's memory (symv_memory_need); a submatrix case also keeps its parent's values.
    template <class T> static MemoryNeed memory_need(const Case& c) {
        const int lda = c.lda > 0 ? c.lda : std::max(1, c.n);
        MemoryNeed need = symv_memory_need(sizeof(T), c.n, lda, c.offset);
        if (c.submatrix) need.host_bytes += sizeof(T) * (static_cast<double>(c.offset) + static_cast<double>(lda) * c.n);
        return need;
    }
    /// The submatrix experiment's matrix: at least `elems` values, drawn from a fixed seed when a
    /// case needs more than the last draw holds, kept for the next case.
    template <class T> static const std::vector<T>& parent(std::size_t elems) {
        static std::vector<T> values;
        if (values.size() < elems) values = random_vector<T>(elems + 64, 0x5eedULL);
        return values;
    }
    template <class T> static std::vector<double> reference(const Problem<T>& p) { return p.reference(); }
    template <class T>
    static CheckResult check(const Step<Args<T>>& s, const SymvLaunch& l, Problem<T>& p, const std::vector<double>& ref) {
        return check_symv(s, l, p, ref);
    }
    template <class T> static BenchStats time(const Step<Args<T>>& s, const SymvLaunch& l, Problem<T>& p, BenchOptions bo) {
        return time_symv(s, l, p, bo);
    }
    template <class T> static double rate(const Problem<T>& p, double ms) { return roofline::gbs(p.useful_bytes(), ms); }
    template <class T> static double ceiling(const Case&, const Ceilings& c) { return c.read_gbs; }

    static std::vector<std::string> model_columns() {
        return {"useful MB", "DRAM MB", "workspace MB", "blocks/SM", "waves", "longest walk", "Nath 7.2 GFLOP/s"};
    }
    template <class T>
    static Prediction predict(const Case&, const Step<Args<T>>& s, const Args<T>& a, const SymvLaunch& l,
                              const DeviceProfile& dev) {
        const auto p = model::predict_symv(s.ladder_stage(), a.n, sizeof(T), symv_model_launch(l), dev, a.beta != T(0));
        return {p.predicted_gbs, p.predicted_ms, p.note,
                {fmt(p.useful_bytes / 1e6), fmt(p.dram_bytes / 1e6), fmt(p.workspace_bytes / 1e6),
                 std::to_string(p.occ.blocks_per_sm), fmt(p.grid.waves, 2), std::to_string(p.longest_walk),
                 fmt(p.optimal_gflops)}};
    }

    /// The model's prediction of the tuned step's atomics mode (the "ch05 tuned atomics" row of a
    /// measured table), for the predict-only table.
    template <class T>
    static std::vector<std::pair<std::string, Prediction>> extra_predictions(const ChapterRun& run, const Case& c,
                                                                              const Args<T>& a) {
        if (run.chapter < chapter_of(Stage::kTuned)) return {};
        const Step<Args<T>>& tuned = step<Args<T>>(chapter_of(Stage::kTuned));
        SymvLaunch l = tuned.default_launch(a);
        l.atomics = 1;
        try {
            return {{"ch05 tuned atomics", predict<T>(c, tuned, a, l, run.dev)}};
        } catch (const std::invalid_argument& e) {  // a launch the preset cannot hold: say why
            Prediction p;
            p.limit = std::string("not predicted on ") + run.dev.name + ": " + e.what();
            return {{"ch05 tuned atomics", p}};
        }
    }

    /// The atomics modes: cuBLAS with CUBLAS_ATOMICS_ALLOWED (always) and the tuned step's
    /// atomics launch (chapter 5, or every chapter with --ladder), each checked and timed; the
    /// chapter's step is timed once more beside them for the "vs cuBLAS atomics" summary.
    template <class T>
    static void extra_rows(const ChapterRun& run, const Case& c, Problem<T>& p, double peer_ms, OpTable& t,
                           Progress& prog) {
        const std::string prec = sizeof(T) == 4 ? "float" : "double";
        const auto ref = p.reference();
        const double ceiling = run.ceil->read_gbs;
        auto row = [&](const Step<Args<T>>& s, const SymvLaunch& l, const std::string& label, const std::string& note,
                       bool model) {
            prog.step("symv " + prec + " " + c.variant + " " + c.shape + " " + label);
            const CheckResult chk = check_symv(s, l, p, ref);
            if (!chk.ok()) t.failed = true;
            const double ms = time_symv(s, l, p, run.bench).median_ms;
            const double gbs = roofline::gbs(p.useful_bytes(), ms);
            std::string m = "-", merr = "-";
            if (model) {
                const auto pr = model::predict_symv(s.ladder_stage(), p.n, sizeof(T), symv_model_launch(l), run.dev,
                                                    p.beta != T(0));
                m = fmt(pr.predicted_gbs);
                merr = fmt_model_error(pr.predicted_gbs, gbs);
            }
            t.rows.push_back({prec, c.variant, c.shape, label,
                              {fmt(ms, 4), fmt(gbs), fmt_pct(gbs / ceiling), "-", "-", fmt_ratio(peer_ms / ms), m, merr,
                               fmt_check(chk.rel_error, chk.ok()), note}});
            return ms;
        };
        SymvLaunch atomic_peer = peer_step<Args<T>>().default_launch(p.args());
        atomic_peer.atomics = 1;
        const double atomics_ms =
            row(peer_step<Args<T>>(), atomic_peer, "cuBLAS atomics", "CUBLAS_ATOMICS_ALLOWED: not reproducible", false);
        if (run.chapter >= chapter_of(Stage::kTuned)) {
            const Step<Args<T>>& tuned = step<Args<T>>(chapter_of(Stage::kTuned));
            SymvLaunch l = tuned.default_launch(p.args());
            l.atomics = 1;
            // The row-panel layout of small n has no partials: its atomics mode is the same kernel.
            const bool panels = model::is_symv_row_panels(l.nb, l.block_x);
            row(tuned, l, "ch05 tuned atomics",
                panels ? "row panels (small n): no partials, the deterministic kernel" : "atomics mode: not reproducible",
                true);
        }
        const Step<Args<T>>& mine = step<Args<T>>(run.chapter);
        const double mine_ms = time_symv(mine, mine.default_launch(p.args()), p, run.bench).median_ms;
        t.speedups[prec + " " + c.variant + " vs cuBLAS atomics"].push_back(atomics_ms / mine_ms);
    }
};

}  // namespace

std::unique_ptr<OpChapter> make_op_chapter_symv() { return std::make_unique<LadderOp<SymvOp>>(); }

}  // namespace wb
