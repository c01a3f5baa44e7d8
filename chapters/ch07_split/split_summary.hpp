/// \file split_summary.hpp
/// \brief How chapter 7 judges its model against its measurements (pure host code, unit-tested):
///        the measured best way of each row, whether the model's choice is it (or within 5% of
///        it), how close each predicted column comes, the hybrid's gains, and the crossover sizes.
#pragma once

#include "split_cases.hpp"
#include "split_measure.hpp"

#include <string>
#include <vector>

namespace wb::ch07 {

/// One row of the table: what was run, predicted and measured.
struct RowResult {
    Case c;
    CasePrediction p;
    Measured m;
};

/// The hybrid's measured time: the hybrid's own where it ran, else the way it is at its share (all
/// rows on the CPU: the CPU's time; all on the GPU: the GPU's).
double hybrid_or_its_side(const RowResult& r);
/// The fastest measured way: "CPU", "GPU" or "hybrid" (the hybrid only where it ran: at a share of
/// 0 or 1 it is one of the others); "-" where the CPU or the GPU column is missing.
std::string measured_best(const RowResult& r);
/// The measured time of the way `where` ("CPU", "GPU", "hybrid"; NaN for "-").
double measured_of(const RowResult& r, const std::string& where);
/// The model's choice's measured time over the best measured time (1 when the choice is the best;
/// NaN where not measured).
double choice_over_best(const RowResult& r);
/// A hit: the model chose the measured best way, or one within `tol` (5%) of it.
bool is_hit(const RowResult& r, double tol = 0.05);

/// |model / measured - 1| <= tol for a column ("cpu", "gpu", "hybrid"); false where not measured.
bool within(double model_ms, double measured_ms, double tol = 0.15);

/// The smallest size of a group (one op, precision and FS, sorted by n) whose way is not the CPU,
/// by the model's choice (`predicted`) or by the measured best; -1 where every size stays on the
/// CPU (or nothing was measured).
int crossover(const std::vector<RowResult>& group, bool predicted);

/// The lines after the table: the hit rate, the columns within 15%, the hybrid's gains, where it
/// was chosen but lost, and how many rows predicted a hybrid gain smaller than the run's margin
/// (split::Prediction::margin; every row predicted, measured or not). Rows without measured GPU
/// columns are left out of the others (and counted).
std::vector<std::string> summary_lines(const std::vector<RowResult>& rows);

/// The two arms of an A/B of the balanced rows, as balanced_lines names them: arm a's time is
/// Measured::hybrid_ms, arm b's Measured::balanced_ms. By default --balance-ab's.
struct AbNames {
    std::string a = "fixed share", a_short = "fixed", b = "balanced";
};
/// --balance-ab: the balanced hybrid against the fixed share at the rows where both ran (timed in
/// the same rounds): how many of them the balanced call was faster, the median of balanced over
/// fixed, and the summary's two decision counts for each (predicted gains of >= 15% measured
/// >= 10%; the model's chosen hybrids slower than the better single side). Empty where no
/// balanced call ran. `names`: other arms (--first-issue-ab).
std::vector<std::string> balanced_lines(const std::vector<RowResult>& rows, const AbNames& names = {});
/// --first-issue-ab's arms: "balanced call as it is" and "first issue P pieces" (P to 2 decimals).
AbNames first_issue_names(double first_issue);
/// --first-issue-ab: "balanced rows whose two arms differ in their first issue (rounded up to whole
/// chunks): k of n", over the rows that ran a balanced call (Measured::balanced_pieces > 1), from
/// their plans (first_issue_arms_differ).
std::string first_issue_rows_line(const std::vector<RowResult>& rows, double first_issue);

/// --depth-ab's arms: at each row where both ran at different depths, "gemm float 4096: 16 chunks
/// 5.785 ms, 8 chunks 5.297 ms, x0.916" (arm a, the row's depth, in the hybrid column; arm b, at
/// depth_b(its depth, scale), in the balanced column), then per op and overall the median of b over
/// a and how many rows b was faster ("gemm: 8 chunks over 16 ..."). Empty where no row has both.
std::vector<std::string> depth_ab_lines(const std::vector<RowResult>& rows, double scale);

/// The rows whose CPU peer and hybrid traded places every other round (Measured::cpu_first_ms and
/// the three beside it): the median over the rows of each call's time in its second place over
/// its first, and the CPU model's count within 15% of the CPU peer in each place. Empty where no
/// row has them (--fixed-order, an A/B, no GPU).
std::vector<std::string> place_lines(const std::vector<RowResult>& rows);

/// CG's rows below `cg_iterations` (their solves do n iterations: cg_solve_iterations), one line
/// for them all, then a line per GPU solve that stopped before its row's iterations
/// (Measured::cg_stopped_at: "cg float n=2: the all-GPU solve stopped after 1 of 2 iterations
/// ..."). Empty where neither.
std::vector<std::string> cg_iteration_lines(const std::vector<RowResult>& rows, int cg_iterations);

/// The first cells of a case's row in the chapter's tables (the run's, the replay's, the
/// crossovers'): op, T ("float" or "double") and FS ("-" for the ops without a filter).
std::vector<std::string> case_cells(const Case& c);

/// The rows grouped by op, precision and FS, each group sorted by n (table order of first sight).
std::vector<std::vector<RowResult>> groups(const std::vector<RowResult>& rows);

}  // namespace wb::ch07
