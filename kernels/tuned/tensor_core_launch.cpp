// tensor_core_launch.cpp — configure_groups (tensor_core_launch.hpp).
#include "tuned/tensor_core_launch.hpp"

#include "check.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>

namespace wb::tuned::tc {

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
