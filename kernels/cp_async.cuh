/// \file cp_async.cuh
/// \brief cp.async (sm_80+): copies from global into shared memory that do not pass through
///        registers, issued now and waited for later (the tuned GEMM's stages, the tuned SYMV's
///        diagonal tile).
#pragma once

namespace wb::detail {

/// Copies `size` bytes (4, 8 or 16) from gmem to smem; src_bytes < size zero-fills the rest of
/// the destination and reads nothing beyond src_bytes (edge tiles).
__device__ __forceinline__ void cp_async(void* smem, const void* gmem, int size, int src_bytes) {
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    if (size == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(src_bytes));
    else if (size == 8)
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(s), "l"(gmem), "r"(src_bytes));
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(gmem), "r"(src_bytes));
}
/// Closes the group of copies issued since the last commit.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
/// Waits until at most N of this thread's groups are still in flight (the others have landed);
/// a barrier after it makes every thread's copies visible to the block.
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

}  // namespace wb::detail
