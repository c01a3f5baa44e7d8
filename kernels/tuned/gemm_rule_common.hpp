/// \file tuned/gemm_rule_common.hpp
/// \brief What the tuned GEMM's default rules share (host code): the splits of k they weigh
///        (the FMA kernels' rule, gemm_default_rule.cpp, and the tensor cores', dgemm_tc_rule.cpp),
///        and the second pass's rate and launch, which only the tensor cores' rule still reads
///        (the FMA kernels' split is weighed by chapter 6's derivation on the device's profile).
#pragma once

#include "derive/derivation.hpp"
#include "tuned/gemm_splitk.hpp"

#include <algorithm>
#include <vector>

namespace wb::tuned::rule {

constexpr double kSumBytesPerSecond = 2.5e12;  // below the H100's 3.0 and the H200's 4.3 TB/s read stream
constexpr double kSumLaunchSeconds = 4e-6;     // a dependent launch and its tail (chapter 0's overheads)

/// The splits the rules weigh: 2^j and 3 x 2^j up to kMaxSplit (1, 2, 3, 4, 6, 8, 12, 16, ...),
/// the values chapter 6's derivation takes (derive::gemm_split_candidates). Powers of two alone
/// leave gaps a wave wide (a split in 3 can fill one wave where 4 needs two).
inline const std::vector<int>& split_candidates() {
    static const std::vector<int> v = [] {
        std::vector<int> r;
        for (long long s : derive::gemm_split_candidates(splitk::kMaxSplit)) r.push_back(static_cast<int>(s));
        return r;
    }();
    return v;
}

}  // namespace wb::tuned::rule
