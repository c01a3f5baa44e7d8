// What the five ops' exercise checks share (gemv_batched_check.cpp, syrk_check.cpp,
// gbmv_check.cpp): the sentinel that marks memory a kernel must not write, the comparison of
// an output with its float64 reference, the walk over cases and grid modes, and the timing of
// the "correct but much slower" variants.
#pragma once

#include "harness.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace wb::grade::test {

/// Fills the memory around and between an output's entries: any change is a stray write.
constexpr float kSentinel = -12345.5f;

/// "" when every entry of `out` (where `is_entry`) is within `tol` of `ref` (in the entries'
/// order) and every other element still holds kSentinel bit for bit; else the finding:
/// "wrote <where(i)>" for the first stray write, or "wrong values: <first bad element>".
std::string compare_output(const std::vector<float>& out, const std::vector<bool>& is_entry,
                           const std::vector<double>& ref, double tol,
                           const std::function<std::string(std::size_t)>& where);

/// compare_output with the error measured against `scale` instead of `ref`: the float64 result of
/// the same operation on absolute values (|alpha| |A| |x| + |beta| |y|), the magnitude BLAS error
/// bounds use, so that cancellation in `ref` (a result near 0 from terms that are not) does not
/// hold a correct kernel to a tolerance below its rounding.
std::string compare_output_scaled(const std::vector<float>& out, const std::vector<bool>& is_entry,
                                  const std::vector<double>& ref, const std::vector<double>& scale, double tol,
                                  const std::function<std::string(std::size_t)>& where);

/// "" when every element of `buf` from index `from` on still holds kSentinel (a workspace's guard
/// band), else "wrote outside <name> (index <i>, past its end)" for the first that does not.
std::string check_guard(const std::vector<float>& buf, std::size_t from, const std::string& name);

/// The first failing case, in the grid as written and then (when `looped_too`) the looped grid:
/// "" or "<case label> (<grid>): <finding>".
template <class Case, class Check>
std::string first_failure(const std::vector<Case>& cases, Check check, bool looped_too) {
    for (const GridMode mode : {GridMode::as_written, GridMode::looped}) {
        if (mode == GridMode::looped && !looped_too) break;
        const GridModeScope scope(mode);
        for (const auto& c : cases) {
            const std::string why = check(c);
            if (!why.empty()) return c.label() + " (" + grid_mode_name(mode) + "): " + why;
        }
    }
    return "";
}

/// Median milliseconds of `launch` (common/bench, few repetitions: the slow variant may take
/// 100 ms a call).
double median_ms(const std::function<void(cudaStream_t)>& launch);

}  // namespace wb::grade::test
