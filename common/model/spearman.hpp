/// \file model/spearman.hpp
/// \brief Spearman's rank correlation (issue 40, item 3): how alike a model's predicted times and
///        the measured ones rank a set of launches. Chapter 6 asks for rho >= 0.8 over each op's
///        legal launches: a derivation that ranks launches with the model needs the model to rank
///        them as the card does, even where its absolute times are off.
#pragma once

#include <vector>

namespace wb::model {

/// Ranks of `v` from 1 (smallest), ties given the mean of the ranks they span (1, 2.5, 2.5, 4).
/// Throws std::invalid_argument when a value is not finite.
std::vector<double> ranks(const std::vector<double>& v);

/// Spearman's rho of x and y: the Pearson correlation of their ranks (ranks()), so ties are
/// handled exactly; 1 when they order alike, -1 when reversed. Throws std::invalid_argument when
/// the sizes differ, there are fewer than 2 values, a value is not finite, or either list has no
/// spread (all its values tie: no order to compare).
double spearman_rho(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace wb::model
