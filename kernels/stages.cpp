/// \file stages.cpp
/// \brief The stage table (stages.hpp).
#include "stages.hpp"

#include <stdexcept>

namespace wb {

const std::vector<StageInfo>& stages() {
    static const std::vector<StageInfo> table = {
        {1, "naive", "ch01_global", "the global-memory baseline: one thread per result"},
        {2, "shared", "ch02_shared", "shared and constant memory"},
        {3, "pattern", "ch03_pattern", "the optimized computation pattern"},
        {4, "access", "ch04_access", "the optimized access pattern"},
        {5, "tuned", "ch05_unrolled", "fine-tuning: unrolled, vectorized, prefetched"},
    };
    return table;
}

const StageInfo& stage_of(int chapter) {
    for (const auto& s : stages())
        if (s.chapter == chapter) return s;
    throw std::invalid_argument("stage_of: chapter (" + std::to_string(chapter) + ") must be in [1, " +
                                std::to_string(stages().size()) + "]");
}

std::string step_label(int chapter, const std::string& peer_name) {
    if (chapter == 0) return peer_name;
    return std::string("ch0") + std::to_string(chapter) + " " + stage_of(chapter).stage;
}

}  // namespace wb
