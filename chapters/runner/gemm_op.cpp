/// \file gemm_op.cpp
/// \brief GEMM as the chapter binaries show it (the traits of op_runner.hpp): square and
///        rectangular cases, op(A) N and T with op(B) = N (--trans), GFLOP/s against the roofline
///        bound min(FMA peak, bandwidth x arithmetic intensity) of the element type, and the
///        model of common/model/gemm. With --shapes, the shape set (shape_cases): squares that
///        are not powers of two, all four op combinations, padded leading dimensions, offset base
///        pointers, and the classes a square benchmark never shows: n or m from 1 to 64 (GEMV-like),
///        k from 1 to 64 (a rank-k update, bound by C's bytes), k up to 2^20 on a small C.
#include "gemm_design.hpp"
#include "gemm_epilogue_source.hpp"
#include "gemm_problem.hpp"
#include "gemv.hpp"
#include "gemv_problem.hpp"
#include "model.hpp"
#include "model/gemm.hpp"
#include "model/gemv.hpp"
#include "op_runner.hpp"
#include "roofline.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace wb {
namespace {

struct GemmOp {
    static constexpr const char* kName = "gemm";
    static constexpr bool memory_bound = false;
    /// Chapter 5 times its named float variants too (extra_rows); counted per case of either
    /// precision (the progress line's estimate).
    static int extra_timed_rows(const ChapterRun& run) {
        if (run.chapter != 5 || run.opt.precision == "double") return 0;
        return static_cast<int>(ladder_gemm_variants_float().size());
    }
    /// From chapter 5 on, the tuned step picks its launch from its kernels' rates, measured once
    /// per process (kernels/tuned/gemm_kernel_rates.cpp): here, before chapter 0's microbenchmarks have
    /// loaded the card, as a process that runs only GEMMs measures them.
    template <class T> static void before_ceilings(const ChapterRun& run) {
        if (run.chapter >= 5) ladder_gemm_kernel_rates<T>();
    }
    template <class T> using Args = GemmArgs<T>;
    template <class T> using Problem = GemmProblem<T>;

    struct Case {
        std::string variant, shape;
        GemmShape s;
        std::string shape_class;  ///< --shapes: "square", "op(B) = B^T", "ld > rows", "offset", "small n", ...
    };

