/// \file model/cg.hpp
/// \brief The CG model per ladder step (architecture §6): what one iteration moves and how many
///        launches and host round trips it pays, the predicted ms per iteration, and the classical
///        bound on the iterations from the condition number.
///
/// Per iteration: the GPU's work — the Mv as its own model predicts it for the step's launch
/// (model/gemv or model/symv, with A in the L2 where it fits: every iteration reads the same A),
/// the vector kernels' bytes, each kernel's start behind the one before (kNextKernelUs) — against
/// the host's launches (kLaunchOverheadUs each, one graph launch per chunk for chapter 5): an
/// iteration takes the longer of the two, plus its host round trips (kRoundTripUs each; the host
/// waits and the queue drains), plus for chapter 1 the host link and the CPU's vector work. The
/// bytes: the matrix the step's Mv reads (all of A for GEMV, the lower triangle for SYMV, plus
/// SYMV's workspace of partials) and the vector traffic of the step's kernels, counted per kernel
/// (a vector read by two kernels counts twice). The fixed costs are chapter 0's measurements on
/// the H200 (experiment 6, docs/results/h200/ch00-overheads.csv; transfers,
/// ch00_memory_transfers_table.csv); `ch00_memory --experiments overheads` measures them on any
/// card. The chapters show the model's error beside each row.
/// The iteration count: CG reduces the A-norm of the error by 2 ((sqrt k - 1)/(sqrt k + 1))^m after
/// m iterations, so m = ceil(sqrt(kappa) / 2 ln(2 / tol)) suffice (Golub & Van Loan 11.3.8); the
/// residual criterion the steps use is close to it on the test matrices (a geometric spectrum).
#pragma once

#include "device_profile.hpp"
#include "stage.hpp"
#include "model/occupancy.hpp"

#include <optional>
#include <string>

