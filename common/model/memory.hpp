/// \file model/memory.hpp
/// \brief Memory models (architecture §6; White §3.1-3.3.1): the global-memory transactions of one warp
///        request (half-warp segments on `t10`, 32-byte sectors today), global-memory partitions
///        (Eq. 3.12-3.13), shared-memory bank conflicts, and Little's law (bytes in flight).
///
/// Plain host arithmetic on a DeviceProfile: runs and is unit-tested without a GPU. Chapter 0's
/// experiments print these predictions beside their measurements.
#pragma once

#include "device_profile.hpp"

#include <vector>

namespace wb::model {

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


}  // namespace wb::model
