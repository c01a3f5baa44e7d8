/// \file ladder_chapter.hpp
/// \brief The main() of every ladder chapter binary (ch01..ch05): for each selected op (--op,
///        default all registered ops, ops.hpp), this chapter's step against the previous step,
///        the naive step, the op's peer and its ceiling, with the model's prediction beside each
///        measurement; without a GPU (or with --device-preset) the predictions only.
///        See docs/pages/architecture.md for the data flow.
#pragma once

#include "report.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace wb {

/// The main() of ladder chapter `chapter` (1..5; its name and title come from kernels/stages.hpp).
/// Returns the process exit code: 0, 1 when a step failed its check or a run failed, 2 on a
/// usage error, 3 when cases were skipped because they do not fit in memory, 128 + the signal
/// (130, 143) when SIGINT or SIGTERM stopped a measured run.
int run_ladder_chapter(int argc, char** argv, int chapter);

/// Appends the last row of a CSV (columns `cols`) whose run `sig` stopped: "(incomplete)" in the
/// first column, "stopped by SIGINT" in the step column and "the run was stopped: the N rows
/// above are what it measured" in the note (else the last) column, so that a reader or a plot
/// cannot take the file for a finished run. Nothing without a path.
void mark_csv_incomplete(const std::string& path, const std::vector<std::string>& cols, const RunMetadata& meta,
                         int sig, std::size_t rows);

}  // namespace wb
