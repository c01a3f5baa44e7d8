/// \file conv2d_op.cpp
/// \brief The 2-D convolution as the chapter binaries show it (the traits of op_runner.hpp):
///        a 4096^2 image with FS in {3, 31} (--full: 8192^2 with {3, 5, 7, 15, 31, 63} and a 2048^2
///        image with FS = 513; --quick: 2048^2 with {3}; or --sizes n with FS in {3, 7, 31};
///        WB_CONV2D_FS=3,5,... overrides the filter sizes),
///        GFLOP/s against the roofline bound min(FMA peak, copy bandwidth x flops per useful byte),
///        the model of common/model/conv2d, the peer (NPP where the build has it) and the other
///        peers (cuDNN, the cuFFT convolution) as extra rows, and the model's FFT crossover.
#include "conv2d_problem.hpp"
#include "memory_fit.hpp"
#include "model/conv2d.hpp"
#include "op_runner.hpp"
#include "roofline.hpp"
#include "vector_offset.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace wb {
namespace {

/// Filter sizes from WB_CONV2D_FS ("3,7,31"), or `def`.
std::vector<int> filter_sizes(const std::vector<int>& def) {
    const char* env = std::getenv("WB_CONV2D_FS");
    if (!env || !*env) return def;
    std::vector<int> v;
    std::stringstream ss(env);
    std::string item;
    while (std::getline(ss, item, ',')) {
        const int fs = std::atoi(item.c_str());
        if (fs < 1 || fs % 2 == 0 || fs > kConv2dMaxFilter)
            throw std::invalid_argument("WB_CONV2D_FS: filter size (" + item + ") must be odd, in [1, " +
                                        std::to_string(kConv2dMaxFilter) + "]");
        v.push_back(fs);
    }
    return v;
}

struct Conv2dOp {
    static constexpr const char* kName = "conv2d";
    static constexpr bool memory_bound = true;  // at FS = 3 and 5; the L2 is flushed for every size
    /// The peers after the first (cuDNN, cuFFT where the build has them), timed as extra rows.
    static int extra_timed_rows(const ChapterRun&) { return static_cast<int>(conv2d_peers<float>().size()) - 1; }
    template <class T> using Args = Conv2dArgs<T>;
    template <class T> using Problem = Conv2dProblem<T>;

    struct Case {
        std::string variant, shape;
        Conv2dShape s;
    };

    static std::vector<Case> cases(const ChapterOptions& o) {
        std::vector<std::pair<int, int>> nf;  // image side, filter size
        if (o.sizes.empty()) {
            // Default: a 4096^2 image (64 MB in float: DRAM-bound, not L2-resident) with FS = 3
            // (memory-bound: the staging steps' point) and 31 (compute-bound; at 31 the tuned step
            // works by filter rows and cuFFT's convolution catches up with it). Each row costs
            // seconds of host work besides its kernels (inputs, the checked call, the peers'
            // set-up): an H200 run of the ladder at 8192^2 with FS 3, 7, 31 measured 14 rows in
            // 100 s, so 8192^2 moved to --full. --full: 8192^2 with FS = 3, 5, 7, 15, 31, 63 and a
            // 2048^2 image with FS = 513 (where cuFFT wins by 1000x; several minutes).
            // --quick: a 2048^2 image with FS = 3.
            const int n = o.quick ? 2048 : o.full ? 8192 : 4096;
            for (int fs : filter_sizes(pick_set<std::vector<int>>(o, {3}, {3, 31}, {3, 5, 7, 15, 31, 63})))
                nf.push_back({n, fs});
            if (o.full && !std::getenv("WB_CONV2D_FS")) nf.push_back({2048, 513});
        } else {
            for (int n : o.sizes)
                for (int fs : filter_sizes({3, 7, 31})) nf.push_back({n, fs});
        }
        std::vector<Case> v;
        for (auto [n, fs] : nf) {
            Conv2dShape s;
            s.rows = s.cols = n;
            s.fs = fs;
            v.push_back({"FS=" + std::to_string(fs), std::to_string(n) + "x" + std::to_string(n), s});
        }
        return v;
    }
    static std::string title() {
        return "2-D convolution (cross-correlation, zero border, same size), n x n image, FS x FS filter";
    }
    static const char* unit() { return "GFLOP/s"; }
    static std::string ceiling_name() { return "bound"; }
    static std::string peer_label() { return peer_step<Conv2dArgs<float>>().stage; }
    /// Calls of up to a few seconds (naive at FS = 513, double): few repetitions; the L2 stays
    /// flushed before every call (at FS = 3 and 5 the op is memory-bound).
    static void adjust_bench(BenchOptions& bo) {
        bo.warmup = 1;
        bo.min_reps = std::min(bo.min_reps, 3);
        bo.max_seconds = std::min(bo.max_seconds, 1.0);
    }

    template <class T> static Args<T> shape_args(const Case& c) {
        Args<T> a;
        a.rows = c.s.rows;
        a.cols = c.s.cols;
        a.fs = c.s.fs;
        a.in_pitch = a.out_pitch = std::max(1, c.s.cols);
        return a;
    }
    template <class T> static Problem<T> make_problem(const Case& c, std::uint64_t seed) {
        return make_conv2d_problem<T>(c.s, seed);
    }
    template <class T> static MemoryNeed memory_need(const Case& c) { return conv2d_memory_need(sizeof(T), c.s); }
    template <class T> static std::vector<double> reference(const Problem<T>& p) { return p.reference(); }
    template <class T>
    static CheckResult check(const Step<Args<T>>& s, const Conv2dLaunch& l, Problem<T>& p, const std::vector<double>& ref) {
        return check_conv2d(s, l, p, ref);
    }
    template <class T>
    static BenchStats time(const Step<Args<T>>& s, const Conv2dLaunch& l, Problem<T>& p, BenchOptions bo) {
        return time_conv2d(s, l, p, bo);
    }
    template <class T> static double rate(const Problem<T>& p, double ms) {
        return roofline::gflops(p.useful_flops(), ms);
    }
    /// The roofline bound of architecture §5 with the copy ceiling (the op reads and writes the
    /// image once each: the issue's "bytes 8 rows cols" at FS = 3) and the measured FMA rate.
    template <class T> static double ceiling(const Case& c, const Ceilings& ceil) {
        const double peak = sizeof(T) == 4 ? ceil.fp32_fma_gflops : ceil.fp64_fma_gflops;
        return model::conv2d_roofline_gflops(c.s.rows, c.s.cols, c.s.fs, sizeof(T), peak, ceil.copy_gbs);
    }

