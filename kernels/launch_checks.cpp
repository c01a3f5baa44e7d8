/// \file launch_checks.cpp
/// \brief The launchers' shared host checks (launch_checks.hpp).
#include "launch_checks.hpp"

#include "check.hpp"

#include <cuda_runtime_api.h>

#include <map>
#include <utility>
#include <stdexcept>

namespace wb::launch_checks {

void fail(const char* fn, const std::string& what) { throw std::invalid_argument(std::string(fn) + ": " + what); }

void require_indexed(const char* fn, const char* name, int value, const char* what) {
    if (value > kMaxIndexedExtent)
        fail(fn, std::string(name) + " (" + num(value) + ") must be <= " + num(kMaxIndexedExtent) + " (" + what +
                     " are indexed with 32-bit ints: a block or grid stride past the last one would overflow)");
}

void require_pitch_bytes(const char* fn, const char* name, int pitch, std::size_t elem_bytes, long long limit,
                         const char* why) {
    const long long bytes = static_cast<long long>(pitch) * static_cast<long long>(elem_bytes);
    if (bytes > limit)
        fail(fn, std::string(name) + " (" + num(pitch) + ") x " + num(static_cast<long long>(elem_bytes)) +
                     " bytes (" + num(bytes) + ") must be <= " + num(limit) + " (" + why + ")");
}

unsigned grid_dim(long long blocks, long long limit, const char* fn) {
    if (blocks > limit) fail(fn, "problem too large for one launch");
    return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

void require_launch(bool ok, const char* fn, const char* field, int value, const std::string& rule) {
    if (!ok) fail(fn, std::string("launch.") + field + " (" + std::to_string(value) + ") must be " + rule);
}

int device_attribute(int attribute, int no_gpu) {
    const auto attr = static_cast<cudaDeviceAttr>(attribute);
    thread_local std::map<std::pair<int, int>, int> cache;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        cudaGetLastError();  // clear the error: no GPU
        return no_gpu;
    }
    const auto key = std::make_pair(dev, static_cast<int>(attr));
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
    int v = 0;
    WB_CUDA(cudaDeviceGetAttribute(&v, attr, dev));
    cache[key] = v;
    return v;
}

int sm_count() { return device_attribute(cudaDevAttrMultiProcessorCount, 132); }
long long max_copy_pitch() { return device_attribute(cudaDevAttrMaxPitch, kMaxInt32); }
long long l2_bytes() { return device_attribute(cudaDevAttrL2CacheSize, 50 << 20); }
double sm_hz() { return 1e3 * device_attribute(cudaDevAttrClockRate, 1980000); }
double dram_bytes_per_second() {
    return 2.0 * 1e3 * device_attribute(cudaDevAttrMemoryClockRate, 3201000) *
           device_attribute(cudaDevAttrGlobalMemoryBusWidth, 6144) / 8.0;
}

}  // namespace wb::launch_checks
