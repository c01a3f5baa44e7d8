/// \file ladder_scope.hpp
/// \brief Which chapters' steps a registry lists. The ladder files (`kernels/<op>_ladder.cpp`) are
///        compiled once per chapter binary with WB_LADDER_MAX_CHAPTER = its chapter
///        (kernels/CMakeLists.txt), so chapter N's binary references, and links, only the steps
///        of chapters 1..N: `./workbook run ch01` compiles no kernel of a later chapter. The tests
///        link the highest chapter's registry, the whole ladder. See the architecture page,
///        docs/pages/architecture.md.
#pragma once

#ifndef WB_LADDER_MAX_CHAPTER
#error "WB_LADDER_MAX_CHAPTER must be defined: kernels/CMakeLists.txt compiles the ladders once per chapter"
#endif

namespace wb {

/// The highest chapter this registry lists.
inline constexpr int kLadderMaxChapter = WB_LADDER_MAX_CHAPTER;

/// Whether this registry lists the step of chapter `chapter`. A step is registered under
/// `if constexpr (ladder_lists(N))`: in a registry below N the step is a discarded statement, so
/// its launcher is never referenced and its stage library is not linked.
constexpr bool ladder_lists(int chapter) { return chapter <= kLadderMaxChapter; }

}  // namespace wb
