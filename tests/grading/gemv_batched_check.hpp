// The GPU check of chapter 1's batched-GEMV exercise (test_exercise_gemv_batched_gpu.cpp and the
// generated per-variant tests): runs one launcher on a set of cases against the float64
// reference and says what went wrong first.
#pragma once

#include "exercise_gemv_batched.hpp"

#include <string>
#include <vector>

namespace wb::grade::test {

/// One graded case of the batched GEMV (strides = the minimum + the padding).
struct GemvCase {
    char trans = 'N';
    int m = 0, n = 0, batch = 0, lda = 0, incx = 1, incy = 1;
    long long padA = 0, padx = 0, pady = 0;
    float alpha = 1, beta = 0;
    std::string label() const;
};

/// The cases: sizes 1, primes, 2^k +- 1, tall and wide, lda > m, increments 2 and 3, beta 0
/// (y starts NaN), beta != 0, and a batch of many small products.
const std::vector<GemvCase>& gemv_batched_cases();

/// Runs `fn` on `c` (y's gaps and a guard band after it hold a sentinel; with beta == 0 y's
/// entries start NaN) and returns "" when every entry is within tolerance of the float64
/// reference and nothing else of y changed, else the first finding ("wrote outside y ...",
/// "wrong values ...", "error: ...").
std::string check_gemv_batched(wb::ex::GemvBatchedFn fn, const GemvCase& c, unsigned long long seed);

/// Every case, in the grid as written and the looped grid: "" or "<case> (<grid>): <finding>".
std::string check_gemv_batched_all(wb::ex::GemvBatchedFn fn, unsigned long long seed);

/// Median milliseconds of `fn` on the timed case (the largest of the cases' kind), for the
/// known-wrong variant that must be right but much slower than the solution.
double time_gemv_batched_ms(wb::ex::GemvBatchedFn fn, unsigned long long seed);

}  // namespace wb::grade::test
