/// \file gemv_ladder.cpp
/// \brief The GEMV ladder: its five steps and its peer, registered for the generic look-ups of
///        step.hpp (see docs/pages/architecture.md). This is the only place that lists them.
#include "gemv.hpp"
#include "ladder_scope.hpp"
#include "step.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace wb {
namespace {

template <class T>
std::vector<GemvLaunch> block_sizes(std::initializer_list<int> bxs) {
    std::vector<GemvLaunch> v;
    for (int bx : bxs) v.push_back(GemvLaunch{bx});
    return v;
}

/// Chapters 3 and 4: a warp across the tile, Q = block_y threads per result, Y blocks per tile.
std::vector<GemvLaunch> warp_by_q_launches() {
    std::vector<GemvLaunch> v;
    for (int q : {1, 2, 4, 8, 16, 32})
        for (int y : {0, 1, 4}) v.push_back(GemvLaunch{32, q, 32, q, y, 1});
    return v;
}

template <class T>
std::vector<Step<GemvArgs<T>>> make_gemv_ladder() {
    using A = GemvArgs<T>;
    std::vector<Step<GemvArgs<T>>> steps;
    if constexpr (ladder_lists(1)) steps.push_back({Stage::kNaive, "one thread per result, every operand from global memory", &naive::gemv<T>,
                     [](const A&) { return GemvLaunch{256}; },
                     [](const A&) { return block_sizes<T>({64, 128, 256, 512, 1024}); }});
    if constexpr (ladder_lists(2)) steps.push_back({Stage::kShared, "x in constant memory; T stages A through shared tiles to coalesce",
                     &shared::gemv<T>,
                     [](const A& a) { return GemvLaunch{a.op == Op::N ? 256 : 32}; },
                     [](const A& a) {
                         return a.op == Op::N ? block_sizes<T>({64, 128, 256, 512}) : block_sizes<T>({16, 32, 64});
                     }});
    if constexpr (ladder_lists(3)) steps.push_back({Stage::kPattern, "Q threads per result, in-block reduction, Y blocks per tile",
                     &pattern::gemv<T>,
                     [](const A&) { return GemvLaunch{32, 8, 32, 8, 0, 1}; },
                     [](const A&) { return warp_by_q_launches(); }});
    if constexpr (ladder_lists(4)) steps.push_back({Stage::kAccess, "padded tiles, staggered starts, 16-byte loads, safe irregular edges",
                     &access::gemv<T>,
                     [](const A&) { return GemvLaunch{32, 8, 32, 8, 0, 1}; },
                     [](const A&) { return warp_by_q_launches(); }});
    if constexpr (ladder_lists(5)) steps.push_back({Stage::kTuned, "registers, 16-byte loads, double-buffered prefetch, a launch derived from the shape",
                     &tuned::gemv<T>,
                     // The default launch is chapter 6's derivation (derive::derive_gemv, its rules
                     // with their equations in common/derive/gemv.cpp) on the device's profile,
                     // read once per device (gemv_rules.hpp: tuned_gemv_default).
                     [](const A& a) { return tuned_gemv_default(gemv_shape(a)); },
                     // Bounded, and covering every choice of the default rule and of chapter 6's
                     // derivation (gemv_rules.hpp says which values and why).
                     [](const A& a) { return tuned_gemv_launches(gemv_shape(a), gemv_machine_of_current_device()); }});
    return steps;
}

template <class T>
Step<GemvArgs<T>> make_gemv_peer() {
    return {"cublas", "cuBLAS S/DGEMV (the vendor library)", &peer::gemv<T>,
            [](const GemvArgs<T>&) { return GemvLaunch{}; },
            [](const GemvArgs<T>&) { return std::vector<GemvLaunch>{GemvLaunch{}}; }};
}

}  // namespace

template <> std::vector<Step<GemvArgs<float>>> make_ladder<GemvArgs<float>>() { return make_gemv_ladder<float>(); }
template <> std::vector<Step<GemvArgs<double>>> make_ladder<GemvArgs<double>>() { return make_gemv_ladder<double>(); }
template <> Step<GemvArgs<float>> make_peer<GemvArgs<float>>() { return make_gemv_peer<float>(); }
template <> Step<GemvArgs<double>> make_peer<GemvArgs<double>>() { return make_gemv_peer<double>(); }

}  // namespace wb
