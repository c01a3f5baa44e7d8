/// \file gemv_op.cpp
/// \brief GEMV as the chapter binaries show it (the traits of op_runner.hpp): square cases
///        n = 1024 ... 16384 (2048 and 8192 with --quick; or --sizes), op N and T, GB/s against the
///        measured read ceiling, the stage model of common/model/gemv, and one extra row per case: the read floor
///        ("read A only": A's bytes read once by chapter 0's read kernel, same flush). With
///        --shapes, the shape set of issue 14 (shape_cases): rectangles, odd lda, offsets.
#include "gemv_problem.hpp"
#include "memory_fit.hpp"
#include "memory_lab.hpp"
#include "model.hpp"
#include "model/gemv.hpp"
#include "op_runner.hpp"
#include "roofline.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace wb {
namespace {

struct GemvOp {
    static constexpr const char* kName = "gemv";
    static constexpr bool memory_bound = true;
    static int extra_timed_rows(const ChapterRun&) { return 1; }  // the read floor
    template <class T> using Args = GemvArgs<T>;
    template <class T> using Problem = GemvProblem<T>;

    struct Case {
        std::string variant, shape;
        Op op;
        int m, n;
        int lda = 0;               ///< 0: max(1, m)
        int a_offset = 0;          ///< A starts this many elements into its allocation (a submatrix)
        std::string shape_class;   ///< --shapes: "square", "odd lda", "tall", "wide", "skinny", "offset"
    };

    /// The sizes where --sizes names none. Default (and --full: nothing larger is needed) 1024 ...
    /// 16384: A L2-resident up to 2048 (float) and DRAM-bound from 4096, so every step's line
    /// crosses from the cache to the read ceiling (about 40 s per chapter on an H200, estimated from
    /// the committed H200 runs; most of it the host writing the 16384^2 inputs). --quick: 2048
    /// (L2-resident) and 8192 (DRAM-bound).
    static std::vector<int> sizes(const ChapterOptions& o) {
        if (!o.sizes.empty()) return o.sizes;
        const std::vector<int> all = {1024, 2048, 4096, 8192, 16384};
        return pick_set<std::vector<int>>(o, {2048, 8192}, all, all);
    }
    static std::vector<Case> cases(const ChapterOptions& o) {
        const std::vector<int> sizes = GemvOp::sizes(o);
        std::vector<Op> ops = {Op::N, Op::T};
        if (o.trans != "both") ops = {parse_op(o.trans, "--trans")};
        std::vector<Case> v;
        for (Op op : ops)
            for (int n : sizes) v.push_back({std::string(1, op_char(op)), std::to_string(n), op, n, n, n, 0, "square"});
        return v;
    }
    /// `--shapes` (issue 14): square sizes that are not powers of two, odd leading dimensions,
    /// rectangles from 4:1 to 1:10^4 both ways (m n = 2^25), m or n <= 64 against >= 10^5, and
    /// submatrices at offsets 1 ... 33 of a 4000 x 4000 block in a 4160-row array; op N and T
    /// (or --trans). The shape label is "m x n", then lda and the offset where they differ.
    static std::vector<Case> shape_cases(const ChapterOptions& o) {
        std::vector<Op> ops = {Op::N, Op::T};
        if (o.trans != "both") ops = {parse_op(o.trans, "--trans")};
        std::vector<Case> v;
        for (Op op : ops) {
            auto add = [&](const std::string& cls, int m, int n, int lda = 0, int off = 0) {
                std::string label = std::to_string(m) + "x" + std::to_string(n);
                if (lda > 0 && lda != m) label += " lda" + std::to_string(lda);
                if (off > 0) label += " +" + std::to_string(off);
                v.push_back({std::string(1, op_char(op)), label, op, m, n, lda, off, cls});
            };
            for (int n : {1000, 3000, 5000, 6000, 10000, 12345}) add("square", n, n);
            for (int n : {2000, 4096, 5000, 8192}) add("odd lda", n, n, n + (n % 2 == 0 ? 1 : 3));
            const double mn = 33554432.0;  // 2^25 elements
            for (int r : {4, 10, 100, 1000, 10000}) {
                const int small = static_cast<int>(std::lround(std::sqrt(mn / r)));
                add("tall", small * r, small);
                add("wide", small, small * r);
            }
            for (auto [m, n] : {std::pair{16, 1000000}, {64, 1000000}, {32, 200000}}) {
                add("skinny", m, n);
                add("skinny", n, m);
            }
            for (int off : {1, 2, 3, 5, 8, 17, 32, 33}) add("offset", 4000, 4000, 4160, off);
        }
        return v;
    }

