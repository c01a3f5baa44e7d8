// The GPU check of chapter 4's SPMV exercise (with a workspace): chapter 3's cases and float64
// reference (spmv_check.hpp), the workspace poisoned on entry and guarded after its end, and
// every case run twice: the two results must agree bit for bit.
#pragma once

#include "exercise_spmv_workspace.hpp"
#include "spmv_check.hpp"

#include <string>
#include <vector>

namespace wb::grade::test {

/// Chapter 3's cases (spmv_cases()), one shape class list with them.
inline const std::vector<SpmvCase>& spmv_workspace_cases() { return spmv_cases(); }

/// Runs `fn` on `c` twice (AP and x inside larger buffers with other data around them; y followed
/// by a sentinel; work NaN on entry each time, followed by a sentinel) and returns "" when y is
/// within tolerance of the float64 reference, nothing after y or work changed and the second run
/// gave the same y bit for bit, else the first finding ("wrote outside y ...", "wrote outside
/// work ...", "wrong values ...", "not deterministic ...", "error: ...").
std::string check_spmv_workspace(wb::ex::SpmvWorkspaceFn fn, const SpmvCase& c, unsigned long long seed);

/// Every case, in the grid as written and the looped grid: "" or "<case> (<grid>): <finding>".
std::string check_spmv_workspace_all(wb::ex::SpmvWorkspaceFn fn, unsigned long long seed);

/// Median milliseconds of `fn` on n = 8192, lower.
double time_spmv_workspace_ms(wb::ex::SpmvWorkspaceFn fn, unsigned long long seed);

}  // namespace wb::grade::test
