/// \file model.hpp
/// \brief Execution metrics and performance models (DESIGN §6): "predict before you measure".
///
/// Everything here is plain host arithmetic on a DeviceProfile (a live GPU or a preset), so it runs
/// and is unit-tested on machines without a GPU. Three groups:
///  - White's execution metrics (dissertation §3.3, Eq. 3.1-3.13), generalized: occupancy with
///    allocation granularity, total/active/fragmented threads and blocks, waves, memory
///    transactions of one warp request (half-warp segments on `t10`, 32-byte sectors today),
///    global-memory partitions, shared-memory bank conflicts, Little's law;
///  - the GEMV prediction of each ladder stage (bytes, transactions, occupancy, time, GB/s);
///  - White's closed forms and launch derivations on the T10 (Eq. 3.2-3.6, 4.24, 4.41, 5.19),
///    which the unit tests reproduce.
#pragma once

#include "device_profile.hpp"

#include <string>
#include <vector>

namespace wb::model {

// ------------------------------------------------------------------------------------------------
// Occupancy (White §3.3.2, Eq. 3.7, with allocation granularity)
// ------------------------------------------------------------------------------------------------

/// Which resource caps the number of resident blocks per SM.
enum class Limiter {
    blocks,         ///< the per-SM block slots (8 on t10, 32 on Hopper)
    threads,        ///< the per-SM thread (warp) slots
    registers,      ///< the register file
    shared_memory,  ///< shared memory
};

/// "blocks", "threads", "registers" or "shared memory".
const char* limiter_name(Limiter l);

/// Resident blocks and threads on one SM for one kernel configuration.
struct Occupancy {
    int blocks_per_sm = 0;          ///< Blks_SM^active (0: the block cannot run at all)
    int active_threads_per_sm = 0;  ///< blocks_per_sm x threads per block
    int active_warps_per_sm = 0;    ///< blocks_per_sm x warps per block
    double occupancy = 0;           ///< active warps / the SM's warp slots, 0..1
    Limiter limiter = Limiter::blocks;  ///< the smallest of the four limits below (first on ties
                                        ///< in the order blocks, threads, registers, shared memory)
    // The four limits; a resource the block does not use (0 registers, 0 shared memory with no
    // per-block reservation) reports max_blocks_per_sm.
    int limit_blocks = 0;           ///< blocks allowed by the block slots
    int limit_threads = 0;          ///< blocks allowed by the thread slots
    int limit_registers = 0;        ///< blocks allowed by the register file
    int limit_shared_memory = 0;    ///< blocks allowed by shared memory
    int regs_per_block = 0;         ///< registers one block is allocated (after rounding)
    int smem_per_block = 0;         ///< shared-memory bytes one block is allocated (after rounding,
                                    ///< including the per-block reservation of modern GPUs)
};

/// Resident blocks per SM with allocation granularity: registers are allocated per warp in
/// units of `reg_alloc_unit`, shared memory per block in units of `smem_alloc_unit` plus the
/// per-block reservation (smem_per_sm_bytes - smem_per_block_bytes: 1 KB on Hopper). On the `t10`
/// preset both units are 1, which is White's Eq. 3.7 exactly.
/// Throws std::invalid_argument when threads_per_block is outside 1..max_threads_per_block,
/// regs_per_thread outside 0..max_regs_per_thread or smem_per_block outside
/// 0..smem_per_block_bytes. A configuration that cannot fit even one block gives blocks_per_sm 0.
Occupancy occupancy(const DeviceProfile& dev, int threads_per_block, int regs_per_thread,
                    int smem_per_block);

/// White's Eq. 3.7 as printed: min(floor(Regs/RegsPerBlk), floor(SMem/SMemPerBlk), blocks,
/// threads/ThdsPerBlk) with RegsPerBlk = regs_per_thread x threads_per_block and no granularity.
int white_active_blocks_per_sm(const DeviceProfile& dev, int threads_per_block, int regs_per_thread,
                               int smem_per_block);

// ------------------------------------------------------------------------------------------------
// Grid metrics (White Eq. 3.1, 3.8-3.11): total, active and fragmented threads, waves
// ------------------------------------------------------------------------------------------------

/// Execution metrics of one grid on one device.
struct GridMetrics {
    long long total_blocks = 0;        ///< dGrd.x x dGrd.y
    long long total_threads = 0;       ///< Thds_GPU^total (Eq. 3.1)
    long long active_blocks = 0;       ///< Blks_GPU^active = min(SMs x Blks_SM^active, total) (3.8)
    long long active_threads = 0;      ///< Thds_GPU^active (Eq. 3.9)
    long long fragmented_blocks = 0;   ///< Blks_GPU^frag = total mod active (Eq. 3.10): the tail wave
    long long fragmented_threads = 0;  ///< Thds_GPU^frag (Eq. 3.11)
    long long full_waves = 0;          ///< floor(total / active)
    double waves = 0;                  ///< total / (SMs x Blks_SM^active); 0 when nothing fits
    double tail_fill = 0;              ///< fraction of the last wave's slots that are busy (1: no tail)
};

/// Grid metrics for `grid_blocks` blocks of `threads_per_block` threads with `blocks_per_sm`
/// resident per SM (from occupancy()). Throws std::invalid_argument on negative arguments or
/// threads_per_block < 1.
GridMetrics grid_metrics(const DeviceProfile& dev, long long grid_blocks, int threads_per_block,
                         int blocks_per_sm);

// ------------------------------------------------------------------------------------------------
// Global-memory transactions of one warp request (White §3.3.1; CUDA's coalescing rules)
// ------------------------------------------------------------------------------------------------

/// What one request of `threads` threads costs: thread i reads the element at
/// start_byte + i x stride_elems x elem_bytes.
struct WarpAccess {
    long long transactions = 0;  ///< segments moved: 32-byte sectors (modern) or 32/64/128-byte
                                 ///< transactions (t10, each half-warp coalesced on its own)
    long long t32 = 0;           ///< 32-byte transactions (modern GPUs: every sector)
    long long t64 = 0;           ///< 64-byte transactions (t10 only)
    long long t128 = 0;          ///< 128-byte transactions (t10 only)
    long long bytes_moved = 0;   ///< sum of the transaction sizes
    long long useful_bytes = 0;  ///< distinct bytes the threads asked for (a broadcast counts once)
    double efficiency = 0;       ///< useful_bytes / bytes_moved, 0..1
};

/// Transactions of one strided request. Modern GPUs (transaction_threads 32): the distinct
/// `segment_bytes` sectors that the warp's elements cover. `t10` (transaction_threads 16): each
/// half-warp is coalesced separately with the compute-1.2/1.3 rule White describes (§3.3.1): the
/// 128-byte segment of the lowest pending thread serves every thread inside it, then shrinks to 64
/// and to 32 bytes while only one half is used; repeat until every thread is served.
/// `threads` may exceed a warp: it is split into consecutive warps (or half-warps) and summed.
/// Throws std::invalid_argument when start_byte < 0, stride_elems < 0, elem_bytes not in
/// {1,2,4,8,16}, start_byte not a multiple of elem_bytes (natural alignment), or threads < 1.
WarpAccess warp_access(const DeviceProfile& dev, long long start_byte, int stride_elems,
                       int elem_bytes, int threads);

/// Number of segments (sectors; half-warp transactions on t10) one request touches:
/// warp_access(...).transactions. Chapter 0's coalescing experiment (strides 1..32, misaligned
/// starts) prints this next to the measurement.
long long sectors_for_warp_access(const DeviceProfile& dev, long long start_byte, int stride_elems,
                                  int elem_bytes, int threads);

/// Predicted efficiency (useful bytes / moved bytes) of one strided or misaligned request:
/// warp_access(...).efficiency. Bandwidth a kernel built of such requests can reach is about
/// efficiency x the read ceiling (when nothing is served from cache).
double access_efficiency(const DeviceProfile& dev, long long start_byte, int stride_elems,
                         int elem_bytes, int threads);

// ------------------------------------------------------------------------------------------------
// Global-memory partitions (White §3.1, Eq. 3.12-3.13) and shared-memory banks (§3.2)
// ------------------------------------------------------------------------------------------------

/// Partition (0..partitions-1) holding byte `address`: (address / partition_bytes) mod partitions.
/// Throws std::invalid_argument when the profile has no linear partition map (partitions == 0:
/// modern GPUs hash addresses across channels) or address < 0.
int partition_of(const DeviceProfile& dev, long long address);

/// Number of distinct partitions touched when each block b reads bytes
/// [start_bytes[b], start_bytes[b] + bytes_per_block). 0 for an empty set; throws like partition_of().
int partitions_touched(const DeviceProfile& dev, const std::vector<long long>& start_bytes,
                       long long bytes_per_block);

/// Slowdown White's Table 3.1 shows when the active half-warps camp on `partitions_used` of the
/// device's partitions: partitions / partitions_used (bandwidth scales with the partitions used).
/// Throws std::invalid_argument unless 1 <= partitions_used <= partitions.
double partition_camping_slowdown(const DeviceProfile& dev, int partitions_used);

/// White's Eq. 3.12: partitions one block's row of `block_x` elements spans,
/// block_x x elem_bytes / partition_bytes (fractional below one partition).
double white_parts_per_block(const DeviceProfile& dev, int block_x, int elem_bytes = 4);

/// White's Eq. 3.13: partitions the active blocks touch, capped at the device's partitions.
double white_parts_per_gpu(const DeviceProfile& dev, long long active_blocks, long long grid_x,
                           double parts_per_block);

/// Shared-memory bank of 4-byte word `word_index`: word_index mod banks.
int bank_of(const DeviceProfile& dev, long long word_index);

/// Ways of the worst bank conflict when the threads of one request read the given 4-byte words:
/// the most *distinct* words mapping to one bank (threads reading the same word share a broadcast).
/// 1 means conflict-free; 0 for an empty list.
int bank_conflict_ways(const DeviceProfile& dev, const std::vector<long long>& word_indices);

/// Ways of the worst bank conflict when thread i of one request (a warp; a half-warp of 16 on
/// t10, i.e. profile.transaction_threads threads) reads 4-byte word offset_words + i x stride_words.
/// Stride 0 is a broadcast (1 way); on 32 banks stride 2 gives 2 ways, stride 32 gives 32, odd
/// strides 1. Throws std::invalid_argument when stride_words < 0 or offset_words < 0.
int bank_conflict_ways_strided(const DeviceProfile& dev, int stride_words, long long offset_words = 0);

// ------------------------------------------------------------------------------------------------
// Little's law: bytes that must be in flight to saturate DRAM
// ------------------------------------------------------------------------------------------------

/// Bytes in flight the whole device needs: latency x bandwidth (ns x GB/s = bytes).
double bytes_in_flight_needed(const DeviceProfile& dev);
/// The same per SM: bytes_in_flight_needed / sm_count.
double bytes_in_flight_needed_per_sm(const DeviceProfile& dev);
/// Bandwidth (GB/s) that `bytes_in_flight_per_sm` on each of `active_sms` SMs can sustain:
/// min(bandwidth, active_sms x bytes_in_flight_per_sm / latency). active_sms < 0: all SMs.
double latency_bound_bandwidth_gbs(const DeviceProfile& dev, double bytes_in_flight_per_sm,
                                   int active_sms = -1);

// ------------------------------------------------------------------------------------------------
// GEMV prediction per ladder stage
// ------------------------------------------------------------------------------------------------

/// Kernel launch overhead added to every prediction, microseconds (CUDA-event timing of an empty
/// kernel on Hopper is about 2-3 us).
constexpr double kLaunchOverheadUs = 2.5;

/// What the model assumes about one stage's kernel design (the knobs that set occupancy and the
/// bytes each thread keeps in flight). gemv_stage_design() gives the defaults; a chapter may pass
/// its own (e.g. after reading the real register count from the compiled kernel).
struct GemvStageDesign {
    std::string stage;                ///< "naive", "shared", "pattern", "access", "tuned"
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

/// Default design of a stage ("naive", "shared", "pattern", "access", "tuned") for op N/T, element
/// size and block size. Throws std::invalid_argument on an unknown stage (listing the names).
GemvStageDesign gemv_stage_design(const std::string& stage, bool trans, int elem_bytes,
                                  int block_threads, const DeviceProfile& dev);

/// Names gemv_stage_design() accepts, in ladder order.
std::vector<std::string> gemv_stage_names();

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
GemvPrediction predict_gemv(const std::string& stage, bool trans, long long m, long long n,
                            int elem_bytes, int block_threads, const DeviceProfile& dev,
                            bool beta_nonzero = false);

/// The same with an explicit design (its `stage` decides nothing; the fields do).
GemvPrediction predict_gemv(const GemvStageDesign& design, bool trans, long long m, long long n,
                            int elem_bytes, int block_threads, const DeviceProfile& dev,
                            bool beta_nonzero = false);

// ------------------------------------------------------------------------------------------------
// White's closed forms on the T10 (float data, powers of two, n >= 512)
// ------------------------------------------------------------------------------------------------

/// Eq. 3.2: 32-byte reads of the global-memory Mv (thread j reads row j of a row-major A):
/// (dBlk.x + 1) n^2 / dBlk.x when dBlk.x <= 8, 17 n^2 / 16 when dBlk.x >= 16.
/// Throws std::invalid_argument when n < 1 or dblk_x is not a power of two in 1..512.
long long white_mv_gld32(long long n, int dblk_x);
/// Eq. 3.3: 32-byte reads of the global-memory MM.
long long white_mm_gld32(long long n, int dblk_x);
/// Eq. 3.4: 64-byte reads of the global-memory MM (0 when dBlk.x <= 8).
long long white_mm_gld64(long long n, int dblk_x);
/// Eq. 4.7: 64-byte reads of the shared-memory Mv when dBlk.x >= 16 (n^2 / 16); Eq. 4.6,
/// n^2 / dBlk.x 32-byte reads, when dBlk.x <= 8 (returned as the count of either size).
long long white_mv_shared_gld(long long n, int dblk_x);

/// Active threads White requires to saturate the T10's memory bus (§4.5, Eq. 4.14): 400-cycle
/// latency / 8 cycles per warp = 50 warps per partition x 8 partitions x 32 threads = 12800.
constexpr long long kWhiteMinActiveThreadsT10 = 12800;

/// A launch shape in White's notation.
struct WhiteLaunch {
    int dblk_x = 0;        ///< dBlk.x: threads per block in x
    int dblk_y = 0;        ///< dBlk.y: threads per block in y
    long long dgrd_x = 0;  ///< dGrd.x: blocks in x
    long long dgrd_y = 0;  ///< dGrd.y: blocks in y
    /// Equal when all four parameters are.
    // Written out: .cu files include this header and are compiled as C++17.
    bool operator==(const WhiteLaunch& o) const {
        return dblk_x == o.dblk_x && dblk_y == o.dblk_y && dgrd_x == o.dgrd_x && dgrd_y == o.dgrd_y;
    }
};

/// Mv launch derived by White's procedure (§4.5.1) on `dev` (the t10 preset): dBlk.x the largest
/// power of two whose padded tile (Eq. 4.11) fits shared memory (Step 2: most reuse), dBlk.y the
/// smallest power of two (<= dBlk.x, Eq. 4.16a) giving >= 8192 active threads (Step 1 with White's
/// relaxation for Mv), dGrd = (n / dBlk.x, 1). White's closed form is Eq. 4.24.
/// Throws std::invalid_argument unless n is a power of two >= 512.
WhiteLaunch derive_mv_launch_t10(long long n, const DeviceProfile& dev);
/// Eq. 4.24 as printed: dBlk = (32, max(8192/n, 4)), dGrd = (n/32, 1).
WhiteLaunch white_mv_launch_eq424(long long n);

/// MM launch derived by White's procedure (§4.5.2) with n_ele = 16 and `regs_per_thread` (32 from
/// his compilation): Steps 1-5 evaluated with the metrics above over powers of two. Closed form:
/// Eq. 4.41. Throws std::invalid_argument unless n is a power of two >= 512.
WhiteLaunch derive_mm_launch_t10(long long n, const DeviceProfile& dev, int regs_per_thread = 32);
/// Eq. 4.41 as printed: dBlk = (8, min(16, n / (64 min(n/512, 8)))), dGrd = (n / (8 dBlk.y), n/16).
WhiteLaunch white_mm_launch_eq441(long long n);

/// Convolution launch derived by White's procedure (§5.1.5) for filter size `fs` with 10 registers
/// per thread and SMemPerBlk = (2 dBlk.x dBlk.y + dBlk.x) x 4 (Eq. 5.7). Closed form: Eq. 5.19.
/// Throws std::invalid_argument unless n is a power of two >= 512 and fs >= 1.
WhiteLaunch derive_conv_launch_t10(long long n, int fs, const DeviceProfile& dev);
/// Eq. 5.19 as printed: dBlk.x = min(max(16, 2^ceil(log2 FS)), 512), dBlk.y = max(64/dBlk.x, 1),
/// dGrd = (n / dBlk.x, n / dBlk.y).
WhiteLaunch white_conv_launch_eq519(long long n, int fs);

}  // namespace wb::model
