// The GPU check of chapter 2's SYRK exercise (the generated per-variant tests): runs one
// launcher on a set of cases against the float64 reference and says what went wrong first.
#pragma once

#include "exercise_syrk.hpp"

#include <string>
#include <vector>

namespace wb::grade::test {

/// One graded case of SYRK.
struct SyrkCase {
    char uplo = 'L', trans = 'N';
    int n = 0, k = 0, lda = 0, ldc = 0;
    float alpha = 1, beta = 0;
    std::string label() const;
};

/// The cases: 1, primes, 2^k +- 1, k below and above the tile, lda > rows and ldc > n, both
/// triangles and transposes, beta 0 (C starts NaN), beta != 0, alpha 0 (A not read).
const std::vector<SyrkCase>& syrk_cases();

/// Runs `fn` on `c` (C's other triangle, its padding rows and a guard band after it hold a
/// sentinel; with beta == 0 the triangle starts NaN) and returns "" when the triangle is within
/// tolerance of the float64 reference and nothing else changed, else the first finding
/// ("wrote outside the triangle ...", "wrote into C's padding rows ...", "wrote past the end of C",
/// "wrong values ...", "error: ...").
std::string check_syrk(wb::ex::SyrkFn fn, const SyrkCase& c, unsigned long long seed);

/// Every case: "" or "<case>: <finding>".
std::string check_syrk_all(wb::ex::SyrkFn fn, unsigned long long seed);

/// Median milliseconds of `fn` on the timed case (the largest of the cases' kind), for the
/// known-wrong variant that must be right but much slower than the solution.
double time_syrk_ms(wb::ex::SyrkFn fn, unsigned long long seed);

}  // namespace wb::grade::test
