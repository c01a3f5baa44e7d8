// The GPU check of chapter 2's separable-filter exercise (the generated per-variant tests): runs
// one launcher on a set of cases against the float64 reference and says what went wrong first.
#pragma once

#include "exercise_separable.hpp"

#include <string>
#include <vector>

namespace wb::grade::test {

/// One graded case of the separable filter.
struct SeparableCase {
    int rows = 0, cols = 0, fs = 1, in_pitch = 1, out_pitch = 1;
    std::string label() const;
};

/// The cases: fs from 1 to the largest, images smaller than the halo, single rows and columns,
/// sizes that are no multiple of the 32 x 8 block, pitches above cols.
const std::vector<SeparableCase>& separable_cases();

/// Runs `fn` on `c` (the image and the workspace sit inside larger buffers with other data
/// around them; out's pitch gaps and a guard band after it hold a sentinel) and returns "" when
/// out is within tolerance of the float64 reference and nothing else of it changed, else the
/// first finding ("wrote outside out ...", "wrong values ...", "error: ...").
std::string check_separable(wb::ex::SeparableFn fn, const SeparableCase& c, unsigned long long seed);

/// check_separable, or with `padded` on chapter 4's layout (exercise_separable_padded.hpp): tmp
/// of pitch out_pitch, rows 128-byte aligned, NaN in the padding of in's rows.
std::string check_separable_layout(wb::ex::SeparableFn fn, const SeparableCase& c, unsigned long long seed, bool padded);

/// Every case: "" or "<case>: <finding>".
std::string check_separable_all(wb::ex::SeparableFn fn, unsigned long long seed);

/// Median milliseconds of `fn` on a 4096 x 4096 image with fs = 15.
double time_separable_ms(wb::ex::SeparableFn fn, unsigned long long seed);

}  // namespace wb::grade::test
