// device.cpp — finding and describing the GPU (declared in device.hpp).
//
// Why a file of its own: every binary asks "is there a GPU?" before anything else (the GPU test
// mains exit 77 without one, the chapters fall back to predictions), and every CSV row carries
// the same metadata. CUDA 13 removed cudaDeviceProp::clockRate and ::memoryClockRate, so clocks
// are read with cudaDeviceGetAttribute, which works on CUDA 12 and 13 alike.
#include "device.hpp"

#include "check.hpp"

#include <cstdio>
#include <ctime>
#include <stdexcept>
#include <string>

namespace wb {

namespace {

/// When the program started (static initialisation): the "date" of every row of one run.
const std::time_t kRunStart = std::time(nullptr);

/// Number of devices, 0 on any error (no driver, no device, driver too old).
int device_count_or_zero() noexcept {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();  // clear it so a later cudaGetLastError() does not report it
        return 0;
    }
    return count;
}

int attribute(cudaDeviceAttr attr, int device) {
    int value = 0;
    WB_CUDA(cudaDeviceGetAttribute(&value, attr, device));
    return value;
}

/// 13000 -> "13.0", 12040 -> "12.4" (CUDA's encoding: 1000 x major + 10 x minor).
std::string version_string(int v) {
    if (v <= 0) return "n/a";
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string iso8601_utc(std::time_t t) {
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

}  // namespace

bool has_cuda_device() { return device_count_or_zero() > 0; }

void select_device(int device) {
    const int count = device_count_or_zero();
    if (device < 0 || device >= count)
        throw std::invalid_argument("select_device: device (" + std::to_string(device) +
                                    ") must be >= 0 and < the number of CUDA devices (" +
                                    std::to_string(count) + ")");
    WB_CUDA(cudaSetDevice(device));
}

double DeviceInfo::theoretical_bandwidth_gbs() const {
    // mem_clock_mhz * 1e6 Hz * 2 transfers/clock * bus_width_bits / 8 bytes, in GB/s (1e9).
    return 2.0 * mem_clock_mhz * 1e6 * (bus_width_bits / 8.0) / 1e9;
}

DeviceInfo query_device(int device) {
    const int count = device_count_or_zero();
    if (device < 0 || device >= count)
        throw std::invalid_argument("query_device: device (" + std::to_string(device) +
                                    ") must be >= 0 and < the number of CUDA devices (" +
                                    std::to_string(count) + ")");
    cudaDeviceProp prop{};
    WB_CUDA(cudaGetDeviceProperties(&prop, device));
    DeviceInfo info;
    info.name = prop.name;
    info.device = device;
    info.cc_major = prop.major;
    info.cc_minor = prop.minor;
    info.sm_count = prop.multiProcessorCount;
    info.sm_clock_mhz = attribute(cudaDevAttrClockRate, device) / 1000;           // kHz -> MHz
    info.mem_clock_mhz = attribute(cudaDevAttrMemoryClockRate, device) / 1000;    // kHz -> MHz
    info.bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
    info.l2_bytes = attribute(cudaDevAttrL2CacheSize, device);
    info.global_mem_bytes = static_cast<long long>(prop.totalGlobalMem);
    WB_CUDA(cudaDriverGetVersion(&info.driver_version));
    WB_CUDA(cudaRuntimeGetVersion(&info.runtime_version));
    return info;
}

RunMetadata run_metadata(const DeviceInfo* info) {
    RunMetadata meta;
    if (info) {
        meta.gpu = info->name;
        meta.sm_count = info->sm_count;
        meta.sm_clock_mhz = info->sm_clock_mhz;
        meta.mem_clock_mhz = info->mem_clock_mhz;
        meta.driver = version_string(info->driver_version);
        meta.cuda = version_string(info->runtime_version);
    } else {
        // No device: the runtime version is still known (it is linked in); the driver may not be.
        int v = 0;
        if (cudaRuntimeGetVersion(&v) == cudaSuccess) meta.cuda = version_string(v);
        if (cudaDriverGetVersion(&v) == cudaSuccess && v > 0) meta.driver = version_string(v);
        (void)cudaGetLastError();
    }
    meta.commit = build_commit();
    meta.date = iso8601_utc(kRunStart);
    return meta;
}

}  // namespace wb
