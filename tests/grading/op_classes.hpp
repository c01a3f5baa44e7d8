// The shape classes of each op exercise's cases (the rubric's classes, grading_op.hpp): which
// classes a case of <op>_check.cpp counts in. A case may count in several (a small case with
// beta == 0 counts in "small" and in "beta0_poisoned"); every class holds at least one case
// (op_runner_main.cpp refuses to grade otherwise).
#pragma once

#include "cg_graph_check.hpp"
#include "cg_jacobi_check.hpp"
#include "gbmv_check.hpp"
#include "gemv_batched_check.hpp"
#include "separable_check.hpp"
#include "separable_padded_check.hpp"
#include "spmv_check.hpp"
#include "spmv_workspace_check.hpp"
#include "syrk_check.hpp"
#include "syrk_regblock_check.hpp"

#include <string>
#include <vector>

namespace wb::grade::test {

std::vector<std::string> op_classes(const GemvCase& c);
std::vector<std::string> op_classes(const SyrkCase& c);
std::vector<std::string> op_classes(const SeparableCase& c);
std::vector<std::string> op_classes(const SeparablePaddedCase& c);
std::vector<std::string> op_classes(const GbmvCase& c);
std::vector<std::string> op_classes(const SpmvCase& c);
std::vector<std::string> op_classes(const CgJacobiCase& c);
std::vector<std::string> op_classes(const CgGraphCase& c);

}  // namespace wb::grade::test
