/// \file split_cases.hpp
/// \brief Chapter 7's cases: for one op, size, precision (and the convolution's FS), the work each
///        side does, the model's prediction of the three ways to run it (CPU, GPU with its
///        transfers, both at once), and the three ways run for real on the same host data.
#pragma once

#include "device_profile.hpp"
#include "model/cpu.hpp"
#include "split.hpp"
#include "split_calibrate.hpp"
#include "transfer_model.hpp"

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

/// Which set of sizes a run covers.
enum class SizeSet { quick, normal, full };
/// An op's sizes (n: GEMV/SYMV/GEMM/CG n x n, the convolution an n x n image), spanning the
/// crossover on today's machines. full: the ranges (GEMV, SYMV 64 ... 16384; GEMM
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
    /// How far the real hybrid at mid_n landed from the model of its two sides,
    /// |measured / model - 1|, at least twice the relative error of that timing (negative: not
    /// measured). The median over the classes is the run's hybrid margin (Machines).
    double miss = -1;
};

/// A path's residual at size n: small_residual_ms up to small_n, residual_ms from mid_n on, and
/// between them linear in log n; residual_ms everywhere where small_n was not measured.
double residual_at(const GpuPath& p, int n);

/// What to predict with.
struct Machines {
    model::CpuMachine cpu;   ///< with its peer classes' rates where measured
    DeviceProfile gpu;
    GpuRates gpu_rates;      ///< the tuned kernels' rates where measured
    Links links;
    double hybrid_overhead_ms = 0;  ///< an empty hybrid call (the GPU side where no path was measured)
    /// Threads the hybrid convolution's CPU side runs on beside the GPU (one core left to the GPU
    /// worker: cpu::ScopedOmpThreads); its share's time is the peer's model times cpu.threads /
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
    int cg_iterations = 100; ///< CG: iterations per solve (the tables time whole solves)
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
};

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
    bool has_hybrid_share() const { return split.gpu_share > 0 && split.gpu_share < 1; }
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
/// GPU side ends first), else at m.chunks.
CasePrediction predict_case(const Case& c, const Machines& m);
/// The same at the pipeline depth `chunks` (>= 1; throws std::invalid_argument else): the path's
/// anchors, measured at m.chunks, moved to that depth (its fixed cost by the measured cost of a
/// chunk, its proportional time by the model's pipelined time, SYMV's copies by the triangle of
/// each chunk's diagonal block), and the floor at that depth's fixed cost.
CasePrediction predict_case_at(const Case& c, const Machines& m, int chunks);

/// The parts of a case's GPU side the path measurement anchors (ms, the model's, for the whole
/// call): the serial proportional time of its split copies and kernel (one chunk), its whole
/// operands' copies (GEMV's x, GEMM's A, the filter), and the all-GPU call. Not for CG.
struct GpuSideParts {
    double serial_ms = 0, whole_ms = 0, all_gpu_ms = 0;
};
GpuSideParts gpu_side_parts(const Case& c, const Machines& m);
/// The model's hybrid time at share f in (0, 1) without the residual: what the residual is
/// measured against. Not for CG.
double hybrid_model_ms(const Case& c, const Machines& m, double f);

/// CG on the host (cpu::cg, tol 0) from x = 0 until `iterations` iterations are done in all: a
/// small system stops early at an exactly zero residual (n = 8 in float: after 35 of 100), so the
/// solve restarts until the model's iterations are done. Returns the iterations done.
template <class T>
int cpu_cg_iterations(int n, const T* A, const T* b, T* x, int iterations);

/// Host bytes one measured case holds at its peak (its operands, generated once and shared by the
/// three ways; CG's solver vectors). Throws std::invalid_argument on an unknown op.
double host_bytes_needed(const Case& c);

/// The measured columns of one case (NaN where not measured).
struct Measured {
    double cpu_ms = NAN;     ///< the CPU peer: the median of its batches
    double gpu_ms = NAN;     ///< all on the GPU: copies in, the tuned kernel, copy out (one chunk: in sequence)
    double hybrid_ms = NAN;  ///< the hybrid with `gpu_part` on the GPU in `chunks` chunks (CG: White §5.2)
    double gpu_chunked_ms = NAN;  ///< all on the GPU in the hybrid's chunks (MeasurePlan::chunked)
    int hybrid_part = 0;     ///< the GPU rows the hybrid ran with
    double hybrid_error = NAN;  ///< the hybrid timing's relative standard error (host_timing.hpp)
    double cpu_error = NAN;     ///< the CPU timing's relative standard error
    /// The fastest and slowest batch (ms per call) of the CPU peer and of the hybrid where they
    /// were timed in turn with the other sizes (measure_group): the host's drift during the
    /// timing shows here.
    double cpu_min_ms = NAN, cpu_max_ms = NAN, hybrid_min_ms = NAN, hybrid_max_ms = NAN;
};
/// Runs the cases of one op, precision and FS (the rows of one group of the table, in order) on
/// seeded host data (page-locked where `gpu`), all sizes' data held at once: where `gpu`, each
/// size's all-GPU call, one size after another; then the CPU peer of every size and, where `gpu`,
/// its hybrid with gpu_parts[i] rows (columns) on the GPU (not run where that is 0 or all: the
/// hybrid is then one of the other two; CG always runs White's split), timed in turn across the
/// sizes (cpu::time_interleaved: a drift of the host during the timing shows as each row's
/// spread, not as a step between sizes). Throws std::invalid_argument unless the cases share one
/// op, precision and FS and gpu_parts and chunks (each case's pipeline depth, >= 1) have one
/// entry per case; throws what the calls throw.
std::vector<Measured> measure_group(const std::vector<Case>& cases, const std::vector<int>& gpu_parts,
                                    const std::vector<int>& chunks, bool gpu, int cg_iterations);

/// Which ways a calibration times (not CG), one after another on one case's data: the CPU peer
/// (after the threads settle), the all-GPU call in one chunk, in `chunks` chunks, then the hybrid
/// with the rows hybrid_part returns once the others are timed (it sees them; 0 or n: not run).
struct MeasurePlan {
    bool cpu = true;
    bool gpu = true;
    bool chunked = false;
    std::function<int(const Measured&)> hybrid_part;
};
Measured measure_case(const Case& c, const MeasurePlan& plan, int chunks);

/// The all-GPU call of every case (not CG) at its size, in one chunk (Measured::gpu_ms) and in
/// `chunks` chunks (gpu_chunked_ms), on page-locked host data: all of these calls timed in turn
/// (cpu::time_interleaved, the median batch), so that each figure spans the same rounds. A tiny
/// call's time is the host's fixed cost of the path (the copies' and the launch's API calls, the
/// wait), which has states lasting seconds (the same n = 8 GEMV took 24 us, then 29 us, a few
/// seconds apart): a class timed alone lands in the state of its moment, each call timed in turn
/// across the classes spans them all. Throws std::invalid_argument on a CG case; throws what the
/// calls throw.
std::vector<Measured> measure_paths_in_turn(const std::vector<Case>& cases, int chunks);

}  // namespace wb::ch07
