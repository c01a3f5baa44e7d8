/// \file tuned/conv2d_rules.hpp
/// \brief Chapter 5's convolution launch rules (host code, conv2d_rules.cpp): which kernel a
///        filter size takes by default, the launch shapes, and the check that a launch names one
///        instantiated configuration. The kernels and their launchers are conv2d.cu.
#pragma once

#include "conv2d.hpp"
#include "derive/derivation.hpp"

#include <vector>

namespace wb::tuned {

/// The filter sizes the streaming kernel takes by default: odd FS <= kStreamMaxFs.
bool stream_fits(int fs);
/// The filter-row kernel's sizes: FS = 31, 63.
bool rows_fits(int fs);
/// The sizes no kernel of this step knows at compile time, in double: chapter 4's generic kernel
/// as the first candidate beside the blocked shapes (in float the blocked kernel only).
bool generic_fits(int fs, int elem_bytes);

/// The sizes a kernel of this step knows at compile time in its 256-thread blocks: FS = 3, 5, 7, 15
/// (their blocks run the blocked kernel instead where the launch sets `blocked`).
bool compiled_fits(int fs);

/// The streaming kernel's launch: warps of 32 threads, each thread sx x sy outputs.
Conv2dLaunch stream_shape(int sx, int sy, int warps);
/// A 256-thread block of 16 x 16 threads, each rx x ry outputs; `blocked`: the blocked kernel even
/// where the filter size has a compile-time one (Conv2dLaunch::blocked).
Conv2dLaunch block_shape(int rx, int ry, bool blocked = false);

/// The instantiated launches of T for filter size fs, the special kernel's shape first (the
/// ladder's legal_launches; defined beside the kernels, conv2d.cu).
template <class T>
std::vector<Conv2dLaunch> conv2d_configs(int fs);

/// The instantiated launches (conv2d_configs(fs)) as chapter 6's candidates: each shape, whether
/// its kernel stages the window in shared memory (the streaming shape's 32-wide warps hold it in
/// registers), and whether it asks for the blocked kernel (Conv2dLaunch::blocked).
std::vector<derive::Conv2dTile> conv2d_derive_tiles(const std::vector<Conv2dLaunch>& configs);
/// The launch a convolution derivation names: block, thread and tile shape.
Conv2dLaunch conv2d_launch_of(const derive::Derivation& d);

/// The tuned step's default launch: chapter 6's derivation (derive_conv2d over conv2d_configs) on
/// the current device's profile (derive::default_profile); the first configuration where none
/// fits it.
template <class T>
Conv2dLaunch conv2d_default(const Conv2dArgs<T>& a);

/// The index in `cfgs` of the configuration launch `l` names (every field it sets equal, the first
/// such). Throws std::invalid_argument naming `fn`, the first field no configuration has, and the
/// configurations, or saying that the fields belong to several.
int conv2d_pick_config(const std::vector<Conv2dLaunch>& cfgs, const Conv2dLaunch& l, const char* fn);

}  // namespace wb::tuned