    static std::vector<std::string> model_columns() {
        return {"bound GFLOP/s", "halo", "smem wf/FMA", "FMA share", "blocks/SM", "waves"};
    }
    /// `vector_rows`: the image's rows start on 16-byte vectors (the staging copies whole ones).
    template <class T>
    static model::Conv2dDesign design(Stage stage, int fs, const Conv2dLaunch& l, bool vector_rows) {
        const int bx = std::max(1, l.block_x), by = std::max(1, l.block_y);
        const int tx = std::max(1, l.thread_x), ty = std::max(1, l.thread_y);
        const int tile_x = l.tile_x > 0 ? l.tile_x : bx * tx, tile_y = l.tile_y > 0 ? l.tile_y : by * ty;
        return model::conv2d_stage_design(stage, fs, sizeof(T), tile_x, tile_y, tx, ty, bx * by, vector_rows,
                                          l.blocked != 0);
    }
    template <class T>
    static Prediction predict(const Case&, const Step<Args<T>>& s, const Args<T>& a, const Conv2dLaunch& l,
                              const DeviceProfile& dev) {
        const bool vector_rows = detail::vector_offset(a.in, a.in_pitch) == 0;
        const auto p = model::predict_conv2d(design<T>(s.ladder_stage(), a.fs, l, vector_rows), a.rows, a.cols, a.fs,
                                             sizeof(T), dev);
        return {p.gflops, p.ms, p.limit,
                {fmt(p.roofline_gflops), fmt(p.halo_factor, 3), fmt(p.wavefronts_per_fma, 3), fmt_pct(p.issue_fraction),
                 std::to_string(p.occ.blocks_per_sm), fmt(p.waves, 2)}};
    }

    /// The other peers (cuDNN, the cuFFT convolution), checked and timed like the peer; the FFT row
    /// carries the FFT model's prediction, and the table's notes the predicted crossover.
    template <class T>
    static void extra_rows(const ChapterRun& run, const Case& c, Problem<T>& p, double peer_ms, OpTable& t,
                           Progress& prog) {
        const std::string prec = sizeof(T) == 4 ? "float" : "double";
        const auto peers = conv2d_peers<T>();
        const auto ref = p.reference();
        BenchOptions bo = run.bench;
        adjust_bench(bo);
        for (std::size_t i = 1; i < peers.size(); ++i) {
            const auto& s = peers[i];
            prog.step("conv2d " + prec + " " + c.variant + " " + c.shape + " " + s.stage);
            // Each library's workspaces, kept beside the problem (conv2d_memory_need counts the
            // first peer's): cuFFT's real array, two spectra and two plans' work areas (about 5
            // padded images), cuDNN's (counted as 2). A peer that does not fit says so in its row.
            const double padded = sizeof(T) * (c.s.rows + static_cast<double>(c.s.fs)) * (c.s.cols + c.s.fs);
            const double need = (s.stage == "cufft" ? 5 : 2) * padded;
            if (const std::string why = device_shortfall_now(need); !why.empty()) {
                t.rows.push_back(skipped_row(prec, c.variant, c.shape, s.stage, why));
                continue;
            }
            const auto l = s.default_launch(p.args());
            const auto chk = check_conv2d(s, l, p, ref);
            const double ms = time_conv2d(s, l, p, bo).median_ms, rate = roofline::gflops(p.useful_flops(), ms);
            std::string model = "-", err = "-";
            if (s.stage == "cufft") {
                const double mms = model::predict_fft_conv2d_ms(c.s.rows, c.s.cols, c.s.fs, sizeof(T), run.dev);
                model = fmt(roofline::gflops(p.useful_flops(), mms));
                err = fmt_model_error(roofline::gflops(p.useful_flops(), mms), rate);
            }
            const double ceiling = Conv2dOp::ceiling<T>(c, *run.ceil);
            t.rows.push_back({prec, c.variant, c.shape, s.stage,
                              {fmt(ms, 4), fmt(rate), fmt_pct(rate / ceiling), "-", "-", fmt_ratio(peer_ms / ms), model,
                               err, fmt_check(chk.rel_error, chk.ok()), "peer"}});
            if (!chk.ok()) t.failed = true;
            t.speedups[prec + " " + s.stage + " vs " + peer_label()].push_back(peer_ms / ms);
        }
        const int cross = model::fft_crossover_fs(c.s.rows, c.s.cols, sizeof(T), run.dev);
        const std::string note = "model: the FFT convolution overtakes the tuned step at FS >= " +
                                 (cross > 0 ? std::to_string(cross) : std::string("(never)")) + " on " + c.shape +
                                 " (" + prec + ")";
        if (std::find(t.notes.begin(), t.notes.end(), note) == t.notes.end()) t.notes.push_back(note);
    }
};

}  // namespace

std::unique_ptr<OpChapter> make_op_chapter_conv2d() { return std::make_unique<LadderOp<Conv2dOp>>(); }

}  // namespace wb
