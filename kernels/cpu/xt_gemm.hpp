/// \file xt_gemm.hpp
/// \brief The vendor's answer to chapter 7's question for GEMM: cuBLASXt, the host-memory API of
///        cuBLAS. C = alpha op(A) op(B) + beta C with A, B and C in host memory, as chapter 7's
///        CPU peer and hybrid take them (column-major, the same GemmArgs).
///
/// How the library does it (the cuBLAS documentation, "cuBLASXt API"): it cuts C into square tiles
/// of block_dim x block_dim, and a host thread per GPU streams each tile's rows of op(A) and
/// columns of op(B) in, runs cuBLAS on them and streams the tile back, its copies overlapping the
/// kernels (page-locked host memory lets them run asynchronously; pageable memory is staged). With
/// a CPU share (cpu_ratio > 0, cublasXtSetCpuRatio) the library sets aside that fraction of C,
/// taken from its bottom or right edge (whichever dimension is larger), for a CPU routine: here
/// OpenBLAS's sgemm_ / dgemm_, chapter 7's CPU peer. The same idea as chapter 7's hybrid GEMM,
/// with square tiles and a static split; its documentation warns that the CPU's share may slow the
/// host thread that feeds the GPU. cuBLASXt has Level 3 routines only: GEMV, SYMV, the convolution
/// and CG have no such vendor call.
///
/// Each host thread keeps one cuBLASXt handle per device (created at its first call on that device,
/// on the current device alone). The call blocks until C is complete in host memory. Arguments:
/// validate_gemm (named "xt::gemm"), 0 <= cpu_ratio < 1 (a share above 0 needs CBLAS in the build),
/// block_dim 0 (the library's own tile, kept as the handle was created) or at least 1. As in the
/// CPU peers, alpha == 0 or k == 0 is C = beta C on the host (A and B are not read).
#pragma once

#include "gemm.hpp"

namespace wb::xt {

template <class T>
void gemm(const GemmArgs<T>& host, double cpu_ratio = 0, int block_dim = 0);

/// The tile the library uses on the current device when block_dim is left 0 (its default).
int default_block_dim();

}  // namespace wb::xt
