/// \file launch_checks.cpp
/// \brief The launchers' shared host checks (launch_checks.hpp).
#include "launch_checks.hpp"

#include "check.hpp"

#include <cuda_runtime_api.h>

#include <map>
#include <stdexcept>

namespace wb::launch_checks {

void fail(const char* fn, const std::string& what) { throw std::invalid_argument(std::string(fn) + ": " + what); }

unsigned grid_dim(long long blocks, long long limit, const char* fn) {
    if (blocks > limit) fail(fn, "problem too large for one launch");
    return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

void require_launch(bool ok, const char* fn, const char* field, int value, const std::string& rule) {
    if (!ok) fail(fn, std::string("launch.") + field + " (" + std::to_string(value) + ") must be " + rule);
}

int sm_count() {
    thread_local std::map<int, int> cache;  // per host thread and device
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        cudaGetLastError();  // clear the error: no GPU
        return 132;
    }
    auto it = cache.find(dev);
    if (it != cache.end()) return it->second;
    int sms = 0;
    WB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    cache[dev] = sms;
    return sms;
}

}  // namespace wb::launch_checks
