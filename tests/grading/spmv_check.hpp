// The GPU check of chapter 3's SPMV exercise (the generated per-variant tests): runs one
// launcher on a set of cases against the float64 reference and says what went wrong first.
#pragma once

#include "exercise_spmv.hpp"

#include <string>
#include <vector>

namespace wb::grade::test {

/// One graded case of SPMV.
struct SpmvCase {
    char uplo = 'L';
    int n = 0;
    float alpha = 1, beta = 0;
    std::string label() const;
};

/// The cases: both triangles; n = 1, 2, primes, 2^k +- 1 around the 256-thread column walk;
/// beta 0 (y starts NaN) and beta != 0; more columns than the looped grid covers.
const std::vector<SpmvCase>& spmv_cases();

/// The magnitude of every entry of y = alpha A x + beta y: the float64 reference on absolute
/// values (compare_output_scaled's scale; beta 0 reads no y).
std::vector<double> spmv_magnitude(const wb::ex::SpmvArgs& a, const std::vector<float>& AP,
                                   const std::vector<float>& x, const std::vector<float>& y);

/// Runs `fn` on `c` (AP and x sit inside larger buffers with other data before and after them; a
/// guard band after y holds a sentinel) and returns "" when y is within tolerance of the float64
/// reference and nothing after it changed, else the first finding ("wrote outside y ...",
/// "wrong values ...", "error: ...").
std::string check_spmv(wb::ex::SpmvFn fn, const SpmvCase& c, unsigned long long seed);

/// Every case, in the grid as written and the looped grid: "" or "<case> (<grid>): <finding>".
std::string check_spmv_all(wb::ex::SpmvFn fn, unsigned long long seed);

/// Median milliseconds of `fn` on the timed case, for the variant that must be right but much
/// slower than the solution.
double time_spmv_ms(wb::ex::SpmvFn fn, unsigned long long seed);

}  // namespace wb::grade::test
