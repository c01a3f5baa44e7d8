/// \file derive/cached_default.hpp
/// \brief The tuned steps' default launches, derived once per host thread, device and call class:
///        a derivation formats a line per parameter, which a call of a few microseconds must not
///        pay each time (the chapters ask for the default on every timed call).
#pragma once

#include "derive/derivation.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <map>
#include <utility>

namespace wb::derive {

/// At most this many cached defaults per call site and thread (then the cache starts again): a
/// bound for callers that sweep shapes.
constexpr std::size_t kDefaultCacheSize = 4096;

/// `derive(profile, live)` on default_profile() for the current device (-1 without a GPU: the
/// h200 preset), remembered under (device, `key`). `key` holds everything the derivation reads of
/// the call. Each call site (each `Derive` type) keeps its own cache.
template <class Launch, class Key, class Derive>
Launch cached_default(const Key& key, Derive&& derive) {
    thread_local std::map<std::pair<int, Key>, Launch> cache;
    int dev = -1;
    if (cudaGetDevice(&dev) != cudaSuccess) {  // no GPU (predict-only): the preset's launch
        cudaGetLastError();
        dev = -1;
    }
    const std::pair<int, Key> k{dev, key};
    if (auto it = cache.find(k); it != cache.end()) return it->second;
    bool live = false;
    const DeviceProfile& profile = default_profile(&live);
    const Launch l = derive(profile, live);
    if (cache.size() >= kDefaultCacheSize) cache.clear();
    cache.emplace(k, l);
    return l;
}

}  // namespace wb::derive
