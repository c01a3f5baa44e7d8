/// \file stages.cpp
/// \brief The label of a table row (stages.hpp).
#include "stages.hpp"

namespace wb {

std::string step_label(int chapter, const std::string& peer_name) {
    if (chapter == 0) return peer_name;
    return std::string("ch0") + std::to_string(chapter) + " " + stage_of(chapter).name;
}

}  // namespace wb
