/// \file derive/rank_correlation.hpp
/// \brief Spearman's rank correlation: how alike two lists order the same items. Chapter 6 asks
///        it of the model's predicted times and the measured times over one case's legal
///        launches: the derivation ranks launches with the model, so the model must rank them as
///        the GPU does (rho = 1: the same order; 0: unrelated; -1: reversed).
#pragma once

#include <vector>

namespace wb::derive {

/// The ranks of `v` (1 = the smallest), ties sharing the mean of the ranks they span
/// ({5, 1, 5} -> {2.5, 1, 2.5}).
std::vector<double> ranks(const std::vector<double>& v);

/// Spearman's rho of `a` and `b` (paired, same length): the Pearson correlation of their ranks,
/// which with ties is the form that stays in [-1, 1]. NaN where fewer than 2 pairs or where either
/// list has all values equal (no order to compare). Throws std::invalid_argument when the lengths
/// differ or a value is NaN.
double spearman_rho(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace wb::derive
