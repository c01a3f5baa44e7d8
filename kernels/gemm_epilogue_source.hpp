/// \file gemm_epilogue_source.hpp
/// \brief Where the GEMM model reads what tuned::gemm_kernel_rates measured of chapter 5's
///        kernels, their epilogue bandwidth and their main loop's time on one call: the tuned
///        library sets the sources where it is linked (kernels/tuned/gemm_kernel_rates.cpp); a
///        binary that stops before chapter 5 has none, and reads 0 (not measured), as the model's
///        earlier steps do.
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

/// The main loop of the chapter 5 kernel that launch `l` runs, timed on one call of its own
/// (op(A) = A, aligned, beta 0, no split): the call's m, n, k and its time; ms 0 where not known.
using GemmMainLoopSource = GemmTimedCall (*)(const GemmLaunch& l, int elem_bytes, bool live);
void set_gemm_main_loop_source(GemmMainLoopSource source);
GemmTimedCall gemm_main_loop_timed(const GemmLaunch& l, int elem_bytes, bool live);

}  // namespace wb
