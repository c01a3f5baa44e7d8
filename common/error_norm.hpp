/// \file error_norm.hpp
/// \brief How close a result is to its float64 reference, and how close it must be.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace wb {

/// ||out - ref||_2 / ||ref||_2 (absolute norm when ||ref|| is 0); +Inf when any out is NaN/Inf.
template <class T>
double relative_error(const std::vector<T>& out, const std::vector<double>& ref);

/// The bound for a result whose every element is a sum of `k` products in precision T:
/// c * eps(T) * sqrt(k) with c = 8 (float about 1e-6 x sqrt(k)), floored at 4 eps.
template <class T>
double tolerance(std::size_t k);

/// Index and values of the first element that is NaN/Inf or off by more than the tolerance,
/// as one line for a failure message; empty when none.
template <class T>
std::string first_bad_element(const std::vector<T>& out, const std::vector<double>& ref, double tol);

}  // namespace wb
