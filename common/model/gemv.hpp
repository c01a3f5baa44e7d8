/// \file model/gemv.hpp
/// \brief The GEMV model (architecture §6): per ladder stage, the kernel design it assumes and the
///        predicted bytes, transactions, occupancy, time and GB/s of y = alpha op(A) x + beta y.
///
/// Each stage's kernels are described as model/kernel_time.hpp needs them — the grid its launch
/// makes, the dependent DRAM round trips one block waits for (its loop's iterations over the
/// loads it keeps in flight, read off the compiled loop), the L1/shared wavefronts it issues
/// (uncoalesced lines and bank conflicts included) and the bytes it moves — and timed there:
/// the largest of DRAM bandwidth, the latency walk, the load/store pipe and issue, plus the
/// launch.
#pragma once

#include "device_profile.hpp"
#include "stage.hpp"
#include "model/kernel_time.hpp"
#include "model/memory.hpp"
#include "model/occupancy.hpp"

#include <string>
#include <vector>

namespace wb::model {

// ------------------------------------------------------------------------------------------------
// GEMV prediction per ladder stage
// ------------------------------------------------------------------------------------------------

/// The launch the model is asked about: the fields of GemvLaunch (kernels/gemv_launch.hpp) that
/// shape the kernels' grids; 0 = the stage's default. Tuned T has three kernels: 32 lanes per
/// column (block_x 32), the short-column kernel (block_x = L < 32 lanes per column, 256 / L
/// columns side by side, nb = C columns per group of lanes) and the looping kernel (loop).
struct GemvModelLaunch {
    int block_x = 0;  ///< threads in x: naive and shared N the block, shared T the tile width nb,
                      ///< tuned N the rows' threads (x W rows), tuned T 32 lanes
    int block_y = 0;  ///< Q: thread rows (pattern, access, tuned N) or warps (tuned T)
    int nb = 0;       ///< tuned T: columns per block (C)
    int Y = 0;        ///< blocks per tile (0: derived as the stage's launcher derives it)
    int ept = 0;      ///< tuned N: columns per batch (U; two batches in flight)
    bool loop = false;  ///< tuned T: the looping kernel (a resident wave of blocks, block_x lanes
                        ///< per group walking tile after tile of nb columns)
    int rows_per_load = 0;  ///< tuned N: elements of A per load (0: a 16-byte vector's; 1: one
                            ///< element, the kernel for columns that do not start on 16 bytes)
};

/// The launch a stage takes where the caller only knows its threads per block (0: the stage's
/// own default): naive and shared N 256 threads, shared T a 32-wide tile, pattern and access
/// 32 x 8, tuned N 16 x (threads / 16) with U = 8, tuned T 32 x (threads / 32) with C = 4.
GemvModelLaunch gemv_model_launch(Stage stage, bool trans, int block_threads);

/// What the model assumes about one stage's kernel design (the knobs that set occupancy and the
/// bytes each thread keeps in flight). gemv_stage_design() gives the defaults, read off the
/// compiled kernels (ptxas registers, the unrolled loops of cuobjdump -sass, sm_90); a caller
/// may pass its own (e.g. a derivation that asks what more loads in flight would give).
struct GemvStageDesign {
    Stage stage = Stage::kNaive;      ///< the ladder stage it models (stage.hpp)
    int regs_per_thread = 32;         ///< registers per thread
    int smem_per_block = 0;           ///< shared-memory bytes per block (static + dynamic)
    int loads_in_flight = 1;          ///< elements of A one thread has outstanding while it waits
                                      ///< (loads issued before the first one is used; vector
                                      ///< loads count their elements)
    bool uncoalesced_t = false;       ///< op T reads one line per lane (the naive design)
    std::string summary;              ///< one line for tables
};

/// Default design of a stage for op N/T, element size and launch. Throws std::invalid_argument
/// on a stage the model has no design for.
GemvStageDesign gemv_stage_design(Stage stage, bool trans, int elem_bytes, const GemvModelLaunch& launch,
                                  const DeviceProfile& dev);
/// The same for a launch given by its threads per block (gemv_model_launch).
GemvStageDesign gemv_stage_design(Stage stage, bool trans, int elem_bytes, int block_threads,
                                  const DeviceProfile& dev);

/// Predicted cost of y = alpha op(A) x + beta y for one stage.
struct GemvPrediction {
    double useful_bytes = 0;      ///< size(T)(m n + len x + len y [+ len y when beta != 0])
    double dram_bytes = 0;        ///< bytes the design moves from DRAM, pessimistic: every sector
                                  ///< a warp touches comes from DRAM (nothing reused from L1/L2)
    double dram_bytes_cached = 0; ///< bytes when touched sectors are reused from L1 (= useful for
                                  ///< every design; the naive T design's lines stay in L1)
    long long transactions = 0;   ///< 32-byte sectors (segments on t10) for A, pessimistic
    double efficiency = 0;        ///< useful_bytes / dram_bytes
    Occupancy occ;                ///< resident blocks/threads per SM (the main kernel)
    GridMetrics grid;             ///< the main kernel's grid
    int y_blocks = 1;             ///< blocks per tile of the reduction (pattern, access, tuned)
    int kernels = 1;              ///< kernels (and constant-memory copies) per call
    double latency_bound_gbs = 0; ///< DRAM GB/s the bytes in flight sustain (Little's law), capped
    KernelTime main;              ///< the main kernel's time and its bounds
    double predicted_ms = 0;      ///< time of the call
    double predicted_gbs = 0;     ///< useful_bytes / predicted_ms
    double predicted_ms_cached = 0;   ///< = predicted_ms (kept for the naive T comparison)
    double predicted_gbs_cached = 0;  ///< useful_bytes / predicted_ms_cached
    std::string note;             ///< what limits it, in words
};

/// GEMV prediction of `stage` at `launch` for op(A) = A (trans false) or A^T on an m x n
/// column-major A with lda = m. The kernels are timed by kernel_time() (model/kernel_time.hpp)
/// with dev.bandwidth_gbs: a chapter on a GPU sets it to the measured read ceiling.
/// Sizes of zero are valid (launch overhead only). Throws std::invalid_argument on m or n < 0,
/// elem_bytes not 4 or 8, a block outside the device's limits, or an unknown stage.
/// `warm`: the call follows one on the same A (an iterative solver's next iteration): where A fits
/// in the L2 (dev.l2_bytes) its loads hit there (model/kernel_time.hpp, KernelWork::warm).
GemvPrediction predict_gemv(Stage stage, bool trans, long long m, long long n, int elem_bytes,
                            const GemvModelLaunch& launch, const DeviceProfile& dev, bool beta_nonzero = false,
                            bool warm = false);

/// The same for a launch given by its threads per block (gemv_model_launch); block_threads must
/// be a multiple of the warp size within the device's limit.
GemvPrediction predict_gemv(Stage stage, bool trans, long long m, long long n,
                            int elem_bytes, int block_threads, const DeviceProfile& dev,
                            bool beta_nonzero = false);

/// The same with an explicit design (its `stage` picks the kernels' structure; its registers,
/// shared memory and loads in flight are used as given).
GemvPrediction predict_gemv(const GemvStageDesign& design, bool trans, long long m, long long n,
                            int elem_bytes, const GemvModelLaunch& launch, const DeviceProfile& dev,
                            bool beta_nonzero = false, bool warm = false);
GemvPrediction predict_gemv(const GemvStageDesign& design, bool trans, long long m, long long n,
                            int elem_bytes, int block_threads, const DeviceProfile& dev,
                            bool beta_nonzero = false);

/// The blocks per tile (Y) and the reduction length per block that the pattern and access
/// launchers derive when the launch leaves Y at 0 (kernels/gemv_common.cuh derive_split, then
/// gemv_split_reduction): enough blocks for `blocks_per_sm` per SM, at most `max_y`, at least
/// `min_k` of the reduction each, in whole steps of `step`. Returns {k_per_block, Y}.
std::pair<long long, int> gemv_model_split(int requested_y, long long tiles, long long k, int blocks_per_sm,
                                           long long min_k, int max_y, int step, const DeviceProfile& dev);

}  // namespace wb::model
