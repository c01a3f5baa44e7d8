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

/// The model's prediction for the FP64 tensor-core kernel (GemmLaunch::math = 2,
/// tuned/dgemm_tensor_core.hpp) on an m x n x k double call: its tile as a design (every fragment
/// element one 8-byte shared load), and where the FMAs or the issue bound it, half the FMA
/// lanes' time (one mma.sync.m16n8k8.f64 does 1,024 FMAs; Hopper's FP64 tensor cores run at twice
/// the FP64 lanes' rate). `peak_gflops` is the tensor cores' (twice the lanes'). `l`: the launch's
/// tile (kDgemmTcTiles; 0 x 0: 64 x 64) and split of k.
model::GemmPrediction predict_gemm_tensor_core(Stage stage, long long m, long long n, long long k,
                                               const DeviceProfile& dev, const GemmLaunch& l = GemmLaunch{});

}  // namespace wb
