/// \file registry.hpp
/// \brief The compiled exercise variants a runner program knows: the build generates the
///        table (exercises/CMakeLists.txt, wb_exercise_registry()), one entry per compiled
///        transpose.cu (submission, reference, stub or known-wrong variant).
#pragma once

#include "exercise_transpose.hpp"

#include <string>
#include <vector>

namespace wb::grade {

struct Variant {
    std::string name;     ///< e.g. sub_ch03_pattern, ref_ch03_pattern, wrong_missing_barrier
    std::string chapter;  ///< e.g. ch03_pattern: the chapter whose reference it is graded against
    ex::TransposeFn transpose = nullptr;
    ex::TransposeFn transpose_diagonal = nullptr;  ///< chapter 4 only
};

/// Every variant compiled into this program (defined by the generated registry source).
const std::vector<Variant>& variants();

/// The variant called `name`; throws std::invalid_argument listing the known names.
const Variant& find_variant(const std::string& name);

}  // namespace wb::grade
