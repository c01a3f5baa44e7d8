/// \file cublas_handle.hpp
/// \brief cuBLAS handles for the peers (the vendor library every op is compared with): one per
///        host thread, device and math mode, created on first use with host pointer mode, kept
///        for the life of the thread. SYMV's atomics mode or GEMM's pedantic math stay in their
///        own handle and never leak into another op's calls.
#pragma once

#include <cublas_v2.h>

namespace wb {

/// The handle of the current device for `math` (CUBLAS_DEFAULT_MATH, CUBLAS_PEDANTIC_MATH, ...)
/// and `atomics` (cublasSetAtomicsMode). Checked: a failure throws with file, line and the status.
cublasHandle_t cublas_handle(cublasMath_t math = CUBLAS_DEFAULT_MATH,
                             cublasAtomicsMode_t atomics = CUBLAS_ATOMICS_NOT_ALLOWED);

}  // namespace wb
