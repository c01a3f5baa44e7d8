/// \file tuned/dependent_launch.hpp
/// \brief A kernel launch as a programmatic dependent of the kernel before it in the stream
///        (compute capability 9.0 on; an ordinary launch before that). Used where the tuned GEMM
///        runs two kernels back to back: a pack and the main loop, the split kernel and its sum.
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
