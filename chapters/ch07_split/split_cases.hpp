/// \file split_cases.hpp
/// \brief Chapter 7's cases: for one op, size, precision (and the convolution's FS), the work each
///        side does and the model's prediction of the three ways to run it (CPU, GPU with its
///        transfers, both at once); split_measure.hpp runs them for real.
#pragma once

#include "device_profile.hpp"
#include "model/cpu.hpp"
#include "split.hpp"
#include "split_calibrate.hpp"
#include "split_warm.hpp"
#include "transfer_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace wb::ch07 {

/// The ops of this chapter, in table order.
const std::vector<std::string>& split_ops();
/// Throws std::invalid_argument: "<fn>: op (<op>) must be one of gemv, gemm, symv, conv2d, cg".
[[noreturn]] void unknown_op(const char* fn, const std::string& op);

/// Which set of sizes a run covers.
enum class SizeSet { quick, normal, full };
/// An op's sizes (n: GEMV/SYMV/GEMM/CG n x n, the convolution an n x n image), spanning the
/// crossover on today's machines. full: the issue's ranges (GEMV, SYMV 64 ... 16384; GEMM
/// 16 ... 4096; convolution 64 ... 8192; CG 256 ... 16384, powers of two); normal: every other of
/// them; quick: two or three. Throws std::invalid_argument on an unknown op.
std::vector<int> default_sizes(const std::string& op, SizeSet set);
/// The convolution's filter sizes by default (FS 3 and 9).
std::vector<int> default_filter_sizes();

/// One row of the table.
struct Case {
    std::string op;    ///< gemv, gemm, symv, conv2d, cg
    int n = 0;
    std::size_t elem = 4;  ///< 4 float, 8 double
    int fs = 0;        ///< the convolution's FS (0 for the other ops)
    /// The rows' matrices (and images) have leading dimension n + ld_pad elements (0: n, the
    /// table's layout; --ld-pad). The model's bytes are the n x n it reads either way.
    int ld_pad = 0;
};

/// The links the GPU side uses (host -> device, device -> host) and what they are.
struct Links {
    TransferModel h2d, d2h;
    std::string source;  ///< "fitted ..." or the assumption's description
};
/// The link without a GPU: one segment per direction, Tx the pinned rates chapter 0 measured on
/// the H200 (55.5 GB/s up, 55.4 GB/s down) and a set-up time c1 of 10 us (the order of one
/// cudaMemcpyAsync's latency): an assumption, replaced by the fit of the measured copies on a GPU.
Links h200_pinned_links();
/// The link fitted to this GPU's pinned copies (chapter 0's measurement at the quick scale, both
/// directions). Needs a CUDA device.
Links measured_pinned_links();
/// The copies of CG's all-GPU path at n (ms, the links' model): A, b and x0 in, x out.
double cg_path_copies_ms(const Links& links, int n, std::size_t elem);

