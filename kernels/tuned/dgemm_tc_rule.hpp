/// \file tuned/dgemm_tc_rule.hpp
/// \brief The tensor-core DGEMM's tile and split of k, and its legal launches, chosen on the host
///        from the shape of the call: where chapter 6's derivation (rule 2, the math units) takes
///        the tensor cores, the default launch (gemm_default_rule.cpp) takes their tile and split
///        from here.
///
/// The tile: the one of kDgemmTcTiles with the most of its area inside C (64 x 64 unless C has 16
/// columns or rows or fewer); for C of a wave of tiles or more (64 x 64 unsplit) with 16-byte
/// aligned operands, 96 x 128 where its predicted time is within 3% of 64 x 64's (it moves less per
/// flop, which the board's power limit turns into clock: dgemm_tc_rule.cpp). The split of k: the
/// least predicted time over the splits the FMA rule weighs, the time being waves of the occupancy
/// calculator's resident blocks at the SM's FP64 tensor-core rate, no faster than the call's bytes,
/// plus the split's second pass.
#pragma once

#include "gemm.hpp"
#include "device_profile.hpp"

#include <vector>

namespace wb::tuned {

/// The tensor-core launch of tile `index` of kDgemmTcTiles, split in `split` (<= 1: none). The
/// 64 x 64 tile leaves the tile fields 0.
GemmLaunch dgemm_tc_launch(int index, int split);
/// The default launch on the tensor cores of device `device`.
GemmLaunch dgemm_tc_default(const GemmArgs<double>& a, int device);
/// The same rule for the device a profile describes (a launch predicted without running there:
/// its SMs, clock and bandwidth, the tiles' blocks per SM as compiled for sm_90).
GemmLaunch dgemm_tc_default(const GemmArgs<double>& a, const DeviceProfile& dev);
/// Every tensor-core launch worth sweeping: each tile alone and with each split that keeps a
/// k-tile per slice, its partials within the workspace limit and at most two waves of blocks.
std::vector<GemmLaunch> dgemm_tc_launches(const GemmArgs<double>& a, int device);

}  // namespace wb::tuned
