/// \file ladder_chapter.hpp
/// \brief The main() of every ladder chapter binary (ch01..ch05): for each selected op (--op,
///        default all registered ops, ops.hpp), this chapter's step against the previous step,
///        the naive step, the op's peer and its ceiling, with the model's prediction beside each
///        measurement; without a GPU (or with --device-preset) the predictions only.
///        See docs/pages/architecture.md for the data flow.
#pragma once

namespace wb {

/// The main() of ladder chapter `chapter` (1..5; its name and title come from kernels/stages.hpp).
/// Returns the process exit code: 0, 1 when a step failed its check or a run failed, 2 on a
/// usage error.
int run_ladder_chapter(int argc, char** argv, int chapter);

}  // namespace wb
