/// \file stage.hpp
/// \brief The one stage vocabulary (the architecture page, "The stages"): each ladder step's
///        chapter, its name (the Step's `stage`, the word the CLI and the CSV print), its kernel
///        folder `kernels/<folder>/`, its chapter directory and its title, in one table,
///        WB_STAGES. Nothing else maps one of these to another; code names a stage by the enum
///        `Stage`, never by its string.
#pragma once

#include <string>
#include <vector>

/// Every ladder stage in ladder order, one line each: X(enumerator, chapter, name, folder,
/// directory, title). Adding a stage is one line here (a later chapter may share a folder:
/// chapters 6 and 7 derive launches and splits for the kernels of `kernels/tuned`).
#define WB_STAGES(X)                                                                                  \
    X(kNaive, 1, "naive", "naive", "ch01_global", "the global-memory baseline: one thread per result") \
    X(kShared, 2, "shared", "shared", "ch02_shared", "shared and constant memory")                    \
    X(kPattern, 3, "pattern", "pattern", "ch03_pattern", "the optimized computation pattern")         \
    X(kAccess, 4, "access", "access", "ch04_access", "the optimized access pattern")                  \
    X(kTuned, 5, "tuned", "tuned", "ch05_unrolled", "fine-tuning: unrolled, vectorized, prefetched")

namespace wb {

/// A ladder stage; its value is its chapter.
enum class Stage {
#define WB_STAGE_ENUMERATOR(e, chapter, name, folder, directory, title) e = chapter,
    WB_STAGES(WB_STAGE_ENUMERATOR)
#undef WB_STAGE_ENUMERATOR
};

struct StageInfo {
    Stage stage;
    int chapter;            ///< 1, 2, ... (0 is the peer, the vendor library: no stage)
    const char* name;       ///< "naive" ... "tuned": the Step's stage, the CLI's and the CSV's word
    const char* folder;     ///< the kernels' folder `kernels/<folder>/`
    const char* directory;  ///< the chapter's directory and binary, e.g. "ch03_pattern"
    const char* title;      ///< one line, e.g. "the optimized computation pattern"
};

/// The ladder's stages in order (the rows of WB_STAGES).
const std::vector<StageInfo>& stages();

/// The row of `stage`.
const StageInfo& stage_info(Stage stage);

/// The stage of `chapter`; throws std::invalid_argument naming the rule where no stage has it.
const StageInfo& stage_of(int chapter);

/// The chapter that introduces `stage`.
inline int chapter_of(Stage stage) { return static_cast<int>(stage); }

/// "naive" ... "tuned".
inline const char* stage_name(Stage stage) { return stage_info(stage).name; }

}  // namespace wb