    /// The shapes where --sizes names none (m x n x k). Default: squares 1024 ... 4096 (1024 leaves
    /// SMs idle at large tiles: a wave-quantization case) and 4097 (one past every tile: the edges
    /// chapter 4 makes safe), and the two classes k decides: short k (4096 x 4096 x 256, bound by
    /// C's bytes) and long k (1024 x 1024 x 16384, few tiles: the tuned step splits k). About 45-55 s
    /// per chapter on an H200 (estimated from the committed H200 runs), most of it naive with
    /// op(A) = T and the host writing the inputs.
    /// --full adds 6000 and 8192 (naive with op(A) = T takes 2.2 s a call at 8192) and the tall
    /// and wide C (16384 x 256 x 4096, 256 x 16384 x 4096): about 3 minutes, 4 with --ladder.
    /// --quick: 1024 and 2048.
    static std::vector<std::array<int, 3>> shapes(const ChapterOptions& o) {
        using S = std::vector<std::array<int, 3>>;
        const S normal = {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}, {4097, 4097, 4097},
                          {4096, 4096, 256},   {1024, 1024, 16384}};
        S full = normal;
        for (std::array<int, 3> r : S{{6000, 6000, 6000}, {8192, 8192, 8192}, {16384, 256, 4096}, {256, 16384, 4096}})
            full.push_back(r);
        return pick_set<S>(o, {{1024, 1024, 1024}, {2048, 2048, 2048}}, normal, full);
    }
    static std::vector<Case> cases(const ChapterOptions& o) {
        std::vector<std::array<int, 3>> mnk;
        if (o.sizes.empty()) {
            mnk = shapes(o);
        } else {
            for (int n : o.sizes) mnk.push_back({n, n, n});
        }
        std::vector<Op> ops = {Op::N, Op::T};
        if (o.trans != "both") ops = {parse_op(o.trans, "--trans")};
        std::vector<Case> v;
        for (Op op : ops)
            for (auto [m, n, k] : mnk)
                v.push_back({std::string(1, op_char(op)) + "N",
                             std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k),
                             GemmShape{op, Op::N, m, n, k}, m == n && n == k ? "square" : "rectangle"});
        return v;
    }
    /// `--shapes`: op(A) N and T (or --trans) with op(B) = N on every class, op(B) = B^T on two
    /// squares; the label is "m x n x k", then " ld+p" (every leading dimension p above its rows)
    /// and " +o" (every base pointer o elements into its allocation) where they apply.
    static std::vector<Case> shape_cases(const ChapterOptions& o) {
        std::vector<Op> ops = {Op::N, Op::T};
        if (o.trans != "both") ops = {parse_op(o.trans, "--trans")};
        std::vector<Case> v;
        auto add = [&](const std::string& cls, Op op_a, Op op_b, int m, int n, int k, int pad = 0, int off = 0) {
            GemmShape s{op_a, op_b, m, n, k};
            if (pad > 0) {
                s.lda = s.rows_a() + pad;
                s.ldb = s.rows_b() + pad;
                s.ldc = m + pad;
            }
            s.offset = off;
            std::string label = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
            if (pad > 0) label += " ld+" + std::to_string(pad);
            if (off > 0) label += " +" + std::to_string(off);
            v.push_back({std::string(1, op_char(op_a)) + op_char(op_b), label, s, cls});
        };
        for (Op op : ops) {
            for (int n : {1000, 3000, 5000}) add("square", op, Op::N, n, n, n);
            for (int p : {1, 3, 64}) add("ld > rows", op, Op::N, 4000, 4000, 4000, p);
            for (int off : {1, 4}) add("offset", op, Op::N, 4000, 4000, 4000, 96, off);
            for (int n : {1, 2, 4, 8, 16, 33, 64}) add("small n", op, Op::N, 8192, n, 8192);
            for (int m : {1, 4, 16, 64}) add("small m", op, Op::N, m, 8192, 8192);
            for (int k : {1, 8, 64}) add("small k", op, Op::N, 8192, 8192, k);
            add("long k", op, Op::N, 64, 64, 1 << 20);
            add("long k", op, Op::N, 256, 256, 1 << 18);
            add("rectangle", op, Op::N, 20000, 300, 3000);
            add("rectangle", op, Op::N, 300, 20000, 3000);
            add("small n", op, Op::T, 8192, 8, 8192);  // op(B) = B^T: x read ldb apart
        }
        for (Op op : ops) {
            add("op(B) = B^T", op, Op::T, 3000, 3000, 3000);
            add("op(B) = B^T", op, Op::T, 4096, 4096, 4096);
        }
        return v;
    }

    static std::string title() { return "GEMM C = 1.5 op(A) op(B) + 0.5 C, m x n x k, tight leading dimensions"; }
    static const char* unit() { return "GFLOP/s"; }
    static std::string ceiling_name() { return "bound"; }
    static std::string peer_label() { return "cuBLAS"; }
    /// Compute-bound calls of up to seconds (naive TN at 8192): few repetitions suffice (the
    /// spread of long calls is small) and the checked call just before the timing is the warm-up.
    /// The L2 is flushed before every timed call, as for the memory-bound ops: each call starts
    /// with none of its operands in the L2, as a GEMM in an application whose operands were last
    /// touched by other work does. Without it, a C of 1000^2 (its A, B and C, 12 MB, fit in the
    /// L2) timed the peer 20% faster (54 against 67 us) and the tuned step 1-4% faster: calls back
    /// to back measure the cache, not the kernel (docs/notes/gemm.md, session 23).
    static void adjust_bench(BenchOptions& bo) {
        bo.warmup = 0;
        bo.min_reps = std::min(bo.min_reps, 3);
        bo.max_seconds = std::min(bo.max_seconds, 1.0);
    }

    template <class T> static Args<T> shape_args(const Case& c) {
        Args<T> a;
        a.op_a = c.s.op_a;
        a.op_b = c.s.op_b;
        a.m = c.s.m;
        a.n = c.s.n;
        a.k = c.s.k;
        a.lda = c.s.lda > 0 ? c.s.lda : std::max(1, a.rows_a());
        a.ldb = c.s.ldb > 0 ? c.s.ldb : std::max(1, a.rows_b());
        a.ldc = c.s.ldc > 0 ? c.s.ldc : std::max(1, a.m);
        a.alpha = T(1.5);
        a.beta = T(0.5);
        return a;
    }
    template <class T> static Problem<T> make_problem(const Case& c, std::uint64_t seed) {
        return make_gemm_problem<T>(c.s, seed);
    }
    template <class T> static MemoryNeed memory_need(const Case& c) { return gemm_memory_need(sizeof(T), c.s); }
    template <class T> static auto reference(const Problem<T>& p) { return p.reference(); }
    template <class T, class Ref>
    static CheckResult check(const Step<Args<T>>& s, const GemmLaunch& l, Problem<T>& p, const Ref& ref) {
        return check_gemm(s, l, p, ref);
    }
    template <class T> static BenchStats time(const Step<Args<T>>& s, const GemmLaunch& l, Problem<T>& p, BenchOptions bo) {
        return time_gemm(s, l, p, bo);
    }
    template <class T> static double rate(const Problem<T>& p, double ms) {
        return roofline::gflops(p.useful_flops(), ms);
    }
    /// The roofline bound of architecture §5: min(FMA peak, bandwidth x flops per useful byte), with the
    /// measured FMA microbenchmark (FP32) or, in double, the FP64 tensor cores' where the device has
    /// them (the rate cuBLAS's DGEMM and chapter 5's run at; the FMA lanes' elsewhere), each at the
    /// SM clock a GEMM's power leaves (chapter 0), and the measured read ceiling.
    template <class T> static double ceiling(const Case& c, const Ceilings& ceil) {
        const auto a = shape_args<T>(c);
        const double flops = roofline::gemm_flops(a.m, a.n, a.k);
        const double bytes = sizeof(T) * (1.0 * a.m * a.k + 1.0 * a.k * a.n + 2.0 * a.m * a.n);
        const double peak = sizeof(T) == 4 ? ceil.fp32_gemm_gflops() : ceil.fp64_gemm_gflops();
        return std::min(peak, ceil.read_gbs * flops / bytes);
    }

    static std::vector<std::string> model_columns() {
        return {"peak GFLOP/s", "L2 loads/FMA", "operand loads/FMA", "FMA share", "blocks/SM", "waves"};
    }

    /// The model's view of each step: its tiles, read off the step's launch (the kernels' headers
    /// say what each field means for that step).
    template <class T> static model::GemmDesign design(Stage stage, const GemmLaunch& l) {
        return gemm_model_design(stage, l, static_cast<int>(sizeof(T)));
    }
    template <class T>
    static Prediction predict(const Case&, const Step<Args<T>>& s, const Args<T>& a, const GemmLaunch& l,
                              const DeviceProfile& dev) {
        GemvArgs<T> g;
        if (l.gemv == 2 && ladder_gemm_as_gemv<T>(a, &g)) {  // the call runs as chapter 5's GEMV: its model,
            // with the block its default launch derives (as the GEMV op's own rows predict it)
            const GemvLaunch gl = step<GemvArgs<T>>(chapter_of(Stage::kTuned)).default_launch(g);
            const auto p = model::predict_gemv(Stage::kTuned, g.op == Op::T, g.m, g.n, sizeof(T), gemv_model_launch_of(gl),
                                               dev, a.beta != T(0));
            return {roofline::gflops(roofline::gemm_flops(a.m, a.n, a.k), p.predicted_ms), p.predicted_ms,
                    "as GEMV: " + p.note,
                    {"-", "-", "-", "-", std::to_string(p.occ.blocks_per_sm), "-"}};
        }
        const Stage stage = s.ladder_stage();
        // The FP64 tensor cores (tuned/dgemm_tensor_core.cu): their tile, their rate. A preset's
        // default launch names them too where the derivation takes them (the default rule reads the
        // preset's fp64_mma_lanes_per_sm without a GPU).
        if (l.math == 2) {
            const auto p = predict_gemm_tensor_core(a.m, a.n, a.k, dev, l, a.op_a == Op::T);
            return {p.gflops, p.ms, "FP64 tensor cores: " + p.limit,
                    {fmt(p.peak_gflops), fmt(p.global_loads_per_fma, 4), fmt(p.operand_loads_per_fma, 3),
                     fmt_pct(p.issue_fraction), std::to_string(p.occ.blocks_per_sm), fmt(p.waves, 2)}};
        }
        model::GemmDesign d = design<T>(stage, l);
        // naive and pattern read op(A) = A^T straight from global memory, lda apart across a warp.
        d.strided_a = a.op_a == Op::T && (stage == Stage::kNaive || stage == Stage::kPattern);
        // shared with op(A) = A^T: the unpadded tile read down its column (model/gemm.hpp).
        if (a.op_a == Op::T && stage == Stage::kShared) d.a_wavefronts_per_k = 32.0 * sizeof(T) / 16.0;
        // chapter 5's kernels: C moves at their measured epilogue bandwidth where that is less,
        // the main loop at its measured rate for the op pair it reads, the packs' copies before it
        if (stage == Stage::kTuned)
            gemm_tuned_call(d, dev, a.m, a.n, a.k, sizeof(T), l, a.op_a == Op::T, a.op_b == Op::T);
        const auto p = model::predict_gemm(d, a.m, a.n, a.k, sizeof(T), dev);
        return {p.gflops, p.ms, p.limit,
                {fmt(p.peak_gflops), fmt(p.global_loads_per_fma, 4), fmt(p.operand_loads_per_fma, 3),
                 fmt_pct(p.issue_fraction), std::to_string(p.occ.blocks_per_sm), fmt(p.waves, 2)}};
    }

    /// Chapter 5's named float variants (the 3xTF32 SGEMM: FP32 accuracy on the TF32 tensor
    /// cores, never the default), checked against the float64 reference under the FP32 bound and
    /// timed against the peer like a step. Their rate can pass the FMA bound: the % column keeps
    /// that bound, so a row above 100% says by how much the tensor cores move it.
    template <class T>
    static void extra_rows(const ChapterRun& run, const Case& c, Problem<T>& p, double peer_ms, OpTable& t,
                           Progress& prog) {
        if constexpr (sizeof(T) == 4) {
            if (run.chapter != 5) return;
            const auto ref = p.reference();
            for (const auto& s : ladder_gemm_variants_float()) {
                prog.step("gemm float " + c.variant + " " + c.shape + " " + s.stage);
                const GemmLaunch l = s.default_launch(p.args());
                CheckResult chk;
                double ms = 0;
                try {  // a device without the variant's instructions (TF32 before sm_80) says so in the row
                    chk = check_gemm(s, l, p, ref);
                    ms = time_gemm(s, l, p, run.bench).median_ms;
                } catch (const std::runtime_error& e) {
                    t.rows.push_back(skipped_row("float", c.variant, c.shape, s.stage, e.what()));
                    continue;
                }
                const double r = roofline::gflops(p.useful_flops(), ms);
                t.rows.push_back({"float", c.variant, c.shape, s.stage,
                                  {fmt(ms, 4), fmt(r), fmt_pct(r / ceiling<T>(c, *run.ceil)), "-", "-",
                                   fmt_ratio(peer_ms / ms), "-", "-", fmt_check(chk.rel_error, chk.ok()),
                                   "named variant; " + l.str()}});
                if (!chk.ok()) t.failed = true;
                t.speedups["float " + c.variant + " " + s.stage + " vs " + peer_label()].push_back(peer_ms / ms);
            }
        } else {
            (void)run, (void)c, (void)p, (void)peer_ms, (void)t, (void)prog;
        }
    }
};

}  // namespace

std::unique_ptr<OpChapter> make_op_chapter_gemm() { return std::make_unique<LadderOp<GemmOp>>(); }

}  // namespace wb
