/// \file tuned/dgemm_tc_rule.hpp
/// \brief The tensor-core DGEMM's default launch and legal launches, chosen on the host from the
///        shape of the call (the FMA kernels' rule is gemm_default_rule.hpp, which calls these for
///        double on a device with FP64 tensor cores).
///
/// The tile: the one of kDgemmTcTiles with the most of its area inside C (64 x 64 unless C has
/// 16 columns or rows or fewer). The split of k: the least predicted time over the splits the
/// FMA rule weighs, the time being waves of the occupancy calculator's resident blocks at the
/// SM's FP64 tensor-core rate, no faster than the call's bytes, plus the split's second pass.
#pragma once

#include "gemm.hpp"

#include <vector>

namespace wb::tuned {

/// The tensor-core launch of tile `index` of kDgemmTcTiles, split in `split` (<= 1: none). The
/// 64 x 64 tile leaves the tile fields 0.
GemmLaunch dgemm_tc_launch(int index, int split);
/// The default launch on the tensor cores of device `device`.
GemmLaunch dgemm_tc_default(const GemmArgs<double>& a, int device);
/// Whether the tensor cores beat the FMA kernels' pick `fma`: kTensorOverFmaRate x the fraction
/// of their tile grid inside C against the FMA tile's.
bool dgemm_tc_pays(const GemmArgs<double>& a, const GemmLaunch& fma);
/// Every tensor-core launch worth sweeping: each tile alone and with each split that keeps a
/// k-tile per slice, its partials within the workspace limit and at most two waves of blocks.
std::vector<GemmLaunch> dgemm_tc_launches(const GemmArgs<double>& a, int device);

}  // namespace wb::tuned
