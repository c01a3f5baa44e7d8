/// \file device_profile.hpp
/// \brief What the models need to know about a GPU: read from a live device or a named preset
///        (`t10` — the dissertation's Tesla T10 — `h100-sxm`, `h200`).
#pragma once

#include <string>
#include <vector>

namespace wb {

/// The share of the boost clock `boost_mhz` that a clock measured under a sustained load keeps:
/// `loaded_mhz` over it, never above 1; 1 where either is not known (0). Chapter 0's ceilings and
/// the GEMM model both read a GEMM's clock through it.
inline double loaded_clock_share(double loaded_mhz, double boost_mhz) {
    return loaded_mhz > 0 && boost_mhz > 0 ? (loaded_mhz < boost_mhz ? loaded_mhz / boost_mhz : 1.0) : 1.0;
}

struct DeviceProfile {
    std::string name;
    /// The preset this card is ("t10", "h100-sxm", "h200"; "" where none is): what per-card tables
    /// of measured figures key on (model/cg.cpp's walk probes). Presets set it; a live device's is
    /// read from its name once, here (card_of_name), not by each model.
    std::string card;
    int sm_count = 0;
    int max_blocks_per_sm = 0;
    int max_threads_per_sm = 0;
    int max_threads_per_block = 0;
    int regs_per_sm = 0;
    int reg_alloc_unit = 0;          ///< registers are allocated per warp in units of this many
    int max_regs_per_thread = 0;
    int smem_per_sm_bytes = 0;
    int smem_per_block_bytes = 0;    ///< the most one block may have
    int smem_alloc_unit = 0;         ///< shared memory is allocated in units of this many bytes
    int warp_size = 32;
    int transaction_threads = 32;    ///< threads whose accesses combine: 16 (half-warp) on t10
    int segment_bytes = 32;          ///< memory transaction unit: 32-byte sectors today
    int partitions = 0;              ///< memory partitions (8 of 256 B on t10); 0 when hashed
    int partition_bytes = 0;
    int banks = 32;                  ///< shared-memory banks of 4 bytes
    long long l2_bytes = 0;
    double sm_clock_mhz = 0;
    int fp32_lanes_per_sm = 0;       ///< FP32 FMA lanes per SM (by compute capability)
    int fp64_lanes_per_sm = 0;       ///< FP64 FMA lanes per SM (by compute capability): 64 on
                                     ///< Hopper and B200, 32 on A100/V100/P100, 2 on consumer parts
    int fp64_mma_lanes_per_sm = 0;   ///< FP64 FMAs per clock per SM on the tensor cores (mma.sync
                                     ///< .f64): 128 on H100/H200, 64 on A100, 0 where there are none
    double bandwidth_gbs = 0;        ///< theoretical DRAM bandwidth
    double latency_ns = 0;           ///< loaded DRAM latency: the bytes in flight that saturate the
                                     ///< bus are bandwidth x this (Little's law; the derivations)
    double idle_latency_ns = 0;      ///< DRAM latency of a load far from saturation: what a
                                     ///< latency-bound walk waits per dependent round trip (the models)
    double l2_latency_ns = 0;        ///< L2 hit latency: a dependent load served by the L2 (0: no L2)
    double l2_lookups_per_ns = 0;    ///< the L2's tag lookups (requests) per ns over all its slices:
                                     ///< the rate a kernel of many small requests is held to (0: not
                                     ///< known; the models then have no request bound)
    double fp64_tensor_gflops = 0;   ///< FP64 tensor-core rate (DMMA), GFLOP/s; 0 where there are none
    double sgemm_clock_mhz = 0;      ///< the SM clock under an SGEMM's / a DGEMM's sustained power
    double dgemm_clock_mhz = 0;      ///< (chapter 0, lab/gemm_clock.cu); 0: not measured, the GEMM
                                     ///< model then runs at sm_clock_mhz
    double copy_over_read = 1;       ///< a kernel's copy ceiling (read + write bytes) over its read
                                     ///< ceiling: what the bus loses to turning between reads and
                                     ///< writes (chapter 0 measures both)
    double memory_bytes = 0;         ///< device memory: total (live) or the datasheet's (preset);
                                     ///< predict-only runs skip cases that need more
    bool live = false;               ///< true when read from a device, false for a preset

    /// SMs x FP32 lanes x 2 flops per FMA x clock, GFLOP/s.
    double fp32_peak_gflops() const { return sm_count * fp32_lanes_per_sm * 2.0 * sm_clock_mhz / 1e3; }
    /// SMs x FP64 lanes x 2 flops per FMA x clock, GFLOP/s (the CUDA cores; not the FP64 tensor cores).
    double fp64_peak_gflops() const { return sm_count * fp64_lanes_per_sm * 2.0 * sm_clock_mhz / 1e3; }
    /// SMs x FP64 tensor-core FMAs per clock x 2 x clock, GFLOP/s (0 without FP64 tensor cores).
    double fp64_mma_peak_gflops() const { return sm_count * fp64_mma_lanes_per_sm * 2.0 * sm_clock_mhz / 1e3; }
    /// The share of the boost clock a GEMM in this precision keeps (loaded_clock_share).
    double gemm_clock_share(bool fp64) const {
        return loaded_clock_share(fp64 ? dgemm_clock_mhz : sgemm_clock_mhz, sm_clock_mhz);
    }
};

/// The preset a device of this name is ("h200" for "NVIDIA H200", "h100-sxm" for an H100 SXM,
/// "" otherwise).
std::string card_of_name(const std::string& device_name);
/// A named preset; throws std::invalid_argument listing the known names.
DeviceProfile device_preset(const std::string& name);
/// Names accepted by device_preset().
std::vector<std::string> device_preset_names();
/// The current device (needs a GPU).
DeviceProfile device_profile_from_device(int device);

}  // namespace wb
