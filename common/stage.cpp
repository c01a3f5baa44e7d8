/// \file stage.cpp
/// \brief The stage table (stage.hpp).
#include "stage.hpp"

#include <stdexcept>

namespace wb {

const std::vector<StageInfo>& stages() {
    static const std::vector<StageInfo> table = {
#define WB_STAGE_ROW(e, chapter, name, folder, directory, title) {Stage::e, chapter, name, folder, directory, title},
        WB_STAGES(WB_STAGE_ROW)
#undef WB_STAGE_ROW
    };
    return table;
}

const StageInfo& stage_of(int chapter) {
    for (const auto& s : stages())
        if (s.chapter == chapter) return s;
    throw std::invalid_argument("stage_of: chapter (" + std::to_string(chapter) + ") must be in [1, " +
                                std::to_string(stages().size()) + "]");
}

const StageInfo& stage_info(Stage stage) { return stage_of(chapter_of(stage)); }

}  // namespace wb
