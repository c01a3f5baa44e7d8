// default_profile.cpp — the profile the tuned steps' default launches derive for
// (derive/derivation.hpp): the current device's, or the h200 preset without a GPU.
#include "derive/derivation.hpp"

#include <cuda_runtime_api.h>

#include <map>
#include <mutex>

namespace wb::derive {

const DeviceProfile& default_profile(bool* live) {
    static std::mutex mu;
    static std::map<int, DeviceProfile> known;  // by device; -1: no GPU (the preset)
    int dev = -1;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        cudaGetLastError();
        dev = -1;
    }
    std::lock_guard<std::mutex> lock(mu);
    auto it = known.find(dev);
    if (it == known.end())
        it = known.emplace(dev, dev < 0 ? device_preset("h200") : device_profile_from_device(dev)).first;
    if (live) *live = dev >= 0;
    return it->second;
}

}  // namespace wb::derive
