/// \file symv_ladder.cpp
/// \brief The SYMV ladder: its five steps and its peer, registered for the generic look-ups of
///        step.hpp (see docs/pages/architecture.md). This is the only place that lists them.
///        Each step's default_launch follows from the shape and the step's constraints; its
///        legal_launches are exactly the configurations its launcher accepts.
#include "symv.hpp"
#include "ladder_scope.hpp"
#include "step.hpp"

#include <vector>

namespace wb {
namespace {

SymvLaunch blocks(int bx, int by, int nb) {
    SymvLaunch l;
    l.block_x = bx;
    l.block_y = by;
    l.nb = nb;
    return l;
}

SymvLaunch peer_mode(int atomics) {
    SymvLaunch l;
    l.atomics = atomics;
    return l;
}

template <class T>
std::vector<Step<SymvArgs<T>>> make_symv_ladder() {
    using A = SymvArgs<T>;
    std::vector<Step<A>> steps;
    if constexpr (ladder_lists(1)) steps.push_back({Stage::kNaive, "one thread per row of y, the stored triangle read through a mirrored index",
                     &naive::symv<T>, [](const A&) { return blocks(128, 0, 0); },
                     [](const A&) {
                         return std::vector<SymvLaunch>{blocks(128, 0, 0), blocks(64, 0, 0), blocks(256, 0, 0)};
                     }});
    if constexpr (ladder_lists(2)) steps.push_back({Stage::kShared, "32 x 32 tiles of the full matrix mirrored in shared memory (Nath alg. 1)",
                     &shared::symv<T>, [](const A&) { return blocks(32, 8, 32); },
                     [](const A&) {
                         return std::vector<SymvLaunch>{blocks(32, 8, 32), blocks(32, 4, 32), blocks(32, 16, 32)};
                     }});
    if constexpr (ladder_lists(3)) steps.push_back({Stage::kPattern, "each stored tile read once, used twice; workspace + reduction (Nath alg. 2)",
                     &pattern::symv<T>, [](const A&) { return blocks(32, 8, 32); },
                     [](const A&) { return std::vector<SymvLaunch>{blocks(32, 8, 32), blocks(32, 4, 32)}; }});
    if constexpr (ladder_lists(4)) steps.push_back({Stage::kAccess, "diagonal, vertical off-diagonal with register prefetch, reduction (VECPAR'12)",
                     &access::symv<T>, [](const A&) { return blocks(64, 4, 64); },
                     [](const A&) { return std::vector<SymvLaunch>{blocks(64, 4, 64)}; }});
    if constexpr (ladder_lists(5)) steps.push_back({Stage::kTuned, "KBLAS: double buffers, Y blocks per column, nb/Q/Y, deterministic reduction",
                     &tuned::symv<T>, [](const A& a) { return tuned::symv_default<T>(a); },
                     [](const A&) { return tuned::symv_configs<T>(); }});
    return steps;
}

template <class T>
Step<SymvArgs<T>> make_symv_peer() {
    return {"cublas", sizeof(T) == 4 ? "cuBLAS SSYMV (default mode; launch.atomics = 1: CUBLAS_ATOMICS_ALLOWED)"
                                        : "cuBLAS DSYMV (default mode; launch.atomics = 1: CUBLAS_ATOMICS_ALLOWED)",
            &peer::symv<T>, [](const SymvArgs<T>&) { return peer_mode(0); },
            [](const SymvArgs<T>&) { return std::vector<SymvLaunch>{peer_mode(0), peer_mode(1)}; }};
}

}  // namespace

template <> std::vector<Step<SymvArgs<float>>> make_ladder<SymvArgs<float>>() { return make_symv_ladder<float>(); }
template <> std::vector<Step<SymvArgs<double>>> make_ladder<SymvArgs<double>>() { return make_symv_ladder<double>(); }
template <> Step<SymvArgs<float>> make_peer<SymvArgs<float>>() { return make_symv_peer<float>(); }
template <> Step<SymvArgs<double>> make_peer<SymvArgs<double>>() { return make_symv_peer<double>(); }

}  // namespace wb
