// The GPU check of chapter 4's CG-update exercise (the generated per-variant tests): runs one
// launcher on a set of cases against the float64 reference and says what went wrong first.
#pragma once

#include "exercise_cg_jacobi.hpp"

#include <string>
#include <vector>

namespace wb::grade::test {

/// One graded case of the fused preconditioned update.
struct CgJacobiCase {
    int n = 0, len = 0;
    float alpha = 0;
    std::string label() const;
};

/// The cases: len 0 and padding only; n below, at and far below len; one block to thousands
/// (more float4s than the looped grid covers); a few blocks, where one block's share of r.z is a
/// large part of it.
const std::vector<CgJacobiCase>& cg_jacobi_cases();

/// Runs `fn` on `c` (p, q and dinv sit inside larger buffers with other data before and after
/// them; x, r and z are followed by a sentinel, z starts NaN, *rz starts NaN between sentinels)
/// and returns "" when x, r, z and rz are within tolerance of the float64 reference and nothing
/// else changed, else the first finding ("wrote outside x ...", "wrong values in r ...",
/// "error: ...").
std::string check_cg_jacobi(wb::ex::CgJacobiFn fn, const CgJacobiCase& c, unsigned long long seed);

/// Every case, in the grid as written and the looped grid: "" or "<case> (<grid>): <finding>".
std::string check_cg_jacobi_all(wb::ex::CgJacobiFn fn, unsigned long long seed);

/// Median milliseconds of `fn` on the timed case, for the variant that must be right but much
/// slower than the solution.
double time_cg_jacobi_ms(wb::ex::CgJacobiFn fn, unsigned long long seed);

}  // namespace wb::grade::test
