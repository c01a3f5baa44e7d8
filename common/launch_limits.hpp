/// \file launch_limits.hpp
/// \brief The hardware and type limits a launch is checked against, named once: every grid size
///        and every 32-bit index bound in the workbook is one of these (launch_checks.hpp checks
///        grids against them; the peers check library arguments against them).
#pragma once

namespace wb {

/// The largest gridDim.x, 2^31 - 1: CUDA's limit on every GPU since compute capability 3.0. A
/// launcher asks for at most this many blocks in x (launch_checks::grid_dim throws above it).
inline constexpr int kMaxGridX = 2147483647;

/// The largest gridDim.y and gridDim.z, 2^16 - 1. The kernels put their second grid dimension
/// (GEMM's column tiles, the convolution's row tiles, GEMV's Y blocks per tile) in y; where a
/// dimension can pass it, the kernel walks a grid stride instead.
inline constexpr int kMaxGridYZ = 65535;

/// The largest 32-bit signed int, 2^31 - 1 (INT_MAX): the kernels' element indices, the libraries'
/// int arguments (NPP's step, cuDNN's strides) and cudaMemcpy2D's pitch on current GPUs stay at
/// or under it.
inline constexpr int kMaxInt32 = 2147483647;

}  // namespace wb
