// The GPU check of chapter 5's SYRK exercise (register blocking): chapter 2's SYRK check
// (syrk_check.hpp: the same contract, cases, float64 reference and timed case), with the looped
// grid too, since this launcher takes its grid from grid_for().
#pragma once

#include "exercise_check.hpp"
#include "syrk_check.hpp"

namespace wb::grade::test {

inline const std::vector<SyrkCase>& syrk_regblock_cases() { return syrk_cases(); }

inline std::string check_syrk_regblock(wb::ex::SyrkFn fn, const SyrkCase& c, unsigned long long seed) {
    return check_syrk(fn, c, seed);
}

/// Every case, in the grid as written and the looped grid: "" or "<case> (<grid>): <finding>".
inline std::string check_syrk_regblock_all(wb::ex::SyrkFn fn, unsigned long long seed) {
    return first_failure(syrk_cases(), [&](const SyrkCase& c) { return check_syrk(fn, c, seed); }, true);
}

inline double time_syrk_regblock_ms(wb::ex::SyrkFn fn, unsigned long long seed) { return time_syrk_ms(fn, seed); }

}  // namespace wb::grade::test
