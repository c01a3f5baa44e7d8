/// \file stages.hpp
/// \brief The label of a table row: the stage table itself is common/stage.hpp (the one stage
///        vocabulary, which the models in common/ share).
#pragma once

#include "stage.hpp"

#include <string>

namespace wb {

/// "ch03 pattern" for a ladder step, `peer_name` for chapter 0: the label of a table row.
std::string step_label(int chapter, const std::string& peer_name);

}  // namespace wb
