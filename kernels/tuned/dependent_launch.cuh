/// \file tuned/dependent_launch.cuh
/// \brief The device side of a programmatic dependent launch (tuned/dependent_launch.hpp): the
///        dependent's wait before its first memory access, the earlier kernel's trigger. Both
///        are no-ops in a kernel launched the ordinary way, and compile to nothing before sm_90.
#pragma once

namespace wb::tuned {

/// In a kernel launched with launch_dependent: returns once the kernel before it in the stream has
/// ended and its writes are visible. Call before the kernel's first load or store.
__device__ __forceinline__ void dependent_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Lets the kernel launched after this one with launch_dependent start once every block of this
/// grid has run this instruction (it waits for this grid's end itself).
__device__ __forceinline__ void dependent_trigger() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;");
#endif
}

}  // namespace wb::tuned
