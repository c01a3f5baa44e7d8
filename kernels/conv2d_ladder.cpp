/// \file conv2d_ladder.cpp
/// \brief The convolution ladder: its five steps and its peers, registered for the generic
///        look-ups of step.hpp (see docs/pages/architecture.md). This is the only place that lists
///        them. Each step's legal_launches are exactly the configurations its launcher accepts.
#include "conv2d.hpp"
#include "ladder_scope.hpp"
#include "step.hpp"
#include "tuned/conv2d_rules.hpp"  // the tuned step's block shapes (conv2d_configs, beside its kernel)

#include <vector>

namespace wb {

namespace {

Conv2dLaunch blocks(int bx, int by) {
    Conv2dLaunch l;
    l.block_x = bx;
    l.block_y = by;
    return l;
}

/// Chapter 2: 32 x BY threads, a 32 x 32 tile: 32 / BY outputs per thread, one after the other.
Conv2dLaunch tile(int by) {
    Conv2dLaunch l = blocks(32, by);
    l.tile_x = 32;
    l.tile_y = 32;
    l.thread_x = 1;
    l.thread_y = 32 / by;
    return l;
}

/// Chapter 3: 32 x 8 threads, RX outputs of a row in each of 4 rows: tile (32 RX) x 32.
Conv2dLaunch strip(int rx) {
    Conv2dLaunch l = blocks(32, 8);
    l.tile_x = 32 * rx;
    l.tile_y = 32;
    l.thread_x = rx;
    l.thread_y = 4;
    return l;
}

/// Chapter 4: 256 threads (warps of 4 x 8 lanes), strips of two 16-byte vectors (8 floats, 4
/// doubles) in each of 4 rows 16 apart: tile 128 x 64 floats, 64 x 64 doubles.
template <class T>
Conv2dLaunch access_tile() {
    constexpr int rx = 32 / static_cast<int>(sizeof(T));
    Conv2dLaunch l = blocks(256, 1);
    l.tile_x = 16 * rx;
    l.tile_y = 64;
    l.thread_x = rx;
    l.thread_y = 4;
    return l;
}

template <class T>
std::vector<Step<Conv2dArgs<T>>> make_conv2d_ladder() {
    using A = Conv2dArgs<T>;
    std::vector<Step<A>> steps;
    if constexpr (ladder_lists(1)) steps.push_back({Stage::kNaive, "one output per thread, image and filter from global memory", &naive::conv2d<T>,
                     [](const A&) { return blocks(32, 8); },
                     [](const A&) {
                         return std::vector<Conv2dLaunch>{blocks(32, 8), blocks(16, 16), blocks(32, 4), blocks(64, 4),
                                                          blocks(128, 2)};
                     }});
    if constexpr (ladder_lists(2)) steps.push_back({Stage::kShared, "filter in constant memory, tile plus halo staged in shared memory",
                     &shared::conv2d<T>, [](const A&) { return tile(8); },
                     [](const A&) { return std::vector<Conv2dLaunch>{tile(8), tile(16)}; }});
    if constexpr (ladder_lists(3)) steps.push_back({Stage::kPattern, "odd strips of outputs per thread, each window row loaded once into registers",
                     &pattern::conv2d<T>, [](const A&) { return strip(sizeof(T) == 4 ? 5 : 3); },
                     [](const A&) {
                         return sizeof(T) == 4 ? std::vector<Conv2dLaunch>{strip(5), strip(7)}
                                               : std::vector<Conv2dLaunch>{strip(3)};
                     }});
    if constexpr (ladder_lists(4)) steps.push_back({Stage::kAccess, "16-byte strips from aligned padded rows (conflict-free LDS.128), cp.async 16-byte staging",
                     &access::conv2d<T>, [](const A&) { return access_tile<T>(); },
                     [](const A&) { return std::vector<Conv2dLaunch>{access_tile<T>()}; }});
    if constexpr (ladder_lists(5)) steps.push_back({Stage::kTuned, "2-D register blocks, FS = 3 ... 15 unrolled with constant-bank taps, FS <= 5 streamed, FS = 31, 63 by filter rows, other sizes by chapter 4's generic kernel",
                     &tuned::conv2d<T>, [](const A& a) { return tuned::conv2d_default<T>(a); },
                     [](const A& a) { return tuned::conv2d_configs<T>(a.fs); }});
    return steps;
}

}  // namespace

template <> std::vector<Step<Conv2dArgs<float>>> make_ladder<Conv2dArgs<float>>() { return make_conv2d_ladder<float>(); }
template <> std::vector<Step<Conv2dArgs<double>>> make_ladder<Conv2dArgs<double>>() {
    return make_conv2d_ladder<double>();
}
template <> Step<Conv2dArgs<float>> make_peer<Conv2dArgs<float>>() { return conv2d_peers<float>().front(); }
template <> Step<Conv2dArgs<double>> make_peer<Conv2dArgs<double>>() { return conv2d_peers<double>().front(); }

}  // namespace wb
