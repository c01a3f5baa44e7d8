/// \file compare.hpp
/// \brief The output check every op shares: a computed result against its float64 reference,
///        norm-wise against BLAS's error scale, with NaN/Inf always failing and the first element
///        that is wrong outright named for the failure message.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace wb {

/// Result of one checked call.
struct CheckResult {
    double rel_error = 0;   ///< ||out - ref|| / ||scale|| (+Inf when an element is NaN or Inf)
    double tolerance = 0;   ///< bound for this precision and reduction length (error_norm.hpp's tolerance)
    std::string first_bad;  ///< first offending element, empty when none
    bool ok() const { return rel_error <= tolerance && first_bad.empty(); }
};

/// Compares `out` with `ref` (same length). `scale` is the right-hand side of BLAS's component-wise
/// error bound, |out - ref| <= c k eps scale (for GEMV |alpha||op(A)||x| + |beta||y|, for GEMM
/// |alpha||op(A)||op(B)| + |beta||C|), element by element; empty means |ref|. `k` is the length
/// of the reduction behind each element (it sets the tolerance).
/// - Norm-wise: rel_error = ||out - ref|| / ||scale||, +Inf when any element is NaN or Inf; the
///   result passes when rel_error <= tolerance<T>(k) and no element is wrong outright.
/// - Element-wise: the first element with |out - ref| > 8 eps k scale (loose on purpose: it names
///   the element that is wrong outright — unwritten, garbage — rather than grading rounding).
template <class T>
CheckResult compare_output(const std::vector<T>& out, const std::vector<double>& ref,
                           const std::vector<double>& scale, std::size_t k);

}  // namespace wb
