/// \file model/gemv.hpp
/// \brief The GEMV model (architecture §6): per ladder stage, the kernel design it assumes and the
///        predicted bytes, transactions, occupancy, time and GB/s of y = alpha op(A) x + beta y.
#pragma once

#include "device_profile.hpp"
#include "stage.hpp"
#include "model/memory.hpp"
#include "model/occupancy.hpp"

#include <string>
#include <vector>

namespace wb::model {

// ------------------------------------------------------------------------------------------------
// GEMV prediction per ladder stage
// ------------------------------------------------------------------------------------------------

/// Every prediction adds kLaunchOverheadUs (model/occupancy.hpp) for the launch.

/// What the model assumes about one stage's kernel design (the knobs that set occupancy and the
/// bytes each thread keeps in flight). gemv_stage_design() gives the defaults; a chapter may pass
/// its own (e.g. after reading the real register count from the compiled kernel).
struct GemvStageDesign {
    Stage stage = Stage::kNaive;      ///< the ladder stage it models (stage.hpp)
    int regs_per_thread = 32;         ///< registers per thread
    int smem_per_block = 0;           ///< shared-memory bytes per block
    int loads_in_flight = 1;          ///< elements of A one thread has outstanding (loads issued
                                      ///< before the first result is needed; vector loads count
                                      ///< their elements)
    long long reduction_per_thread = 0;  ///< elements of one result's sum a thread adds
                                         ///< (0: the whole sum, one thread per result)
    bool uncoalesced_t = false;       ///< op T reads one sector per element (the naive design)
    std::string summary;              ///< one line for tables
};

/// Default design of a stage for op N/T, element size and block size. Throws
/// std::invalid_argument on a stage the model has no design for.
GemvStageDesign gemv_stage_design(Stage stage, bool trans, int elem_bytes,
                                  int block_threads, const DeviceProfile& dev);

/// Predicted cost of y = alpha op(A) x + beta y for one stage.
struct GemvPrediction {
    double useful_bytes = 0;      ///< size(T)(m n + len x + len y [+ len y when beta != 0])
    double dram_bytes = 0;        ///< bytes the design moves from DRAM, pessimistic: every sector
                                  ///< a warp touches comes from DRAM (nothing reused from L1/L2)
    double dram_bytes_cached = 0; ///< bytes when touched sectors are reused from L1/L2 (= useful
                                  ///< for every design except naive T)
    long long transactions = 0;   ///< 32-byte sectors (segments on t10) for A, pessimistic
    double efficiency = 0;        ///< useful_bytes / dram_bytes
    Occupancy occ;                ///< resident blocks/threads per SM
    GridMetrics grid;             ///< grid the design launches
    double latency_bound_gbs = 0; ///< DRAM GB/s the bytes in flight can sustain (Little's law,
                                  ///< pessimistic bytes per load), capped at the bandwidth
    double predicted_ms = 0;      ///< pessimistic time (dram_bytes)
    double predicted_gbs = 0;     ///< useful_bytes / predicted_ms
    double predicted_ms_cached = 0;   ///< time when sectors are reused (dram_bytes_cached)
    double predicted_gbs_cached = 0;  ///< useful_bytes / predicted_ms_cached
    std::string note;             ///< what limits it, in words
};

/// GEMV prediction of `stage` for op(A) = A (trans false) or A^T on an m x n column-major A.
/// time = max(DRAM bytes / bandwidth, elements / (elements in flight / latency)) + kLaunchOverheadUs:
/// the second term is Little's law on what the design's resident threads keep outstanding
/// (resident threads x loads_in_flight elements), so a latency-bound design takes as long whether
/// or not its sectors are reused, and a bandwidth-bound one pays for every byte moved.
/// Predictions use dev.bandwidth_gbs: a chapter may copy the profile and set it to the measured
/// read ceiling.
/// Sizes of zero are valid (launch overhead only). Throws std::invalid_argument on m or n < 0,
/// elem_bytes not 4 or 8, block_threads outside 1..max_threads_per_block or not a multiple of
/// the warp size, or an unknown stage.
GemvPrediction predict_gemv(Stage stage, bool trans, long long m, long long n,
                            int elem_bytes, int block_threads, const DeviceProfile& dev,
                            bool beta_nonzero = false);

/// The same with an explicit design (its `stage` decides nothing; the fields do).
GemvPrediction predict_gemv(const GemvStageDesign& design, bool trans, long long m, long long n,
                            int elem_bytes, int block_threads, const DeviceProfile& dev,
                            bool beta_nonzero = false);

}  // namespace wb::model
