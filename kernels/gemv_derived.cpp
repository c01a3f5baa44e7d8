/// \file gemv_derived.cpp
/// \brief The tuned GEMV's default launch: chapter 6's derivation (derive::derive_gemv) on the
///        device's profile, read once per device (gemv_rules.hpp: gemv_derived_launch).
#include "gemv_rules.hpp"

#include "derive/cached_default.hpp"
#include "derive/derivation.hpp"


#include <algorithm>
#include <tuple>

namespace wb {

namespace {
bool has(const derive::Derivation& d, const char* p) {
    return std::any_of(d.params.begin(), d.params.end(), [&](const derive::Derived& x) { return x.parameter == p; });
}
int as_int(const derive::Derivation& d, const char* p) { return static_cast<int>(d.value(p)); }
}  // namespace

GemvLaunch gemv_launch_of(const derive::Derivation& d, bool trans) {
    GemvLaunch l;
    l.block_x = as_int(d, "block_x");
    l.block_y = as_int(d, "block_y");
    l.Q = l.block_y;
    l.Y = as_int(d, "Y");
    l.nb = trans ? as_int(d, "C") : 4;
    l.ept = trans ? 4 : as_int(d, "U");
    l.loop = has(d, "loop") ? as_int(d, "loop") : 0;
    return l;
}

derive::Derivation gemv_derivation(const DeviceProfile& dev, const GemvShape& s, bool white) {
    // T reads 16-byte vectors of every column, peeling a shifted column's head: the derivation
    // needs to know whether the columns (and x) are aligned. N needs to know whether its loads are
    // 16 bytes or one element.
    const GemvLoads loads = tuned_gemv_loads(s);
    const bool vector_loads = s.op == Op::T ? loads == GemvLoads::kAligned16 : loads != GemvLoads::kElement;
    return derive::derive_gemv(dev, s.op == Op::T, std::max(1, s.m), std::max(1, s.n), s.elem_bytes, vector_loads,
                                white);
}

GemvLaunch gemv_derived_launch(const DeviceProfile& dev, const GemvShape& s) {
    // m or n = 0: a no-op, any launch will do. White's procedure names White's kernel's launch,
    // not the tuned kernels': the tuned derivation even on his case.
    return gemv_launch_of(gemv_derivation(dev, s, false), s.op == Op::T);
}

GemvLaunch tuned_gemv_default(const GemvShape& s) {
    using Key = std::tuple<int, int, int, int, int>;
    const Key key{static_cast<int>(s.op), s.m, s.n, s.elem_bytes, static_cast<int>(tuned_gemv_loads(s))};
    return derive::cached_default<GemvLaunch>(key, [&](const DeviceProfile& dev, bool) { return gemv_derived_launch(dev, s); });
}

}  // namespace wb