/// One class's all-GPU path (copies in, the tuned kernel, copies out, from and to pinned host
/// memory, through the hybrid's entry point with every row on the GPU), measured at the start as
/// the table's rows are timed (split_paths.hpp). What the model of the copies and the kernel
/// (each timed on its own, by CUDA events) leaves out of a call from the host: the fixed costs of
/// several API calls in sequence and of the wait for the last; how well the chunks' copies and
/// kernels overlap; and what a real hybrid costs beyond its two sides.
struct GpuPath {
    int tiny_n = 0;            ///< where t0 and t0_chunked were measured
    int mid_n = 0;             ///< where pipeline and residual were measured
    double t0_ms = 0;          ///< the all-GPU call in one chunk at tiny_n (0: not measured)
    double t0_chunked_ms = 0;  ///< the same in the hybrid's chunks: its GPU side's fixed cost
    double pipeline = 1;       ///< the chunked call's time beyond t0_chunked (and the whole operands) over the
                               ///< model's serial proportional time, at mid_n: < 1 where chunks overlap
    double residual_ms = 0;    ///< a real hybrid at mid_n beyond the model of its two sides (>= 0)
    double residual_share = 0; ///< the GPU share it was measured at
    /// The same at small_n, about a third of mid_n, where a hybrid's fixed costs weigh more (0: not
    /// measured, a run from before it: residual_ms at every size). residual_at interpolates.
    int small_n = 0;
    double small_residual_ms = 0;
    /// What the calling thread spends issuing one chunk of the GPU side before the CPU's share
    /// begins (the hybrid's API calls; the share's whole operands' copies counted in), from the
    /// calibration's hybrids at mid_n and small_n (0: not measured, a run from before the calling
    /// thread issued). issue_at interpolates; sides_of delays the CPU side by K chunks' worth.
    double issue_per_chunk_ms = 0;
    double small_issue_per_chunk_ms = 0;
    /// The real hybrid at mid_n (residual_share of it on the GPU) timed at every depth K of
    /// kDepths: its measured time over the model's at K (no residual), over the same ratio at the
    /// calibration's depth K0 = Machines::chunks (1 there), by K ascending. What a depth costs a
    /// hybrid call beyond the model's chunks: on the H200 machine the GEMM's hybrid ran slower at
    /// 16 chunks than at 4 while the model, from the GPU side alone, had it faster
    /// (docs/notes/split.md, session 47). Empty: not measured (a run from before it, --chunks, or
    /// without --measured-depths); depth_factor_at interpolates, and sides_of scales a hybrid's
    /// sides by it.
    std::vector<std::pair<int, double>> depth_factors;
    /// How far the real hybrid at mid_n landed from the model of its two sides,
    /// |measured / model - 1|, at least twice the relative error of that timing (negative: not
    /// measured). The median over the classes is the run's hybrid margin (Machines).
    double miss = -1;
};

/// A path's residual at size n: small_residual_ms up to small_n, residual_ms from mid_n on, and
/// between them linear in log n; residual_ms everywhere where small_n was not measured.
double residual_at(const GpuPath& p, int n);
/// A path's issue per chunk at size n, interpolated as residual_at.
double issue_at(const GpuPath& p, int n);
/// A path's depth factor at `chunks` (GpuPath::depth_factors): linear in log2(chunks) between the
/// depths measured, the nearest one's outside them; 1 where none was measured.
double depth_factor_at(const GpuPath& p, int chunks);

/// The line the chapter prints where each product of CG's split is the SYMV path's t0 less its
/// copy of A (Machines::cg_product_without_a); machines_from_log sets the flag where it finds it.
inline constexpr const char* kCgProductLine =
    "cg split: each product is the SYMV path's fixed cost less its copy of A (the split copies A once)";

