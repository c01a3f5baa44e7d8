/// \file split.hpp
/// \brief Where a computation should run (White §4.6, Listing 4.18, generalized): on the CPU, on
///        the GPU with its transfers, or on both at once (a hybrid that splits the rows of the
///        output, or of the image, between them). Pure host arithmetic, tested without a GPU.
///
/// The data starts in host memory and the result must end there. White's rule (Listing 4.18):
///
///     run on the CPU  if  T_cpu <= T_gpu + T_comm,  else on the GPU,
///
/// with T_comm the transfers in and out, each from the communication model
/// T(b) = b / Tx + c0 b + c1 (White Eq. 3.14-3.15; common/transfer_model.hpp).
///
/// The hybrid. The GPU takes a share f of the rows and the CPU the rest, both at once. Each side's
/// time is affine in its share: T_G(f) = G0 + f G1 (G0: what the GPU pays whatever its share: the
/// operands it needs whole, such as GEMV's x, the set-up times c1, the launch; G1: the copies and
/// kernel time of the whole call) and T_C(f) = C0 + (1 - f) C1. The call ends when the slower side
/// ends, so the best share equalizes them:
///
///     G0 + f G1 = C0 + (1 - f) C1   =>   f* = (C0 + C1 - G0) / (C1 + G1),  clamped to [0, 1],
///
/// and the predicted hybrid time is T_G(f*) = T_C(f*). Where f* is strictly inside (0, 1) it is
/// below both the all-CPU and the all-GPU time, by construction. Two things the sides' own times
/// leave out are measured where a GPU is (HybridCosts):
/// - the host memory both sides read: the CPU's share from DRAM (where its working set is beyond
///   the LLC) and the copies' DMA from the pinned buffers. Together they cannot move bytes faster
///   than the host memory serves both at once (measured with the CPU reading while copies run):
///   T(f) >= shared(f) = (DRAM bytes of the CPU's share + bytes copied) / that rate. Where this
///   bound binds, f* minimizes max(T_C, T_G, shared) instead of equalizing the sides;
/// - the hybrid's residual: what a real hybrid call costs beyond the model of its sides (the
///   hand-off to the GPU worker, its wake-ups while every core runs the CPU's share, the core it
///   takes from that share), measured once at a mid size: added to the hybrid's time.
/// The hybrid is chosen only where it predicts a gain of at least `min_gain` over the better
/// single side: the run's measured margin of the model (chapter 7 measures it: the median over
/// its classes of how far a real hybrid landed from its model), kMinHybridGain where none was;
/// and where it saves at least `min_saving_ms`: the margin is relative, and a hybrid whose whole
/// saving is smaller than the fixed costs it adds (chapter 7: its GPU side's measured fixed cost
/// in K chunks) stakes the choice on those costs, which move from timing to timing by their own
/// size.
///
/// The GPU side, pipelined. The GPU's share runs in K chunks on one stream with asynchronous copies
/// (pinned memory), so copy-in, kernel and copy-out of different chunks overlap: its proportional
/// cost is G1 = max(h, k, d) + (h + k + d - max(h, k, d)) / K, with h, k, d the whole call's
/// copy-in, kernel and copy-out times (the slowest stage streams; the others are paid once, for a
/// chunk, to fill and drain the pipeline). K = 1 is the serial sum h + k + d (pageable memory:
/// the copies cannot overlap the kernel).
#pragma once

#include "transfer_model.hpp"

#include <functional>
#include <string>
#include <vector>

