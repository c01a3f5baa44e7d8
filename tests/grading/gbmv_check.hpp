// The GPU check of chapter 3's GBMV exercise (the generated per-variant tests): runs one
// launcher on a set of cases against the float64 reference and says what went wrong first.
#pragma once

#include "exercise_gbmv.hpp"

#include <string>
#include <vector>

namespace wb::grade::test {

/// One graded case of GBMV.
struct GbmvCase {
    char trans = 'N';
    int m = 0, n = 0, kl = 0, ku = 0, lda = 0, incx = 1, incy = 1;
    float alpha = 1, beta = 0;
    std::string label() const;
};

/// The cases: diagonal only, one-sided bands, bands wider than the matrix, tall and wide, lda
/// above kl + ku + 1, increments 2 and 3, beta 0 (y starts NaN) and beta != 0, more row blocks
/// than the looped grid covers.
const std::vector<GbmvCase>& gbmv_cases();

/// Runs `fn` on `c` (the band array and x sit inside larger buffers with other data before and
/// after them; y's gaps and a guard band after it hold a sentinel) and returns "" when y is
/// within tolerance of the float64 reference and nothing else of y changed, else the first
/// finding ("wrote outside y ...", "wrong values ...", "error: ...").
std::string check_gbmv(wb::ex::GbmvFn fn, const GbmvCase& c, unsigned long long seed);

/// Every case, in the grid as written and the looped grid: "" or "<case> (<grid>): <finding>".
std::string check_gbmv_all(wb::ex::GbmvFn fn, unsigned long long seed);

/// Median milliseconds of `fn` on the timed case, for the variant that must be right but much
/// slower than the solution.
double time_gbmv_ms(wb::ex::GbmvFn fn, unsigned long long seed);

}  // namespace wb::grade::test