    static std::string title() { return "GEMV y = 1.5 op(A) x + 0.5 y, square n x n, lda = n"; }
    static const char* unit() { return "GB/s"; }
    static std::string ceiling_name() { return "read"; }
    static std::string peer_label() { return "cuBLAS"; }
    static void adjust_bench(BenchOptions&) {}

    template <class T> static Args<T> shape_args(const Case& c) {
        Args<T> a;
        a.op = c.op;
        a.m = c.m;
        a.n = c.n;
        a.lda = c.lda > 0 ? c.lda : std::max(1, c.m);
        a.beta = T(0.5);
        return a;
    }
    template <class T> static Problem<T> make_problem(const Case& c, std::uint64_t seed) {
        return make_gemv_problem<T>(c.op, c.m, c.n, c.lda > 0 ? c.lda : std::max(1, c.m), seed, T(1.5), T(0.5),
                                    c.a_offset);
    }
    template <class T> static std::vector<double> reference(const Problem<T>& p) { return p.reference(); }
    /// The problem's memory (gemv_memory_need); the read floor's row checks its own (extra_rows).
    template <class T> static MemoryNeed memory_need(const Case& c) {
        return gemv_memory_need(sizeof(T), c.op, c.m, c.n, c.lda > 0 ? c.lda : std::max(1, c.m), c.a_offset);
    }
    template <class T>
    static GemvCheck check(const Step<Args<T>>& s, const GemvLaunch& l, Problem<T>& p, const std::vector<double>& ref) {
        return check_gemv(s, l, p, ref);
    }
    template <class T> static BenchStats time(const Step<Args<T>>& s, const GemvLaunch& l, Problem<T>& p, BenchOptions bo) {
        return time_gemv(s, l, p, bo);
    }
    template <class T> static double rate(const Problem<T>& p, double ms) { return roofline::gbs(p.useful_bytes(), ms); }
    template <class T> static double ceiling(const Case&, const Ceilings& c) { return c.read_gbs; }

    static std::vector<std::string> model_columns() { return {"useful MB", "DRAM MB", "sectors", "blocks/SM"}; }
    template <class T>
    static Prediction predict(const Case&, const Step<Args<T>>& s, const Args<T>& a, const GemvLaunch& l,
                              const DeviceProfile& dev) {
        const Stage stage = s.ladder_stage();
        const auto ml = stage == Stage::kTuned ? gemv_model_launch_of(l, gemv_shape(a), dev) : gemv_model_launch_of(l);
        const auto p = model::predict_gemv(stage, a.op == Op::T, a.m, a.n, sizeof(T), ml, dev, a.beta != T(0));
        return {p.predicted_gbs, p.predicted_ms, p.note,
                {fmt(p.useful_bytes / 1e6), fmt(p.dram_bytes / 1e6), std::to_string(p.transactions),
                 std::to_string(p.occ.blocks_per_sm)}};
    }

    /// The read floor: the bytes of A read once by the chapter-0 read kernel, no arithmetic, the
    /// same flush. Where cuBLAS sits on it, no GEMV can beat cuBLAS by much.
    template <class T>
    static void extra_rows(const ChapterRun& run, const Case& c, Problem<T>& p, double peer_ms, OpTable& t,
                           Progress& prog) {
        prog.step(std::string("gemv ") + (sizeof(T) == 4 ? "float " : "double ") + c.variant + " " + c.shape +
                  " read A only");
        BenchOptions fo = run.bench;
        fo.working_set_bytes = static_cast<std::size_t>(p.m) * p.n * sizeof(T);
        // The floor reads a copy of A's bytes and writes another: where they do not fit beside the
        // problem, the row says so instead of the run failing after the steps were measured.
        if (const std::string why = device_shortfall_now(2.0 * fo.working_set_bytes); !why.empty()) {
            t.rows.push_back(skipped_row(sizeof(T) == 4 ? "float" : "double", c.variant, c.shape, "read A only", why));
            return;
        }
        const lab::CeilingRow fl = lab::measure_read_floor(fo.working_set_bytes, fo);
        const double gbs = roofline::gbs(p.useful_bytes(), fl.ms);
        t.rows.push_back({sizeof(T) == 4 ? "float" : "double", c.variant, c.shape, "read A only",
                          {fmt(fl.ms, 4), fmt(gbs), fmt_pct(gbs / run.ceil->read_gbs), "-", "-", fmt_ratio(peer_ms / fl.ms),
                           "-", "-", "-", "floor: A read once, no arithmetic"}});
        t.speedups[std::string(sizeof(T) == 4 ? "float " : "double ") + c.variant + " read A only vs cuBLAS"].push_back(
            peer_ms / fl.ms);
    }
};

}  // namespace

std::unique_ptr<OpChapter> make_op_chapter_gemv() { return std::make_unique<LadderOp<GemvOp>>(); }

}  // namespace wb
