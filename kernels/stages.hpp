/// \file stages.hpp
/// \brief The one stage vocabulary (see docs/pages/architecture.md): each ladder step's chapter,
///        its stage name (the kernel folder `kernels/<stage>/` and the Step's `stage`), its chapter
///        directory and its title. Nothing else maps one of these to another.
#pragma once

#include <string>
#include <vector>

namespace wb {

struct StageInfo {
    int chapter;            ///< 1..5 (0: the peer, the vendor library)
    const char* stage;      ///< "naive" ... "tuned": the folder `kernels/<stage>/`
    const char* directory;  ///< the chapter's directory and binary, e.g. "ch03_pattern"
    const char* title;      ///< one line, e.g. "the optimized computation pattern"
};

/// The ladder's stages in order, chapters 1..5.
const std::vector<StageInfo>& stages();

/// The stage of `chapter` (1..5); throws std::invalid_argument naming the rule otherwise.
const StageInfo& stage_of(int chapter);

/// "ch03 pattern" for a ladder step, `peer_name` for chapter 0: the label of a table row.
std::string step_label(int chapter, const std::string& peer_name);

}  // namespace wb