namespace wb::model {

/// Microseconds per kernel inside a replayed CUDA graph: a kernel queued behind another
/// (chapter 0: 0.85 us per graph node on the H200; model/occupancy kNextKernelUs).
constexpr double kGraphNodeUs = kNextKernelUs;
/// Microseconds per host round trip: a scalar copied to the host and the stream synchronized
/// (chapter 0: 12.19 us on the H200, kernel + 4-byte copy + synchronize).
constexpr double kRoundTripUs = 12.2;
/// Pageable host <-> device copies of chapter 1: their rate (chapter 0's fit on the H200: 15.8 GB/s
/// host to device, 14.8 device to host) and the fixed cost of a small one (chapter 0, 4 KB: 3.5 us
/// host to device; 8.5 us device to host, which waits for the copy).
constexpr double kPageableGbs = 15.0;
constexpr double kCopyToDeviceUs = 3.5;
constexpr double kCopyToHostUs = 8.5;
/// The CPU's vector work in chapter 1 (GB/s of vector traffic on one core).
constexpr double kCpuVectorGbs = 10.0;

/// What a step does per iteration (independent of n except through n).
struct CgStageDesign {
    bool symmetric = false;      ///< the Mv reads the lower triangle only (SYMV)
    double vector_elems = 0;     ///< vector elements moved per iteration on the GPU, per n
    double mv_launches = 1;      ///< kernels of the Mv
    double vector_launches = 0;  ///< kernels of the vector work per iteration
    double round_trips = 0;      ///< host round trips per iteration
    bool graph = false;          ///< kernels replayed from a CUDA graph
    bool host_vectors = false;   ///< chapter 1: p and A p cross the host link, vectors on the CPU
};

/// Microseconds per grid-wide barrier of the tuned step's persistent kernel: read off that kernel
/// at n = 2048 on an H100 (2026-11-26, scripts/probes/cg_schedule_probe.cu): 9.4 us (float) and
/// 10.6 us (double) per iteration with every tile on chip and three barriers per iteration (its
/// first form; two since).
constexpr double kGridBarrierUs = 3.0;

/// The tuned step's persistent kernel (CgLaunch::schedule = 2) on `dev`: its grid (the resident
/// blocks: model::tuned_symv_min_blocks per SM, as the tuned SYMV), the 64 x 64 tiles each block
/// keeps in shared memory (its share of the SM's shared memory less the kernel's static arrays,
/// the 1 KB per-block reserve and its tile table), and the share of the triangle's tiles kept on
/// chip. The launcher plans the same from the CUDA runtime (a GPU test compares the two).
struct CgPersistentPlan {
    int grid = 0;
    int cache_tiles = 0;        ///< per block
    double onchip_share = 0;    ///< kept tiles / stored tiles of the triangle, in [0, 1]
};
CgPersistentPlan cg_persistent_plan(long long n, int elem_bytes, const DeviceProfile& dev);

/// The share of `tiles` tiles kept on chip when they are dealt in units of `deal` consecutive
/// tiles (1 float, 2 double), unit b, b + grid, ... to block b, and each block keeps its first
/// `cache` tiles (grid <= the units).
double cg_persistent_share(long long tiles, int grid, int cache, int deal);
/// The persistent kernel's unit of dealt tiles: 2 (double), 1 (float).
constexpr int cg_persistent_deal(int elem_bytes) { return elem_bytes == 8 ? 2 : 1; }

/// The fixed costs of the tuned step's schedules, chapter 0's measurements (experiment 6 on the
/// H200, docs/results/h200/ch00-overheads.csv) by default: a struct so that a caller (and the cpu
/// tests) can ask what a slower launch or round trip does to the schedules' ranking.
struct CgOverheads {
    double launch_us = kLaunchOverheadUs;     ///< a kernel launched into a stream by the host
    double node_us = kGraphNodeUs;            ///< a kernel's start behind the one before (a graph node)
    double round_trip_us = kRoundTripUs;      ///< the status copied to the host between two chunks
    double grid_barrier_us = kGridBarrierUs;  ///< one grid-wide barrier of a cooperative kernel
};

/// The persistent walk's time per streamed tile and block, as measured on each card it ran on:
/// scripts/probes/cg_schedule_probe.cu at n = 16384 (lda = n: every column on a 128-byte line),
/// where 95% (float) and 98% (double) of the triangle streams, per iteration:
///   - H100 SXM (2026-11-26, docs/results/h100/cg-schedule-probe-1c54821-run{1,2}.txt, the kernel
///     of 1c54821): 194.6-194.9 us float, 394.6-395.3 us double;
///   - H200 (2026-11-28, docs/results/h200/cg-schedule-probe-e4271f6.txt, the kernel of e4271f6):
///     149.03 us float, 299.59 us double.
/// The two cards have the same SMs and clock, and the H200 walks 1.3x faster: the walk follows
/// the memory system, not only its SM's instructions, so each card takes its own probe; another
/// card takes the H100's, in SM cycles (cg_walk_tile_cycles).
constexpr long long kWalkProbeN = 16384;
constexpr double kWalkProbeUsFloat = 194.75;
constexpr double kWalkProbeUsDouble = 394.95;
constexpr double kWalkProbeH200UsFloat = 149.03;
constexpr double kWalkProbeH200UsDouble = 299.59;

/// SM cycles per streamed tile and block of the persistent walk (elem_bytes 4 or 8) on `dev`, its
/// columns on 128-byte lines: the probe's time on dev's card (the H200's where dev.card is "h200", the
/// H100's otherwise) less the fixed costs the model charges it (cg_persistent_fixed_us), over the
/// tiles each block streams there, at that card's clock (its preset's plan and clock).
double cg_walk_tile_cycles(int elem_bytes, const DeviceProfile& dev);

/// The walk's cost per tile at leading dimension lda over its cost where every column starts a
/// 128-byte line (lda a multiple of 32 floats or 16 doubles, as the probes'): the lines a tile's
/// 64-element column touches, averaged over the columns (column j starts j lda elem_bytes bytes
/// from the first, which the kernel's rows start on a line), over the aligned count, 64 e / 128.
/// A line the column shares with the next one is read twice (ncu, float 9000 against 8192: 1.8x
/// the L2 requests, 1.25x the sectors). lda <= 0: aligned.
double cg_walk_line_factor(long long lda, int elem_bytes);

/// The persistent kernel's fixed costs per iteration, us: its two grid barriers, three dependent
/// L2 round trips for the vectors other blocks wrote, and each block's chain per tile (16 FMAs, half
/// a block barrier, the shared loads of its sums) over all its tiles.
double cg_persistent_fixed_us(long long n, int elem_bytes, const DeviceProfile& dev, const CgOverheads& oh = {});

/// The CG model's resolution between the two schedules: times within 1/16 of each other count as
/// equal (the GEMM derivation's resolution too). The persistent kernel's estimate rests on one
/// probe of its walk (aligned columns, n = 16384, nearly every tile streamed); the tiles it keeps
/// and the element path of unaligned columns cost it time the probe does not see, so near the
/// crossover it runs slower than predicted (\ref ch05_cg). The graphs' estimate is the tuned
/// SYMV's model, checked on every SYMV row: a tie goes to them.
inline constexpr double kCgScheduleResolution = 1.0 / 16;

/// The schedule the tuned step's default launch runs at n on dev: 2 (persistent) where the model
/// predicts it faster per iteration than the CUDA graphs at check interval `check` by more than
/// kCgScheduleResolution (`mv_ms`: the Mv's own model, negative: its bytes at the bandwidth),
/// else 1. Never 2 past the persistent kernel's largest n (its tile table: 65535 x 64).
int cg_tuned_schedule(long long n, int elem_bytes, const DeviceProfile& dev, double mv_ms = -1, int check = 8,
                      const CgOverheads& oh = {}, long long lda = 0);

/// A CG step the model knows: a ladder stage, or (std::nullopt, kCgCublasPeer) the peer composed
/// of cuBLAS calls.
using CgModelStep = std::optional<Stage>;
inline constexpr std::nullopt_t kCgCublasPeer = std::nullopt;

/// The design of `step`; `check_every` (0: the step's default, 8) sets the round trips of
/// chapters 3-5. Throws std::invalid_argument on a stage the model has no design for.
CgStageDesign cg_stage_design(const CgModelStep& step, int check_every = 0);

struct CgPrediction {
    double matrix_bytes = 0;     ///< of A per iteration (n^2 or n(n+1)/2 elements)
    double workspace_bytes = 0;  ///< SYMV's partials written and read (chapters 4, 5)
    double vector_bytes = 0;     ///< vector traffic on the GPU
    double useful_bytes = 0;     ///< matrix + vector bytes: what the chapters' GB/s divide
    double host_bytes = 0;       ///< over the host link (chapter 1)
    double launches = 0, round_trips = 0;
    double bandwidth_ms = 0, overhead_ms = 0;
    double predicted_ms = 0;     ///< per iteration
    double predicted_gbs = 0;    ///< useful_bytes / predicted_ms
    double roofline_ms = 0;      ///< half of A + 13n elements at the bandwidth (the issue's target)
    int iterations = 0;          ///< the classical bound for (kappa, tol)
    std::string note;
};

/// The prediction of `step` for an n x n system of elem_bytes (4 or 8) elements on `dev`
/// (dev.bandwidth_gbs: the measured read ceiling on a live GPU), with condition number kappa and
/// tolerance tol for the iteration bound.
/// `mv_ms`: the time of one Mv call as the Mv's own model predicts it for the step's chapter and
/// launch (model/gemv for chapters 1-3, model/symv for 4 and 5, each with its launch cost per
/// kernel): the CG model then stands on the Mv model, so a CG row is off exactly where its
/// chapter's Mv is, and the Mv chapters explain that. Negative (the default, and the cuBLAS-
/// composed peer, which has no model): the matrix bytes (and SYMV's workspace) at the bandwidth.
/// Throws std::invalid_argument on n < 0, elem_bytes not 4 or 8, or a stage without a model.
/// `schedule` (tuned only), what each costs per iteration besides the Mv and the vectors:
///   1 (CUDA graphs): 3 graph nodes (SYMV's 2 kernels, the fused vector kernel), the fused
///     kernel's 2 grid barriers, one graph launch and one status round trip per `check_every`
///     iterations (the copy and its event sit on the stream between two chunks);
///   0 (stream launches): the same, but the host launches 3 kernels per iteration: the iteration
///     takes the longer of the host's launches and the GPU's work;
///   2 (the persistent kernel): no launch and no round trip; the tiles it does not keep streamed
///     at the walk's rate (cg_walk_tile_cycles x cg_walk_line_factor(lda)) or the bandwidth,
///     whichever is slower, its partials and vectors, and cg_persistent_fixed_us;
///   -1: cg_tuned_schedule's choice.
/// `oh`: the schedules' fixed costs (chapter 0's by default); `lda`: A's leading dimension
/// (<= 0: n).
CgPrediction predict_cg(const CgModelStep& step, long long n, int elem_bytes, const DeviceProfile& dev, double kappa,
                        double tol, int check_every = 0, double mv_ms = -1, int schedule = -1,
                        const CgOverheads& oh = {}, long long lda = 0);

/// The bytes the chapters' GB/s count for one iteration of `step`: the matrix bytes its Mv must
/// read + its vector traffic (predict_cg's useful_bytes).
double cg_iteration_bytes(const CgModelStep& step, long long n, int elem_bytes);

/// ceil(sqrt(kappa) / 2 * ln(2 / tol)), at least 1 (0 when tol >= 1; a large number when tol == 0).
int cg_iteration_bound(double kappa, double tol);

}  // namespace wb::model
