/// \file tuned/dgemm_tensor_core.hpp
/// \brief Chapter 5 — DGEMM on the FP64 tensor cores (sm_90): the host entry points.
///
/// On Hopper the double-precision FMA units of the SMs reach about half of what the FP64
/// tensor cores do. A warp-level `mma.sync.m16n8k8.f64` multiplies a 16 x 8 tile of op(A) by an
/// 8 x 8 tile of op(B) in IEEE double (fused multiply-adds, the same rounding as an FMA loop in
/// another order), so a DGEMM that feeds those instructions keeps the BLAS accuracy contract
/// and moves its ceiling from the FMA rate to the tensor-core rate. The kernel is in
/// dgemm_tensor_core.cu; chapter 5's page (the MM section) teaches it.
#pragma once

#include "gemm.hpp"

#include <cuda_runtime_api.h>

namespace wb::tuned {

/// The kernel's tile, the one place it is written: the kernel is instantiated with it and the
/// chapter's model reads it. 64 x 64 x 16 per block, warps of 32 x 32, 3 stages (why this one:
/// dgemm_tensor_core.cu).
struct DgemmTcTile {
    int tile_m, tile_n, tile_k, warp_m, warp_n, stages;
};
inline constexpr DgemmTcTile kDgemmTcTile{64, 64, 16, 32, 32, 3};

/// True where the device runs `mma.sync.m16n8k8.f64` (compute capability 9.0 and later) and
/// this build holds code for it.
bool dgemm_tensor_core_supported(int device);

/// C = alpha op(A) op(B) + beta C on the FP64 tensor cores. The arguments follow GemmArgs (BLAS
/// conventions, validated by the caller: tuned::gemm); beta == 0 never reads C. Any shape,
/// leading dimension and base offset: 16-byte copies where the operand's columns are 16-byte
/// aligned, 8-byte copies otherwise.
void dgemm_tensor_core(const GemmArgs<double>& a, cudaStream_t stream);

}  // namespace wb::tuned
