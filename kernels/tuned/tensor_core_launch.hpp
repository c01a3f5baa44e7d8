/// \file tuned/tensor_core_launch.hpp
/// \brief The host side the tensor-core GEMMs share (the FP64 DGEMM, dgemm_tensor_core.cu; the
///        3xTF32 SGEMM, sgemm_3xtf32.cu): the groups of tile-rows their blocks are numbered in,
///        whether an operand's columns take 16-byte copies, and the call's layouts and copy widths
///        turned into template arguments. The device side they share (tiles, copies, fragments,
///        epilogue): tensor_core_tile.cuh; each kernel's main loop stays in its own file.
#pragma once

#include <cstdint>
#include <type_traits>

namespace wb::tuned::tc {

/// Sets a kernel's dynamic shared memory and returns the tile-rows of its groups: the square root
/// of the blocks the GPU holds at once (SMs x the occupancy calculator's blocks per SM). The
/// kernels number their tiles down a group's rows before across it, so that the blocks resident
/// at one time cover a square of C and share A's and B's slabs in the L2.
int configure_groups(const void* kernel, int threads, int smem);

/// Whether an operand's columns start on 16-byte boundaries (its base and every column), so that
/// its tiles can be copied 16 bytes at a time.
template <class T>
bool columns_16b_aligned(const T* p, int ld) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && (static_cast<std::uint64_t>(ld) * sizeof(T)) % 16 == 0;
}

/// f(AKC, BKC, VA, VB) with each run-time flag as a std::bool_constant: which of a kernel's 16
/// instantiations (op(A) and op(B) stored k-contiguous or not, 16-byte copies of each or not)
/// the call runs.
template <class F>
void with_layouts(bool akc, bool bkc, bool va, bool vb, F&& f) {
    auto pick = [](bool b, auto&& g) {
        if (b) g(std::true_type{});
        else g(std::false_type{});
    };
    pick(akc, [&](auto a) {
        pick(bkc, [&](auto b) { pick(va, [&](auto x) { pick(vb, [&](auto y) { f(a, b, x, y); }); }); });
    });
}

}  // namespace wb::tuned::tc
