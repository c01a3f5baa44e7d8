/// \file launch_rows.hpp
/// \brief Chapter 6's --launches-csv: one row per swept launch of each case (the model's predicted
///        time beside the measured one), so that a model can be reworked and its ranking of the
///        launches recomputed offline (scripts/launch_ranks.py) without timing them again.
#pragma once

#include "derived_comparison.hpp"
#include "report.hpp"

#include <string>

namespace wb {
struct GemvLaunch;
struct GemmLaunch;
struct Conv2dLaunch;
struct SymvLaunch;
struct CgLaunch;
}  // namespace wb

namespace wb::ch06 {

/// Every field of a launch as "name=value" words, space-separated and in the struct's order,
/// defaults included (str() leaves some out): the CSV's `params` column, a launch's parameters
/// in a form a script splits without knowing the op.
std::string launch_params(const GemvLaunch& l);
std::string launch_params(const GemmLaunch& l);
std::string launch_params(const Conv2dLaunch& l);
std::string launch_params(const SymvLaunch& l);
std::string launch_params(const CgLaunch& l);

/// An empty table with the launches CSV's columns (Report::write_csv puts the run's metadata
/// columns first, as in every chapter's CSV): op, shape, precision, launch (its str()), is
/// derived, is default (1 or 0), predicted ms (the model's; "-" where it has none), measured ms,
/// params (launch_params).
Report launches_report();

/// Appends one row per launch of `c.swept_launches` (none where the case was not swept).
void add_launch_rows(Report& table, const Comparison& c);

}  // namespace wb::ch06