/// What to predict with.
struct Machines {
    model::CpuMachine cpu;   ///< with its peer classes' rates where measured
    DeviceProfile gpu;
    GpuRates gpu_rates;      ///< the tuned kernels' rates where measured
    Links links;
    double hybrid_overhead_ms = 0;  ///< an empty hybrid call (the GPU side where no path was measured)
    /// Threads the hybrid convolution's CPU side runs on beside the GPU (one core left to the thread
    /// that waits for the GPU: cpu::ScopedOmpThreads); its share's time is the peer's model times cpu.threads /
    /// this. 0: all of them (a run from before this field, replayed as it was computed).
    int hybrid_conv_threads = 0;
    /// A hybrid CPU share of several calls (SYMV's: the trailing block's SYMV and the GEMV of the
    /// panel beside it) priced at the share's footprint, the working set of all its calls, which
    /// is what the caches hold between repeated hybrid calls; false: each call at its own working
    /// set (a run from before this field, replayed as it was computed).
    bool share_footprint = true;
    /// The hybrid SYMV's CPU share is one SYMV of its diagonal block, the GPU adding the block
    /// beside it (hybrid_symv.hpp); false: that SYMV and a GEMV of the block beside it, as the
    /// hybrid ran before (a run from before this field, replayed as it was computed).
    bool symv_share_one_call = true;
    std::map<std::string, GpuPath> paths;  ///< by model::peer_key of the op ("conv2d FS9 double")
    double host_shared_gbs = 0;  ///< host memory with the CPU reading and copies moving at once (0: no bound)
    /// The calibration's pipeline depth K0 (the paths' chunked anchors are measured at it), and
    /// every hybrid's depth where derived_chunks is false.
    int chunks = 4;
    /// The hybrid's depth derived per call (predict_case: the fastest of kDepths the model
    /// predicts with a share inside (0, 1), where the class's path was measured); false: every
    /// hybrid in `chunks` chunks (--chunks, or a run from before this field, replayed as it was
    /// computed).
    bool derived_chunks = true;
    /// Runs of the derivation's first version, replayed as they were computed: every depth ranked,
    /// those whose fixed cost left the GPU no share among them, and classes without a path too.
    bool depth_any_share = false;
    int cg_iterations = 100; ///< CG: iterations per solve (the tables time whole solves; at n below it, n: cg_solve_iterations)
    /// The hybrid's margin: the model chooses it only where it predicts a gain over the better
    /// single side of at least this. The median of the classes' GpuPath::miss, where any was
    /// measured (hybrid_margin_of); negative: split::kMinHybridGain.
    double hybrid_margin = -1;
    /// The hybrid is also chosen only where it saves at least its class's GpuPath::t0_chunked_ms
    /// (split::HybridCosts::min_saving_ms); false: a run from before this rule, replayed as it
    /// was computed.
    bool hybrid_floor = true;
    /// The hybrid SYMV's GPU side priced as what it copies: g whole stored columns and each
    /// chunk's diagonal block, f (1 - f / 2 + f / 2K) of n^2, its anchor (the chunked all-GPU
    /// call) 1/2 + 1/2K0 of it; false: a run from before, its side priced linear in f (as a band
    /// of rows, the chunks' blocks moved from K0 to K at the share's f), replayed as computed.
    bool symv_gpu_columns = true;
    /// The CPU's share of a hybrid begins once the calling thread has issued the GPU's K chunks
    /// (GpuPath::issue_per_chunk_ms, measured at the start): its side priced K issues later. Off by
    /// default (--price-issue): one A/B (docs/notes/split.md, session 38) did not pass its rule.
    bool price_issue = false;
    /// What the calibration and the rows time as the hybrid GEMV, GEMM and convolution (not a
    /// model input): the balanced call (kernels/cpu/hybrid_balance.hpp) where its CPU share gets more
    /// than one piece (balanced_pieces), planned at the model's share; false: the fixed share
    /// (--fixed-share, and every run before session 42).
    bool balanced = true;
    /// The margin of the rows the balanced call runs (`balanced`, a share inside (0, n) whose CPU
    /// share gets more than one piece: balanced_pieces): such a call moves its split to the sides'
    /// measured rates while it runs, so the hybrid model's miss, which the run's margin guards
    /// against, is not its risk; the floor on the saving (hybrid_floor) still prices its fixed
    /// costs. Negative: the run's margin for every hybrid (every run before session 44, replayed
    /// as computed).
    double balanced_margin = -1;
    /// Whether the SYMV's hybrid is one of the balanced calls (`balanced` still decides whether a
    /// run balances at all): its stored columns claimed from both ends in units of equal work
    /// (kernels/cpu/hybrid_symv.hpp; --balanced-symv). Off: its CPU pieces run on OpenMP's threads,
    /// and beside OpenBLAS's (the CPU peer timed in the same rounds) the two pools wait for each
    /// other's spinning threads; its A/B failed its rule (docs/notes/split.md, session 45).
    bool symv_balanced = false;
    /// Whether each class's anchors (GpuPath::t0_ms, t0_chunked_ms) are timed again just before
    /// its group's rows are predicted and timed (split_paths.hpp, reanchor_path); false: the
    /// calibration's (every run before session 45; the replay reads each group's line).
    bool reanchor = true;
    /// Whether each group's CPU peer classes (split_cpu_again.hpp: cpu_classes_of) are timed again
    /// just before its rows are predicted and timed (--cpu-again; the replay reads each group's
    /// lines); false: the start's calibration for every row. Off by its A/B (docs/notes/split.md,
    /// session 46): over two runs 14 more rows of 200 had the CPU model within 15%, but one more
    /// hybrid was chosen and slower and a run took 250 s, two items of its rule missed.
    bool cpu_again = false;
    /// Copies of data the host's threads just read, by size (split_warm.hpp; measured with a GPU).
    WarmCopies warm;
    /// Whether the GEMM hybrid's GPU side pays A's copy at warm's rate where a CPU share runs (that
    /// share reads A while A is copied); false: the link's rate (every run before session 46; the
    /// replay reads the run's line; the chapter sets it unless --cold-a).
    bool warm_gemm_a = false;
    /// Whether each product of CG's split (White §5.2) is the SYMV path's fixed cost less that
    /// path's copy of A at its tiny size (the split copies A once, not per product); false: the
    /// path's whole t0 (every run before session 51, 15 - 50% above its splits; the replay reads
    /// the run's line). The chapter sets it.
    bool cg_product_without_a = false;
    /// Whether the calibration times each class's mid-size hybrid at every depth of kDepths
    /// (GpuPath::depth_factors; only where the depth is derived). The model uses the factors a
    /// path holds (a replay: those its line printed); the chapter sets it with --measured-depths.
    /// Off by its A/B (docs/notes/split.md, session 47): over two pairs of runs the hybrids whose
    /// depth it moved ran 7% slower at the median, and fewer gains held (41 of 51 against 46).
    bool measured_depths = false;
};

