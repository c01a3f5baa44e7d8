/// \file gemm_epilogue_source.hpp
/// \brief Where the GEMM model reads the measured epilogue bandwidth of chapter 5's kernels
///        (tuned::gemm_kernel_rates): the tuned library sets the source where it is linked
///        (kernels/tuned/gemm_kernel_rates.cpp); a binary that stops before chapter 5 has none,
///        and reads 0 (not measured), as the model's earlier steps do.
#pragma once

#include "gemm.hpp"

namespace wb {

/// The epilogue bandwidth (GB/s) of the chapter 5 kernel that launch `l` runs in this precision
/// (4 or 8 bytes), measured on this device where `live`, else the H200's; 0 where none is known.
using GemmEpilogueSource = double (*)(const GemmLaunch& l, int elem_bytes, bool live);

/// Sets the source (the tuned library, at its static initialization).
void set_gemm_epilogue_source(GemmEpilogueSource source);
/// The source's answer, or 0 where no source is linked.
double gemm_epilogue_gbs(const GemmLaunch& l, int elem_bytes, bool live);

}  // namespace wb
