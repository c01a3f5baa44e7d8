/// \file device.hpp
/// \brief Finding and describing the GPU: whether one exists, its properties, and the metadata
///        every CSV row carries (GPU name, SMs, clocks, driver, CUDA version, commit, date).
#pragma once

#include <string>

namespace wb {

/// Exit code of a GPU test program that found no device; CTest reports it as skipped.
constexpr int kSkipReturnCode = 77;

/// True when at least one CUDA device is usable. Never throws.
bool has_cuda_device();

/// Make `device` current; throws std::invalid_argument naming the rule when it does not exist.
void select_device(int device);

/// What one device is, read from cudaDeviceProp and the runtime.
struct DeviceInfo {
    std::string name;
    int device = 0;
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    int sm_clock_mhz = 0;       ///< from cudaDevAttrClockRate
    int mem_clock_mhz = 0;      ///< from cudaDevAttrMemoryClockRate
    int bus_width_bits = 0;
    long long l2_bytes = 0;
    long long global_mem_bytes = 0;
    int driver_version = 0;     ///< e.g. 13000
    int runtime_version = 0;
    /// Theoretical DRAM bandwidth, GB/s: 2 (DDR) x memory clock x bus width / 8.
    double theoretical_bandwidth_gbs() const;
};

DeviceInfo query_device(int device);

/// Metadata that every report row carries.
struct RunMetadata {
    std::string gpu = "none";
    int sm_count = 0;
    int sm_clock_mhz = 0;
    int mem_clock_mhz = 0;
    std::string driver = "n/a";
    std::string cuda = "n/a";
    std::string commit;  ///< git commit the binary was built from
    std::string date;    ///< UTC, ISO 8601, when the run started
};

/// Metadata for the current run; `info` may be null when no device exists.
RunMetadata run_metadata(const DeviceInfo* info);

/// The git commit the build came from (generated at build time), "unknown" outside a checkout.
const char* build_commit();

}  // namespace wb
