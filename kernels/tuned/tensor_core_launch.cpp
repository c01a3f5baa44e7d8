// tensor_core_launch.cpp — machine, kernel_runs_on, resident_blocks, configure_groups (tensor_core_launch.hpp).
#include "tuned/tensor_core_launch.hpp"

#include "check.hpp"
#include "launch_checks.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>

namespace wb::tuned::tc {

Machine machine() {
    return {launch_checks::sm_count(), launch_checks::sm_hz(), launch_checks::dram_bytes_per_second()};
}

Machine machine(const DeviceProfile& dev) {
    return {std::max(1, dev.sm_count), dev.sm_clock_mhz * 1e6, dev.bandwidth_gbs * 1e9};
}

bool kernel_runs_on(int device, const void* kernel, int min_major) {
    int major = 0;
    cudaFuncAttributes attr{};
    const bool ok = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
                    major >= min_major && cudaFuncGetAttributes(&attr, kernel) == cudaSuccess &&
                    attr.binaryVersion >= 10 * min_major;
    cudaGetLastError();
    return ok;
}

int resident_blocks(int device, const void* kernel, int threads, int smem) {
    int blocks = 0, prev = 0;
    const bool ok = cudaGetDevice(&prev) == cudaSuccess && cudaSetDevice(device) == cudaSuccess &&
                    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) == cudaSuccess &&
                    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, smem) == cudaSuccess;
    cudaSetDevice(prev);
    cudaGetLastError();
    return ok && blocks > 0 ? blocks : -1;
}

int configure_groups(const void* kernel, int threads, int smem) {
    WB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int dev = 0, sms = 0, per_sm = 0;
    WB_CUDA(cudaGetDevice(&dev));
    WB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    WB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
    const double resident = static_cast<double>(sms) * std::max(1, per_sm);
    return std::max(1, static_cast<int>(std::lround(std::sqrt(resident))));
}

}  // namespace wb::tuned::tc
