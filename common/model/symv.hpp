/// \file model/symv.hpp
/// \brief The SYMV model (architecture §6): per ladder stage, the kernel design it assumes and the
///        predicted bytes (the triangle, the other triangle's mirror where a design reads it, the
///        workspace and reduction traffic of the storage-aware designs: Nath et al. SC'11 §5),
///        occupancy, waves, the longest block's walk, Little's law, time and GB/s of
///        y = alpha*A*x + beta*y with A symmetric n x n; and the optimality bound of Nath §7.2.
#pragma once

#include "device_profile.hpp"
#include "stage.hpp"
#include "model/kernel_time.hpp"
#include "model/memory.hpp"
#include "model/occupancy.hpp"

#include <string>
#include <vector>

namespace wb::model {

/// The launch the model is asked about (the fields of SymvLaunch it needs; 0 = the stage's default).
struct SymvModelLaunch {
    int block_threads = 0;  ///< threads per block (block_x x block_y)
    int nb = 0;             ///< tile size (0 for naive)
    int y_blocks = 0;       ///< KBLAS's Y (tuned; 1 elsewhere)
    bool atomics = false;   ///< tuned: partials added into y atomically instead of a workspace
    bool warp_rows = false; ///< tuned: the warp-rows layout (block 32 x 8), whose load instruction
                            ///< reads 8 rows of 4 columns: a request of 8 elements per column
};

/// The tuned step's register rule, shared by its kernel (__launch_bounds__) and the model. A thread
/// of an nb x Q block holds two tile buffers and the column sums of L = nb / Q elements (3L
/// values of elem_bytes) plus about 32 registers of addresses, indices and loop state; the
/// kernel asks for as many resident blocks as 64K registers per SM (compute capability 7.0 to
/// 9.0) give at that count. Before this rule ptxas chose 127 (float) and 178 (double) registers
/// at nb = 64, Q = 4: 2 and 1 resident blocks of 256 threads, 32 KB of tiles in flight per SM.
constexpr int tuned_symv_regs(int nb, int q, int elem_bytes) { return 3 * (nb / q) * (elem_bytes / 4) + 32; }
constexpr int tuned_symv_min_blocks(int nb, int q, int elem_bytes) {
    const int b = 65536 / (nb * q * tuned_symv_regs(nb, q, elem_bytes));
    return b < 1 ? 1 : b;
}

/// The tuned step's row-panel layout for small n (kernels/tuned/symv_small.cuh), shared by the
/// kernel, its launch rule and the model: a block of kSymvPanelThreads threads owns kSymvPanelRows
/// (or twice as many: kSymvPanelRowsWide) rows of y and reads each of them whole (its stored row
/// part and, down its column, the mirrored part) kSymvPanelUnroll loads at a time per part. At
/// 1024 threads __launch_bounds__ leaves 64 registers per thread: one resident block per SM.
constexpr int kSymvPanelRows = 8, kSymvPanelRowsWide = 16, kSymvPanelThreads = 1024, kSymvPanelUnroll = 8;
constexpr bool is_symv_row_panels(int nb, int block_threads) {
    return (nb == kSymvPanelRows || nb == kSymvPanelRowsWide) && block_threads == kSymvPanelThreads;
}

/// What the model assumes about one stage's kernel design.
struct SymvStageDesign {
    Stage stage = Stage::kNaive;  ///< the ladder stage it models (stage.hpp)
    int regs_per_thread = 32;
    int smem_per_block = 0;       ///< bytes
    int loads_in_flight = 1;      ///< elements of A one thread has outstanding
    bool reads_both_triangles = false;  ///< storage oblivious: every stored element read twice
    bool strided_mirror = false;  ///< the mirrored half is read one sector per element (naive)
    bool workspace = false;       ///< partials through a workspace and a reduction pass
    bool columns = false;         ///< vertical traversal (block columns: access, tuned)
    bool row_panels = false;      ///< tuned's small-n layout: kSymvPanelRows rows per block, each
                                  ///< read whole (both triangles), no workspace, one kernel
    int kernels = 1;              ///< launches per call
    std::string summary;
};

/// Default design of a stage for the element size and launch. Throws std::invalid_argument on an
/// unknown stage (listing the names).
SymvStageDesign symv_stage_design(Stage stage, int elem_bytes, const SymvModelLaunch& launch);

/// The launch a stage's model assumes when the caller leaves fields at 0 (the ladder's defaults:
/// naive 128 threads; shared, pattern 32 x 8 on nb = 32; access 64 x 4 on nb = 64; tuned nb = 64,
/// 256 (float) or 512 (double) threads, Y = 1).
SymvModelLaunch symv_default_launch(Stage stage, int elem_bytes);

/// Predicted cost of one SYMV call.
struct SymvPrediction {
    double useful_bytes = 0;     ///< roofline::symv_bytes: size(T)(n(n+1)/2 + 3n)
    double triangle_bytes = 0;   ///< size(T) n(n+1)/2: the stored triangle read once
    double matrix_bytes = 0;     ///< bytes of A the design moves from DRAM (pessimistic: every
                                 ///< sector touched comes from DRAM)
    double matrix_bytes_cached = 0;  ///< the same when touched sectors are reused from L1/L2
    double workspace_bytes = 0;  ///< partials written to the workspace and read back by the
                                 ///< reduction (0 without a workspace; atomics: y read and written
                                 ///< once more for the beta pass)
    long long partials = 0;      ///< partial results per call (workspace entries or atomic adds)
    long long atomic_adds = 0;   ///< atomics mode: atomicAdd calls into y (served by L2)
    double vector_bytes = 0;     ///< x read once, y written, y read when beta != 0
    double dram_bytes = 0;       ///< matrix + workspace + vectors
    long long transactions = 0;  ///< 32-byte sectors of A (pessimistic)
    Occupancy occ;               ///< resident blocks per SM of the main kernel
    GridMetrics grid;            ///< its grid
    long long longest_walk = 0;  ///< tiles the busiest block reads (the triangle's imbalance; Y cuts it)
    double latency_bound_gbs = 0;  ///< DRAM GB/s the bytes in flight sustain (Little's law), capped
    double walk_ms = 0;          ///< the main kernel's walk (model/kernel_time: its blocks' round
                                 ///< trips, the bus shared while many of them walk)
    KernelTime main;             ///< the main kernel's time and its bounds
    double predicted_ms = 0;
    double predicted_gbs = 0;    ///< useful_bytes / predicted_ms
    double optimal_ms = 0;       ///< Nath §7.2: useful bytes at the bandwidth (no design does better)
    double optimal_gflops = 0;   ///< Nath §7.2: 2 n^2 flops in optimal_ms (4 x bandwidth / size(T))
    std::string note;            ///< what limits it, in words
};

/// SYMV prediction of `stage` on an n x n symmetric matrix of elem_bytes (4 or 8) elements.
/// Each of the step's kernels is timed by model/kernel_time: its blocks' walks (the round trips
/// per tile of the compiled loops), the bus shared by the blocks that walk at once, the launch
/// of the first kernel and the queued start of the others. The triangle's uneven block rows (or
/// columns) walk unequal lengths: while many walk the bus sets the pace, at the end the few
/// longest walks wait for their latencies (the tail that KBLAS's Y cuts).
/// Predictions use dev.bandwidth_gbs: a chapter may set it to the measured read ceiling.
/// n == 0 is valid (launch overhead only). Throws std::invalid_argument on n < 0, elem_bytes
/// not 4 or 8, a launch outside the device's limits, or an unknown stage.
/// `warm`: the call follows one on the same A (CG's next iteration): where the stored triangle
/// fits in the L2 its loads hit there (model/kernel_time.hpp, KernelWork::warm).
SymvPrediction predict_symv(Stage stage, long long n, int elem_bytes, const SymvModelLaunch& launch,
                            const DeviceProfile& dev, bool beta_nonzero = true, bool warm = false);

/// The same with an explicit design (its `stage` decides nothing; the fields do).
SymvPrediction predict_symv(const SymvStageDesign& design, long long n, int elem_bytes, const SymvModelLaunch& launch,
                            const DeviceProfile& dev, bool beta_nonzero = true, bool warm = false);

}  // namespace wb::model
