/// \file split_crossover_table.hpp
/// \brief Chapter 7's crossover table, printed after a run's rows and after a replay's: per op,
///        precision and FS, the smallest size not on the CPU by the model's choice and by the
///        measured best (split_summary.hpp's crossover).
#pragma once

#include "split_summary.hpp"

#include "report.hpp"

#include <vector>

namespace wb::ch07 {

/// One row per group of `rows` (groups()): its sizes, the predicted crossover and the measured one
/// ('-': every size on the CPU).
Report crossover_table(const std::vector<RowResult>& rows);

}  // namespace wb::ch07
