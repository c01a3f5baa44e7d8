/// \file model/occupancy.hpp
/// \brief Occupancy and grid metrics (architecture §6; White §3.3.2-3.3.3, Eq. 3.1, 3.7-3.11): resident
///        blocks per SM with allocation granularity, total/active/fragmented threads and blocks,
///        waves; and the launch overhead every time prediction adds.
///
/// Plain host arithmetic on a DeviceProfile (a live GPU or a preset): runs and is unit-tested
/// without a GPU. Part of the model (common/model.hpp includes the op-independent models).
#pragma once

#include "device_profile.hpp"

namespace wb::model {

/// The fixed cost of the first kernel of a timed call, microseconds: what a kernel launched into a
/// stream costs on the H200 (chapter 0, experiment 6: 4.28 us per back-to-back stream launch,
/// docs/results/h200/ch00-overheads.csv). The event-timed duration of a call holds one such
/// launch whatever the kernel does; a kernel that reads anything adds one memory latency before
/// its first bytes arrive (model/kernel_time.hpp), so a call that reads a few MB takes about
/// 5 us (the read floor of the GEMV tables: 6.0 us for 4.2 MB). Every op's model uses it.
constexpr double kLaunchOverheadUs = 4.3;

/// The cost of each further kernel of the same call, microseconds: queued while the one before
/// runs, it starts as soon as that one ends, as a node of a replayed CUDA graph does (chapter 0,
/// experiment 6: 0.85 us per graph node on the H200, docs/results/h200/ch00-overheads.csv).
constexpr double kNextKernelUs = 0.85;

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

}  // namespace wb::model
