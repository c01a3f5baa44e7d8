/// \file gemm_design.hpp
/// \brief The GEMM model's view of a launch (model::GemmDesign): its tiles, warps, registers and
///        shared memory read off a GemmLaunch, per ladder stage. The GEMM op's rows and chapter 6's
///        comparison both predict through it.
#pragma once

#include "gemm.hpp"
#include "model/gemm.hpp"
#include "stage.hpp"

namespace wb {

/// The design the GEMM model assumes for `stage` launched as `l` with elements of `elem_bytes`
/// (4 or 8): fields of `l` left at 0 follow from the others (tile = block x thread tile; a warp's
/// lanes run along m first).
model::GemmDesign gemm_model_design(Stage stage, const GemmLaunch& l, int elem_bytes);

/// The design of the tuned step's FP64 tensor-core kernel (GemmLaunch::math = 2,
/// tuned/dgemm_tensor_core.cu) for launch `l`: its tile (tuned::kDgemmTcTiles; 0 x 0: 64 x 64)
/// and split of k, its fragments' 8-byte shared loads, the tensor cores' rate
/// (model::GemmDesign::tensor_core).
model::GemmDesign gemm_tensor_core_design(const GemmLaunch& l = GemmLaunch{});

/// The model's prediction for that kernel on an m x n x k double call (op(A) = A^T where
/// `transposed_a`), its main loop at its measured share of the tensor cores' rate.
model::GemmPrediction predict_gemm_tensor_core(long long m, long long n, long long k, const DeviceProfile& dev,
                                               const GemmLaunch& l = GemmLaunch{}, bool transposed_a = false);
/// The model's time (ms) for the tuned step's launch `l` of its tiled kernels on an m x n x k call
/// of `elem_bytes` elements: the tensor cores' design where l.math = 2, the tiles' otherwise.
/// Chapter 6 ranks its sweep with it (a launch the GEMV runs is predicted as the GEMV's instead).
double gemm_tiles_ms(const DeviceProfile& dev, long long m, long long n, long long k, int elem_bytes,
                     const GemmLaunch& l, bool transposed_a = false, bool op_b_t = false);

/// What the tuned step's FMA tiles add to their design for one call (op(A) = A^T where
/// `transposed_a`, op(B) = B^T where `op_b_t`): the measured epilogue bandwidth, the measured
/// main-loop rate of the op pair the kernel reads once launch `l`'s packs have run
/// (GemmDesign::op_rate), and those packs' and aligned copies' time (GemmDesign::copies_ms).
void gemm_tuned_call(model::GemmDesign& d, const DeviceProfile& dev, long long m, long long n, long long k,
                     int elem_bytes, const GemmLaunch& l, bool transposed_a, bool op_b_t);

}  // namespace wb
