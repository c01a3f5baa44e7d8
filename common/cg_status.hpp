/// \file cg_status.hpp
/// \brief How a CG solve ended: the vocabulary the CG steps (kernels/cg.hpp) and the float64 CG
///        reference (reference_cg.hpp) share. Here in common/ because common/ includes nothing
///        from kernels/ (the architecture page, "Layers").
#pragma once

namespace wb {

/// How a solve ended.
enum class CgStatus {
    Converged,  ///< ||r|| <= tol ||b|| (recursive residual)
    MaxIter,    ///< max_iter iterations done without converging
    Breakdown,  ///< p.(A p) <= 0 (or not finite): A not SPD, or lost to rounding
};

/// "converged", "max_iter", "breakdown".
const char* cg_status_name(CgStatus s);

}  // namespace wb
