/// \file tuned/dependent_launch.hpp
/// \brief A kernel launch as a programmatic dependent of the kernel before it in the stream
///        (compute capability 9.0 on; an ordinary launch before that). The tuned GEMM's split-k
///        second pass is launched this way behind the split kernel (gemm_splitk.cu).
///
/// An ordinary launch starts when the kernel before it has ended: its grid's launch and its
/// blocks' first instructions wait, a few microseconds on a call of tens. Launched with
/// cudaLaunchAttributeProgrammaticStreamSerialization, the kernel may start as soon as every block
/// of the kernel before it has run `griddepcontrol.launch_dependents` (or, where that kernel has no
/// such instruction, when it ends); it must then run `griddepcontrol.wait` before it touches
/// memory, which returns once the kernel before has ended and its writes are visible. So both
/// sides carry an instruction (dependent_wait / dependent_trigger, tuned/dependent_launch.cuh),
/// and the dependent waits before its first load: whatever kernel precedes it, it reads nothing
/// early.
///
/// Where it does not pay: the dependent's blocks are placed on SMs when it launches, while the
/// kernel before still holds them, so a grid smaller than the GPU can land on a few SMs with room
/// and run there at a fraction of its speed. The GEMM's main loop launched this way behind a pack
/// of an operand ran up to 3.1x slower on grids of a few dozen tiles (an H200, chapter 6's sweep;
/// the GEMM notes); it is launched the ordinary way. The second pass reads the partials from the
/// L2 with every thread it has, so where its blocks sit matters little.
#pragma once

#include "check.hpp"
#include "launch_checks.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace wb::tuned {

/// kernel<<<grid, block, smem, s>>>(args...) as a programmatic dependent launch where the device
/// has compute capability 9.0 or more; errors throw through WB_CUDA.
template <class... Params, class... Args>
void launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem, cudaStream_t s,
                      Args&&... args) {
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = s;
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = launch_checks::device_attribute(cudaDevAttrComputeCapabilityMajor, 9) >= 9 ? 1 : 0;
    WB_CUDA(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
}

}  // namespace wb::tuned