/// Whether the op's hybrid has a balanced call (kernels/cpu/hybrid_balance.hpp): GEMV, GEMM, SYMV
/// and the convolution; CG keeps its fixed split.
bool has_balanced_call(const std::string& op);

/// The CPU's pieces of a balanced hybrid of case c with g of its n outputs on the GPU, where the
/// model predicts its hybrid at hybrid_ms (both sides end together, so the CPU's share takes about
/// that): hybrid::balance_pieces, a GEMM piece at least hybrid::gemm_min_piece_cols at the host's
/// rates (each piece packs op(A) again), a GEMV piece at least hybrid::kGemvMinPieceCols. 0 where
/// the balanced call does not apply: CG, or g not inside (0, n). Whether a run balances
/// at all (Machines::balanced, --balance-ab's arm) is the caller's to ask.
int balanced_pieces(const Case& c, int g, double hybrid_ms, const Machines& m);

/// The median of the measured GpuPath::miss of m.paths (at most 0.999: predict's min_gain must be
/// below 1); -1 where none was measured. One class's miss is one timing at one size, and a
/// hybrid that landed on its model there can miss it at another: the median over the classes is
/// the run's measure of how far a hybrid lands from its model, robust to one disturbed timing.
double hybrid_margin_of(const Machines& m);
/// The min_gain a prediction uses: m.hybrid_margin where measured, else split::kMinHybridGain.
double min_gain_of(const Machines& m);

/// One case's prediction.
struct CasePrediction {
    double cpu_model_ms = 0;
    split::Prediction split;  ///< cpu_ms, gpu_ms (with transfers), hybrid_ms, share, choices
    std::string hybrid_kind;  ///< "rows" / "columns" (the output split) or "vectors on CPU" (CG, White §5.2)
    int gpu_part = 0;         ///< rows (GEMM: columns) the hybrid gives the GPU: f* n rounded
    int chunks = 0;           ///< the pipeline's depth the hybrid runs in (0: CG, no chunks)
    double gpu_side_ms = 0;   ///< the hybrid's GPU side at its share (not CG)
    /// Whether a hybrid runs: the GPU's share inside (0, 1) (CG's split has no share: false).
    bool has_hybrid_share() const { return split.splits(); }
};