namespace wb::split {

enum class Where { Cpu, Gpu, Hybrid };
/// "CPU", "GPU", "hybrid".
const char* where_name(Where w);

/// T(share) = fixed_ms + share x per_ms: one side's time for its share of the call.
struct LinearCost {
    double fixed_ms = 0;
    double per_ms = 0;
};

/// White's Listing 4.18: Where::Cpu when cpu_ms <= gpu_ms + comm_ms, else Where::Gpu.
Where white_rule(double cpu_ms, double gpu_ms, double comm_ms);

/// f* above: the GPU's share that makes both sides end together, in [0, 1]. Throws
/// std::invalid_argument on negative or non-finite costs, or C1 + G1 == 0.
double balance_share(const LinearCost& cpu, const LinearCost& gpu);

/// One side's time (ms) as a function of the GPU's share f in [0, 1]: the CPU's for its share
/// 1 - f, the GPU's for f. Not every side is affine: the CPU's time for a smaller share falls
/// faster than the share where that share's working set fits in a cache the whole did not.
using SideTime = std::function<double(double f)>;
/// The share that ends both sides together for any such times, cpu non-increasing and gpu
/// non-decreasing in f: 0 where gpu(0) (its fixed cost, the limit f -> 0) >= cpu(0), 1 where
/// gpu(1) <= cpu(1), else the root of gpu(f) = cpu(f) by bisection (to 1e-12). For LinearCost
/// sides it is the closed form above. Throws std::invalid_argument on a negative or non-finite
/// time.
double balance_share(const SideTime& cpu, const SideTime& gpu);

/// Rows for the GPU out of `rows`: f x rows rounded to a multiple of `align` (the GPU's tile or
/// chunk; the last chunk may be shorter when the GPU takes every row), in [0, rows]; the CPU gets
/// the rest. Throws std::invalid_argument on rows < 0, align < 1 or f outside [0, 1].
int gpu_rows(int rows, double f, int align = 1);

/// The gain over the better single side below which the model does not choose the hybrid where
/// the run has measured no margin of its own (no GPU, or a class whose hybrid was not run at the
/// start): 15%. The hybrid's prediction is the least certain of the three (two sides, what they
/// cost each other, a residual measured at one size); a predicted gain smaller than its spread
/// (the hybrid rows of an H200 run missed their model by 10 to 40% before the shared bound and
/// the residual were measured) would pick it where it loses.
inline constexpr double kMinHybridGain = 0.15;

/// The model's verdict for one call.
struct Prediction {
    double cpu_ms = 0;        ///< all on the CPU
    double gpu_ms = 0;        ///< all on the GPU, transfers included (T_gpu + T_comm)
    double hybrid_ms = 0;     ///< both at once, the GPU taking gpu_share of the rows
    double gpu_share = 0;     ///< f*
    Where white = Where::Cpu; ///< Listing 4.18 (CPU or GPU)
    Where choice = Where::Cpu;///< the fastest of the three (hybrid only with min_gain)
    double margin = kMinHybridGain;  ///< the min_gain the choice was made with
    double min_saving_ms = 0;        ///< the min_saving_ms it was made with
    /// Both sides have work: the GPU's share is inside (0, 1) (false for CG's split, NaN).
    bool splits() const { return gpu_share > 0 && gpu_share < 1; }
    /// The hybrid's predicted gain over the better single side, 1 - hybrid / min(cpu, gpu), where
    /// it splits() or its share is not a share (NaN: CG's split); 0 otherwise.
    double gain() const;
};

/// The prediction from both sides' costs (all_gpu_ms: the all-GPU time, which may be computed more
/// exactly than gpu.fixed_ms + gpu.per_ms, e.g. with each transfer's own segment of the model).
/// min_gain: the hybrid must be at least this fraction faster than the better single side.
Prediction predict(const LinearCost& cpu, const LinearCost& gpu, double all_gpu_ms, double min_gain = kMinHybridGain);
/// The same for any SideTime: cpu_ms = cpu(0), hybrid_ms = max(cpu(f*), gpu(f*)) (the one side at
/// f* = 0 or 1).
Prediction predict(const SideTime& cpu, const SideTime& gpu, double all_gpu_ms, double min_gain = kMinHybridGain);

/// `p`'s choice made again at the margin `min_gain` (the shares and times do not depend on it):
/// the hybrid where it splits(), is at least min_gain faster than the better single side and
/// saves at least p.min_saving_ms; else White's side. Its margin set to min_gain. Throws
/// std::invalid_argument unless 0 <= min_gain < 1.
Prediction with_margin(Prediction p, double min_gain);

/// What running both sides at once costs beyond each side's own time (the file comment).
struct HybridCosts {
    SideTime shared;         ///< the bound both sides share (host memory), ms at share f; empty: none
    double residual_ms = 0;  ///< what a real hybrid call costs beyond the model of its sides
    double min_gain = kMinHybridGain;
    double min_saving_ms = 0;  ///< the hybrid must save at least this over the better single side
    /// The rows (columns) the share splits, whole ones; 0: a share is any fraction. A balanced
    /// share whose rows round to none or all (gpu_rows) is no split: that single side.
    int rows = 0;
};
/// The hybrid's time at share f in (0, 1): max(cpu(f), gpu(f), shared(f)) + residual.
double hybrid_ms_at(const SideTime& cpu, const SideTime& gpu, const HybridCosts& costs, double f);
/// The prediction with those costs: f* = the balanced share where shared(f*) does not exceed both
/// sides there, else the share in (0, 1) that minimizes hybrid_ms_at (max of monotone and affine
/// functions of f: quasi-convex, so golden-section search finds it), moved to 0 or 1 where its
/// rows round so (costs.rows); hybrid_ms = hybrid_ms_at(f*) (the one side at f* = 0 or 1). Throws
/// what predict throws, and std::invalid_argument on a negative or non-finite residual or negative
/// rows.
Prediction predict(const SideTime& cpu, const SideTime& gpu, double all_gpu_ms, const HybridCosts& costs);

/// What the GPU side of one call moves and computes, for the whole call (share 1).
struct Offload {
    std::vector<double> in_split;   ///< bytes copied in that shrink with the share (rows of A, an image band)
    std::vector<double> in_whole;   ///< bytes copied in whatever the share (x, B, the filter, halo rows)
    std::vector<double> out_split;  ///< bytes copied back (rows of y, of C, of the image)
    double kernel_ms = 0;           ///< the GPU's kernel time for the whole call
    double launch_ms = 0.0025;      ///< one launch (model/occupancy.hpp's kLaunchOverheadUs)
};

/// T_gpu + T_comm: every copy predicted on its own (its own segment of the model, its own c1),
/// in sequence with the kernel: White's all-GPU time.
double all_gpu_ms(const Offload& o, const TransferModel& h2d, const TransferModel& d2h);
/// T_comm alone (the copies of all_gpu_ms).
double comm_ms(const Offload& o, const TransferModel& h2d, const TransferModel& d2h);
/// The GPU side as a LinearCost: G0 = the whole copies + every copy's c1 + the launch; G1 = the
/// pipelined proportional cost above with `chunks` = K (>= 1), each split copy linearized with
/// the segment of the model its whole size falls in.
LinearCost gpu_side(const Offload& o, const TransferModel& h2d, const TransferModel& d2h, int chunks);

/// White's Tesla T10 and its host (a quad-core Xeon E5520 with ATLAS; §3.4-3.5, §4.6), in float:
/// the constants the dissertation's decisions were made with. GB in the CPU formulas is 2^30
/// bytes, as White writes 1024^3; the transfers are chapter 0's t10 model (lab::white).
namespace white_t10 {
/// §3.5.1: Mv on the CPU, 8 n^2 / 2^30 / min(max(16384 / n, 2), 8) seconds.
double cpu_mv_ms(double n);
/// §3.5.1: MM on the CPU, 8 n^3 / (51 x 2^30) seconds (an effective 51 GB/s over 8 n^3 bytes).
double cpu_mm_ms(double n);
/// §4.6.1: Mv on the GPU at (8 n^2 / 4 n^2) x 94 GB/s = 188 GB/s effective over 8 n^2 bytes.
double gpu_mv_ms(double n);
/// §4.6.2: MM on the GPU at 16 x 94 = 1504 GB/s effective over 8 n^3 bytes.
double gpu_mm_ms(double n);
/// The copies: Mv sends A (4 n^2 bytes) and b (4 n) and brings back c (4 n); MM sends A and B
/// (4 n^2 each) and brings back C (4 n^2). Each copy on its own, with White's T10 fits.
Offload mv_offload(double n);
Offload mm_offload(double n);
TransferModel h2d();
TransferModel d2h();
}  // namespace white_t10

}  // namespace wb::split
