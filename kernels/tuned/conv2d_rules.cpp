/// \file tuned/conv2d_rules.cpp
/// \brief Chapter 5's convolution launch rules (conv2d_rules.hpp).
#include "conv2d_rules.hpp"

#include "launch_checks.hpp"
#include "vector_offset.hpp"
#include "derive/cached_default.hpp"
#include "model/conv2d.hpp"

#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

namespace wb::tuned {

/// The launch rule's threshold: FS <= 5 streams. Below it the image's bytes, not the FMAs, bound
/// the step (FS = 5 in float: 25 FMAs per 8 bytes of image and output, 6.25 flop/byte, under the
/// H200's ridge of about 14 flop/byte at the copy ceiling), so what counts is bytes in flight and
/// few instructions per byte: no staging, no barrier, no halo tile. From FS = 7 on the FMAs
/// bound it, and the shared window's reuse across a 64 x 64 tile pays.
constexpr int kStreamMaxFs = 5;
bool stream_fits(int fs) { return fs >= 1 && fs <= kStreamMaxFs && fs % 2 == 1; }

/// The filter-row kernel's sizes: the large filters the ladder's chapter rows use (FS = 31, 63),
/// where the blocked kernel's per-tap filter load and chunk predicates cost about 1.6
/// instructions per FMA.
bool rows_fits(int fs) { return fs == 31 || fs == 63; }

/// Every other size (no kernel of this step knows it at compile time: FS = 9, 11, 13, 17 ... 29,
/// 33 ... 61, 65 ... 1025) runs this step's blocked kernel, whose chunks of 8 taps hold every
/// FMA's operands in registers; in double chapter 4's generic window-strip kernel stays a
/// candidate beside it: its strips of 4 doubles are conflict-free 16-byte reads, where the
/// blocked 4 x 2 tile's lanes, 32 bytes apart, meet two to a bank (H200: the generic kernel ahead
/// at 2000^2 FS 21 double, behind at every float size from FS 9 to 257; \ref notes_conv2d).
bool generic_fits(int fs, int elem_bytes) {
    return elem_bytes == 8 && !stream_fits(fs) && !rows_fits(fs) && fs != 7 && fs != 15;
}

Conv2dLaunch stream_shape(int sx, int sy, int warps) {
    Conv2dLaunch l;
    l.block_x = 32;
    l.block_y = warps;
    l.thread_x = sx;
    l.thread_y = sy;
    l.tile_x = 32 * sx;
    l.tile_y = warps * sy;
    return l;
}

bool compiled_fits(int fs) { return model::tuned_conv2d_fixed_fs(fs); }

Conv2dLaunch block_shape(int rx, int ry, bool blocked) {
    Conv2dLaunch l;
    l.blocked = blocked ? 1 : 0;
    l.block_x = 256;
    l.block_y = 1;
    l.thread_x = rx;
    l.thread_y = ry;
    l.tile_x = 16 * rx;
    l.tile_y = 16 * ry;
    return l;
}

namespace {

/// True when every field the caller set (nonzero) equals the configuration's.
bool matches(const Conv2dLaunch& want, const Conv2dLaunch& cfg) {
    auto eq = [](int w, int c) { return w == 0 || w == c; };
    return eq(want.block_x, cfg.block_x) && eq(want.block_y, cfg.block_y) && eq(want.tile_x, cfg.tile_x) &&
           eq(want.tile_y, cfg.tile_y) && eq(want.thread_x, cfg.thread_x) && eq(want.thread_y, cfg.thread_y) &&
           eq(want.blocked, cfg.blocked);
}

}  // namespace

std::vector<derive::Conv2dTile> conv2d_derive_tiles(const std::vector<Conv2dLaunch>& configs) {
    // Each configuration as the derivation weighs it: the streaming shape (32-wide warps) holds
    // its window in registers, every other kernel stages it; `blocked` names the blocked kernel
    // where the filter size has a compile-time one (the model tells the kernels apart by the
    // filter size and the shape, conv2d_stage_design).
    std::vector<derive::Conv2dTile> v;
    for (const Conv2dLaunch& l : configs)
        v.push_back({l.block_x, l.block_y, l.thread_x, l.thread_y, l.tile_x, l.tile_y, l.block_x != 32, l.blocked != 0});
    return v;
}

Conv2dLaunch conv2d_launch_of(const derive::Derivation& d) {
    auto get = [&](const char* p) { return static_cast<int>(d.value(p)); };
    Conv2dLaunch l;
    l.block_x = get("block_x");
    l.block_y = get("block_y");
    l.thread_x = get("thread_x");
    l.thread_y = get("thread_y");
    l.tile_x = get("tile_x");
    l.tile_y = get("tile_y");
    for (const derive::Derived& p : d.params)  // only a derivation over this step's launches names it
        if (p.parameter == "blocked") l.blocked = static_cast<int>(p.value);
    return l;
}

template <class T>
Conv2dLaunch conv2d_default(const Conv2dArgs<T>& a) {
    if (a.rows < 1 || a.cols < 1 || a.fs < 1 || a.fs % 2 == 0) return conv2d_configs<T>(a.fs).front();  // nothing to derive
    // The staging copies whole 16-byte vectors only where every row starts on one (the model's
    // vector_rows): part of what the derivation reads of the call.
    const bool vector_rows = detail::vector_offset(a.in, a.in_pitch) == 0;
    return derive::cached_default<Conv2dLaunch>(std::tuple<int, int, int, bool>{a.rows, a.cols, a.fs, vector_rows},
                                                [&](const DeviceProfile& dev, bool) {
                                                    const std::vector<Conv2dLaunch> configs = conv2d_configs<T>(a.fs);
                                                    try {
                                                        return conv2d_launch_of(derive::derive_conv2d(
                                                            dev, a.rows, a.cols, a.fs, static_cast<int>(sizeof(T)),
                                                            conv2d_derive_tiles(configs),
                                                            vector_rows));
                                                    } catch (const std::invalid_argument&) {
                                                        return configs.front();  // no candidate fits the device
                                                    }
                                                });
}

template Conv2dLaunch conv2d_default<float>(const Conv2dArgs<float>&);
template Conv2dLaunch conv2d_default<double>(const Conv2dArgs<double>&);

int conv2d_pick_config(const std::vector<Conv2dLaunch>& cfgs, const Conv2dLaunch& l, const char* fn) {
    for (std::size_t c = 0; c < cfgs.size(); ++c)
        if (matches(l, cfgs[c])) return static_cast<int>(c);
    std::string rule = "the value of one of the instantiated configurations (";
    for (const auto& c : cfgs) rule += (rule.back() == '(' ? "" : " | ") + c.str();
    rule += ")";
    const std::pair<const char*, int Conv2dLaunch::*> fields[] = {
        {"thread_x", &Conv2dLaunch::thread_x}, {"thread_y", &Conv2dLaunch::thread_y},
        {"tile_x", &Conv2dLaunch::tile_x},     {"tile_y", &Conv2dLaunch::tile_y},
        {"block_x", &Conv2dLaunch::block_x},   {"block_y", &Conv2dLaunch::block_y},
        {"blocked", &Conv2dLaunch::blocked}};
    Conv2dLaunch partial;
    for (const auto& [name, field] : fields) {
        partial.*field = l.*field;
        bool ok = false;
        for (const auto& c : cfgs) ok = ok || matches(partial, c);
        launch_checks::require_launch(ok, fn, name, l.*field, rule);
    }
    throw std::invalid_argument(std::string(fn) + ": launch (" + l.str() +
                                ") must be one configuration, not fields of several: " + rule);
}

}  // namespace wb::tuned