/// The depths a derived pipeline takes: powers of two, up to 16. The GPU side's time at depth K is
/// about a + b K + c / K (fixed, per chunk, overlapped stages), flat around its minimum at
/// K* = sqrt(c / b): a depth within a factor of sqrt(2) of K* costs at most 6% more of b K + c / K
/// than K* itself, so powers of two lose at most that. The chapter stops at 16: at its largest
/// calls the model gives 32 chunks under 1% of the hybrid's time (replayed on the H200 run in
/// tests/data/h200-ch07-6a162cc).
inline constexpr std::array<int, 5> kDepths{1, 2, 4, 8, 16};
/// kDepths as text: "1, 2, 4, 8, 16".
std::string depths_list();

/// The model's three times for one case. Where the case's GpuPath was measured, the all-GPU time
/// is its t0 plus the model's growth from tiny_n to n, the hybrid's GPU side t0_chunked (and the
/// whole operands' growth) plus the share of the serial proportional time times `pipeline` (SYMV:
/// that time scaled by what its share copies, symv_copied, over what the anchor copied), and the
/// hybrid pays its residual at n (residual_at); where host_shared_gbs is measured, the hybrid is
/// bounded by the host memory both sides read (split::HybridCosts).
/// Where m.derived_chunks, the hybrid runs at the depth of kDepths whose prediction is fastest
/// (predict_case_at each; where another bound sets the hybrid's time and depths tie, the one whose
/// GPU side ends first), else at m.chunks. The choice takes the run's margin (min_gain_of), or
/// m.balanced_margin where that is set and the row runs the balanced call (balanced_pieces > 1).
CasePrediction predict_case(const Case& c, const Machines& m);
/// The iterations of one CG row's solve: min(n, cg_iterations). CG solves an n x n system in at
/// most n iterations in exact arithmetic; with tol 0 a small system's solve goes on only to grind
/// its rounding, and stops wherever its residual comes out exactly zero (n = 1: after one). Every
/// column of the row (the CPU peer, the all-GPU solve, the split) and the model count these.
inline int cg_solve_iterations(int n, int cg_iterations) { return std::min(cg_iterations, std::max(1, n)); }
/// The same at the pipeline depth `chunks` (>= 1; throws std::invalid_argument else): the path's
/// anchors, measured at m.chunks, moved to that depth (its fixed cost by the measured cost of a
/// chunk, its proportional time by the model's pipelined time, SYMV's copies by the triangle of
/// each chunk's diagonal block), and the floor at that depth's fixed cost.
CasePrediction predict_case_at(const Case& c, const Machines& m, int chunks);

/// The parts of a case's GPU side the path measurement anchors (ms, the model's, for the whole
/// call): the serial proportional time of its split copies and kernel (one chunk), the same
/// pipelined at the calibration's depth K0 = m.chunks (what a depth's ratio is taken against), its
/// whole operands' copies (GEMV's x, GEMM's A, the filter), and the all-GPU call. Not for CG.
struct GpuSideParts {
    double serial_ms = 0, pipelined_ms = 0, whole_ms = 0, all_gpu_ms = 0;
};
GpuSideParts gpu_side_parts(const Case& c, const Machines& m);
/// The model's hybrid time at share f in (0, 1) without the residual: what the residual is
/// measured against. Not for CG.
double hybrid_model_ms(const Case& c, const Machines& m, double f);
/// The same at the pipeline depth `chunks` (>= 1), with the path's depth factor there where it
/// holds one: what a depth's factor is measured against (the calibration measures them before
/// the path holds any).
double hybrid_model_ms_at(const Case& c, const Machines& m, double f, int chunks);

}  // namespace wb::ch07
