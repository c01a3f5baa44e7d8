// The GPU check of chapter 4's separable-filter exercise (padded, aligned rows): chapter 2's
// check (separable_check.hpp) on chapter 4's layout, with cases whose pitches are multiples of 32.
#pragma once

#include "exercise_separable_padded.hpp"
#include "separable_check.hpp"

#include <string>
#include <vector>

namespace wb::grade::test {

/// One graded case of the padded layout (a SeparableCase whose pitches are multiples of 32).
struct SeparablePaddedCase : SeparableCase {};

/// The cases: fs from 1 to the largest; images smaller than the halo; single rows and columns;
/// cols a multiple of 4 and not (the last float4 of a row straddles the padding), of 128 and
/// not; pitches from cols rounded up to 32 to several hundred floats beyond it.
const std::vector<SeparablePaddedCase>& separable_padded_cases();

/// Runs `fn` on `c` (check_separable_layout, padded) and returns "" or the first finding.
std::string check_separable_padded(wb::ex::SeparableFn fn, const SeparablePaddedCase& c, unsigned long long seed);

/// Every case: "" or "<case>: <finding>".
std::string check_separable_padded_all(wb::ex::SeparableFn fn, unsigned long long seed);

/// Median milliseconds of `fn` on a 4096 x 4096 image (pitch 4096) with fs = 15.
double time_separable_padded_ms(wb::ex::SeparableFn fn, unsigned long long seed);

}  // namespace wb::grade::test
