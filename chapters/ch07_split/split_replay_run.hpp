/// \file split_replay_run.hpp
/// \brief `ch07_split --replay RUN.txt RUN.csv`: the model replayed on a finished run, printed as
///        the chapter prints its own (the table, the summary, the crossovers), with no device and
///        no timing. Everything the model predicts with is read back from the run's log
///        (split_replay.hpp), the measured columns from its CSV; `--margin M` replays it with the
///        hybrid's margin M in place of the run's. A learner replays the kept H200 runs
///        (tests/data) on any machine, and a change of the model is judged on a measured run.
#pragma once

#include <iosfwd>
#include <string>

namespace wb::ch07 {

/// Replays the run of `log_path` and `csv_path` on `out`. `margin` < 0: the run's own; else the
/// gain over the better single side the model needs to choose a hybrid that runs at a fixed share
/// (Machines::hybrid_margin; the rows the balanced call runs keep theirs, Machines::balanced_margin).
/// Returns 0; throws std::invalid_argument where a file is missing or lacks a line or column the
/// replay needs (the message names it).
int replay_run(const std::string& log_path, const std::string& csv_path, double margin, std::ostream& out);

}  // namespace wb::ch07
