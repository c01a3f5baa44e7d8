/// \file tuned/cg_default_rule.cpp
/// \brief The tuned CG's default launch (cg.hpp): chapter 6's derivation (derive::derive_cg) on
///        the device's profile. Host code: the cpu tests compare it with chapter 6's launch on
///        the presets.
#include "cg.hpp"

#include "derive/cached_default.hpp"
#include "derive/derivation.hpp"


#include <algorithm>
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
    return derive::cached_default<CgLaunch>(std::pair<int, int>{a.n, a.lda}, [&](const DeviceProfile& dev, bool) {
        return cg_derived_launch(dev, a.n, a.lda, static_cast<int>(sizeof(T)));
    });
}

template CgLaunch cg_default<float>(const CgArgs<float>&);
template CgLaunch cg_default<double>(const CgArgs<double>&);

}  // namespace wb::tuned
