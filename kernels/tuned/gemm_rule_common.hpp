/// \file tuned/gemm_rule_common.hpp
/// \brief What the tuned GEMM's default rules share (host code): the second pass's and the
///        workspaces' limits, and the splits of k they weigh. Used by the FMA kernels' rule
///        (gemm_default_rule.cpp) and the tensor cores' (dgemm_tc_rule.cpp).
#pragma once

#include "tuned/gemm_splitk.hpp"

#include <algorithm>
#include <vector>

namespace wb::tuned::rule {

constexpr double kSumBytesPerSecond = 2.5e12;  // below the H100's 3.0 and the H200's 4.3 TB/s read stream
constexpr double kSumLaunchSeconds = 4e-6;     // a dependent launch and its tail (chapter 0's overheads)
constexpr double kMaxWorkspaceBytes = 512.0 * 1024 * 1024;  // each workspace the rule may ask for (split, pack, copy)

/// The splits the rule weighs: 2^j and 3 x 2^j up to splitk::kMaxSplit (1, 2, 3, 4, 6, 8, 12, 16, ...).
/// Powers of two alone leave gaps a wave wide (a split in 3 can fill one wave where 4 needs two).
inline const std::vector<int>& split_candidates() {
    static const std::vector<int> v = [] {
        std::vector<int> r;
        for (int p = 1; p <= splitk::kMaxSplit; p *= 2) {
            r.push_back(p);
            if (3 * p <= splitk::kMaxSplit) r.push_back(3 * p);
        }
        std::sort(r.begin(), r.end());
        return r;
    }();
    return v;
}

}  // namespace wb::tuned::rule
