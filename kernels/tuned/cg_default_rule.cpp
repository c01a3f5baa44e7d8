/// \file tuned/cg_default_rule.cpp
/// \brief The tuned CG's default launch (cg.hpp): chapter 6's derivation (derive::derive_cg) on
///        the device's profile. Host code: the cpu tests compare it with chapter 6's launch on
///        the presets.
#include "cg.hpp"

#include "derive/derivation.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace wb::tuned {

CgLaunch cg_derived_launch(const DeviceProfile& dev, long long n, long long lda, int elem_bytes) {
    const long long size = std::max(1LL, n);  // n = 0 is a valid no-op: any launch will do
    const derive::Derivation d = derive::derive_cg(dev, size, elem_bytes, std::max(size, lda));
    CgLaunch l;
    l.block = static_cast<int>(d.value("vec.block"));
    l.check_every = static_cast<int>(d.value("check"));  // iterations per CUDA graph and status read
    l.schedule = static_cast<int>(d.value("schedule"));  // 1 graphs, 2 the persistent kernel
    return l;
}

template <class T>
CgLaunch cg_default(const CgArgs<T>& a) {
    // Cached: the derivation formats its lines, and the chapters ask for the default per timed solve.
    using Key = std::tuple<int, int, int>;
    thread_local std::map<Key, CgLaunch> cache;
    int dev = -1;
    if (cudaGetDevice(&dev) != cudaSuccess) {  // no GPU (predict-only): the h200 preset's launch
        cudaGetLastError();
        dev = -1;
    }
    const Key key{dev, a.n, a.lda};
    if (auto it = cache.find(key); it != cache.end()) return it->second;
    const CgLaunch l = cg_derived_launch(derive::default_profile(), a.n, a.lda, static_cast<int>(sizeof(T)));
    if (cache.size() >= 4096) cache.clear();  // a bound for callers that sweep shapes
    cache.emplace(key, l);
    return l;
}

template CgLaunch cg_default<float>(const CgArgs<float>&);
template CgLaunch cg_default<double>(const CgArgs<double>&);

}  // namespace wb::tuned
