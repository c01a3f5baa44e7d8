/// \file gemv_chapter.hpp
/// \brief What every ladder chapter binary (ch01..ch05) does for GEMV: run its step against the
///        previous step, the naive step, cuBLAS and the measured ceilings, with the model's
///        prediction beside each measurement; or, without a GPU, print the predictions only.
#pragma once

#include <string>

namespace wb {

struct ChapterInfo {
    int chapter;            ///< 1..5: the ladder step this chapter introduces
    std::string name;       ///< binary name, e.g. "ch03_pattern"
    std::string title;      ///< one line, e.g. "the optimized computation pattern"
};

/// The main() of a ladder chapter. Returns the process exit code.
int run_ladder_chapter(int argc, char** argv, const ChapterInfo& info);

}  // namespace wb
