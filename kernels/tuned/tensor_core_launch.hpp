/// \file tuned/tensor_core_launch.hpp
/// \brief The host side the tensor-core GEMMs share (the FP64 DGEMM, dgemm_tensor_core.cu; the
///        3xTF32 SGEMM, sgemm_3xtf32.cu): whether a kernel runs on a device and how many of its
///        blocks an SM holds, asked once per device; the groups of tile-rows their blocks are
///        numbered in; whether an operand's columns take 16-byte copies; the call's layouts and
///        copy widths turned into template arguments; split k around a launch. The device side
///        they share (tiles, copies, fragments, pipeline, epilogue): tensor_core_tile.cuh; each
///        kernel's k-step stays in its own file.
#pragma once

#include "device_profile.hpp"
#include "gemm.hpp"
#include "tuned/gemm_splitk.hpp"

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace wb::tuned::tc {

/// What the tensor cores' default rules (the DGEMM's, dgemm_tc_rule.cpp; the 3xTF32 SGEMM's) read
/// of a GPU: its SMs, SM clock and theoretical DRAM bandwidth (2 x memory clock x bus width).
struct Machine {
    int sms = 132;
    double sm_hz = 1.98e9;
    double dram_bytes_per_second = 4.917e12;
};
/// The current device's (its attributes, cached per device by launch_checks; the h200 preset's
/// where there is no GPU).
Machine machine();
/// A profile's: the launch a named device would take (device_preset("h100-sxm")).
Machine machine(const DeviceProfile& dev);

/// The devices the per-device answers below keep (device numbers 0 ... kDevices - 1).
inline constexpr int kDevices = 64;

/// known[device], from ask() at its first use (0 means not asked yet: ask answers nonzero); 0 for
/// a device number outside 0 ... kDevices - 1. The kernels' questions are asked on every default
/// launch (their support, their blocks per SM): answered once per device. Atomic, since any host
/// thread may launch (chapter 7's GPU workers beside the calling thread): two threads that meet an
/// unasked device both ask and store the same answer.
template <class F>
int asked_once(std::atomic<int> (&known)[kDevices], int device, F&& ask) {
    if (device < 0 || device >= kDevices) return 0;
    int v = known[device].load(std::memory_order_relaxed);
    if (v == 0) {
        v = ask();
        known[device].store(v, std::memory_order_relaxed);
    }
    return v;
}

/// Whether `kernel` runs on `device`: compute capability `min_major` or later, and this build
/// holds code for it (its binary version at least min_major x 10; a build for sm_90 only has no
/// kernel for an sm_80 card). No error escapes: a build without a GPU asks too, through the
/// default rules' tests.
bool kernel_runs_on(int device, const void* kernel, int min_major);

/// Blocks of `kernel` (threads, dynamic shared memory smem) one SM of `device` holds, by the
/// occupancy calculator on the kernel as built; -1 where it cannot say. No error escapes.
int resident_blocks(int device, const void* kernel, int threads, int smem);

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

/// A tensor-core GEMM on `split` slices of k (the tuned GEMM's scheme, gemm_splitk.hpp):
/// launch(kc, slices, partials) runs the kernel with slice z covering k [z kc, z kc + kc) (kc a
/// multiple of bk, so every slice keeps its operands' 16-byte alignment), each writing its partial
/// C to the workspace `partials`; the second pass then adds the slices in slice order and applies
/// alpha and beta (deterministic; C read only where beta != 0). One slice (split <= 1, or k within
/// a k-tile): launch(a.k, 1, nullptr), the kernel writing C itself.
template <class T, class Launch>
void run_split(const GemmArgs<T>& a, int split, int bk, cudaStream_t s, Launch&& launch) {
    const auto [kc, slices] = split > 1 && a.k > bk ? splitk::slice_k(a.k, split, bk) : std::pair<int, int>{a.k, 1};
    if (slices <= 1) {
        launch(a.k, 1, static_cast<T*>(nullptr));
        return;
    }
    auto* partials = static_cast<T*>(splitk::workspace(static_cast<std::size_t>(slices) * a.m * a.n * sizeof(T), s));
    launch(kc, slices, partials);
    splitk::sum<T>(a.m, a.n, slices, partials, a.alpha, a.beta, a.C, a.ldc, s);
}

}  // namespace wb::tuned::tc
