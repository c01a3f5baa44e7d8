/// \file tuned/gemm.cu
/// \brief Chapter 5 — tuned GEMM: warp tiles of 2-D register blocks, 16-byte global loads into
///        a multi-stage shared-memory pipeline (cp.async), a fast interior and guarded edges.
///
/// What changes against chapter 4:
/// - Bigger register blocks with warp tiles: for a large float C a block of 256 threads computes
///   BM x BN = 256 x 128, each warp WM x WN = 64 x 64, each thread TM x TN = 16 x 8, arranged
///   as (TM/4) x (TN/4) sub-blocks of 4 x 4 spaced 4*LM rows / 4*LN columns apart (LM x LN =
///   4 x 8 lanes). Each 16-byte shared read is then one row of 4 lanes x 16 bytes = 64
///   contiguous bytes (op(A)) or 8 x 16 = 128 bytes (op(B)), broadcast to the other lanes:
///   conflict-free without padding. 128 accumulators per thread: one block of 8 warps per SM
///   (the shape cuBLAS's own FP32 kernel has on the H200: 256 threads, ~254 registers).
/// - 16-byte global loads (gemm_tile_loader.cuh). The operand already stored k-major (op_a = N
///   for A, op_b = T for B) is copied with cp.async 16-byte straight into shared memory (no
///   registers, no wait); the operand stored the other way (op_a = T, op_b = N) is loaded as
///   16-byte vectors along k into registers and stored transposed. On the large tiles several
///   lanes read one row's BK elements (a warp's load covers whole 64- or 128-byte rows, not 32
///   half-used sectors) and the stage is XOR-swizzled so that those rows still store without bank
///   conflicts; the fragment loads undo the swizzle (GemmSwizzle, gemm_swizzle.hpp).
/// - A STAGES-deep ring of shared-memory tiles, one barrier per tile (the kernel's main loop).
///   Where the barrier sits depends on how many blocks share an SM:
///   - One block per SM (256 x 128): no other block's warps can issue while this block waits, so
///     the barrier is moved off the path into the FMAs (CUTLASS's multistage order): it sits
///     inside each tile's last k-step, after that step's fragments are loaded; the next tile's
///     k-step-0 fragments are loaded before that step's FMAs, then the copy of tile t+STAGES is
///     issued into the stage just freed. The warps leave the barrier with 128 FMAs to issue
///     while their next fragments arrive. The four-warp tiles (128 x 64, 64 x 128) take this order
///     at three blocks per SM too (GemmConfig::prefetch_order): twelve warps hide less than the
///     8-warp tiles' sixteen; where their grid has at most one block per SM they run their
///     ONE_WAVE kernel in the order below instead, registers unbounded (gemm_config.hpp).
///   - Two or more blocks per SM (128 x 128, 64 x 64, the double configurations): the barrier at
///     the top of each tile, tile t+STAGES-1 in flight while tile t is computed; another resident
///     block's warps issue during one block's wait.
/// - Vector loads only where legal: 16-byte-aligned base pointer and ld % (16 / sizeof(T)) == 0,
///   decided at launch (VEC); otherwise the same pipeline copies element by element (4-byte
///   cp.async), still coalesced. Interior tiles copy without checks; the tiles on an edge of C or
///   of k copy with per-element checks (cp.async's src-size zero-fills what lies outside), chosen
///   per tile by one uniform branch. The epilogue stores 16-byte vectors of C where C allows.
/// - The configuration is chosen from the shape (gemm_default_rule.cpp): each configuration's
///   measured rate times the fraction of its last wave that works times the fraction of its tiles
///   inside C; the highest estimate wins (256 x 128 on large C, 128 x 128 or 64 x 64 where the
///   large tiles would leave SMs idle or waste a row of tiles). The configurations: one table,
///   gemm_config.hpp.
/// - Shapes a square benchmark never shows (ch05 --shapes): C of one column or row runs as
///   chapter 5's GEMV (gemm_as_gemv); 2 ... 16 columns or rows take 16-wide tiles and 33 ... 64
///   take 64-wide ones, their copies checked per operand; an operand whose columns are not
///   16-byte aligned is copied to aligned columns first where that pays (GemmLaunch::align), and
///   op(A) = A^T is transposed first where that pays (GemmLaunch::pack_a; gemm_pack.cu), and
///   op(B) = B likewise (GemmLaunch::pack_b).
/// - Split k where C alone cannot fill the GPU (GemmLaunch::split_k; gemm_splitk.hpp): gridDim.z
///   slices of k, each a multiple of BK long, write partial C's to a workspace; a second kernel
///   adds them in slice order and applies alpha and beta (deterministic, like cuBLAS's own split-k
///   reduction).
/// Model (float, 256 x 128 x 16, thread 16 x 8): global loads per FMA 1/256 + 1/128; shared
/// loads per FMA (16 + 8) / 128 = 0.19 elements = 6 LDS.128 per 128 FFMA (chapter 4: 1/8 of an
/// instruction per FMA); the FMA issue rate is the limit: ~90% of issued instructions are FMAs.
/// Measured: about 0.93x cuBLAS (pedantic FP32) at 4096 and 8192 on an H100, NN and TN; the runs
/// and the variants tried are in the tuning notes (\ref notes_gemm).
///
/// The files, by job (the way CUTLASS separates them): gemm_config.hpp (the configuration table),
/// gemm_kernel.cuh (the kernel: prologue, main loop, epilogue), gemm_tile_loader.cuh (global to
/// shared memory), gemm_fragments.cuh (shared memory to registers), gemm_splitk.* (the split-k
/// reduction), gemm_pack.* (operand copies), gemm_dispatch.* and gemm_instances_*.cu (from a call
/// to its kernel; the kernels instantiated, one translation unit per group of configurations),
/// gemm_default_rule.* (the default launch, host code), and this file: the launcher, which
/// checks an explicit launch, asks the rule otherwise, and dispatches.
/// Run: ./workbook run ch05 -- --op gemm       (GemmLaunch: tile, warp, thread, stages: one of
///                                               the instantiated configurations, legal_launches)
#include "gemm_common.cuh"
#include "gemv.hpp"
#include "tuned/gemm_config.hpp"
#include "tuned/gemm_default_rule.hpp"
#include "tuned/gemm_dispatch.hpp"
#include "tuned/gemm_pack.hpp"
#include "tuned/gemm_splitk.hpp"
#include "tuned/dgemm_tensor_core.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <type_traits>
#include <vector>

namespace wb::tuned {
namespace {

/// Runs the first configuration that matches `l`; false when none does.
template <class T, const GemmConfig& E, const GemmConfig&... Rest>
bool dispatch_first(const GemmArgs<T>& a, const GemmLaunch& l, cudaStream_t s, const char* fn) {
    if (gemm_launch_matches(l, E.launch())) {
        gemm_impl::run_config<T, E>(a, l.split_k, s, fn);
        return true;
    }
    if constexpr (sizeof...(Rest) > 0) return dispatch_first<T, Rest...>(a, l, s, fn);
    return false;
}
template <class T, const GemmConfig&... E>
bool dispatch_list(const GemmArgs<T>& a, const GemmLaunch& l, cudaStream_t s, const char* fn, ConfigList<E...>) {
    return dispatch_first<T, E...>(a, l, s, fn);
}

/// Checks a launch: its own fields (check_gemm_launch, host code), then, for the FP64 tensor
/// cores, the device.
template <class T>
void check_launch(const GemmArgs<T>& a, const GemmLaunch& l, const char* fn) {
    check_gemm_launch(a, l, fn);
    if (l.math == 2) {
        int dev = 0;
        WB_CUDA(cudaGetDevice(&dev));
        gemm_detail::require_launch(dgemm_tensor_core_supported(dev), fn, "math", l.math,
                                    "2 only on a device with FP64 tensor cores (compute capability 9.0 or later)");
    }
}

}  // namespace

template <class T>
void gemm(const GemmArgs<T>& a, const GemmLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "tuned::gemm";
    check_launch(a, l, fn);
    if (!gemm_detail::gemm_begin(a, fn, s)) return;
    // Fields left 0 leave their choice to the default rule: the whole launch, or the
    // configuration alone where pack_a, pack_b, align or gemv = 1 is set.
    GemmLaunch all_default{};
    all_default.pack_a = l.pack_a;
    all_default.pack_b = l.pack_b;
    all_default.align = l.align;
    all_default.gemv = l.gemv == 1 ? 1 : 0;  // gemv = 1 alone: the tiled rule's configuration
    all_default.math = l.math == 1 ? 1 : 0;  // math = 1 alone: the FMA kernels, the rule's configuration
    GemmLaunch chosen = l == all_default ? (l.gemv == 1 ? gemm_default_tiled(a) : gemm_default(a)) : l;
    // An explicit choice among the FMA kernels' options (math 1, pack_a, pack_b, align) keeps them.
    if (chosen.math == 2 && l.math == 0 && (l.pack_a != 0 || l.pack_b != 0 || l.align != 0))
        chosen = gemm_default_tiled(a);
    if (l.math == 1 && chosen.math == 2) chosen = gemm_default_tiled(a);
    if constexpr (std::is_same_v<T, double>) {
        if (chosen.math == 2) {  // unaligned operands copied to aligned columns first where align = 2
            const GemmArgs<T> run = chosen.align == 2 ? pack::aligned(a, s, fn) : a;
            dgemm_tensor_core(run, chosen.split_k, s, chosen.tile_m > 0 ? dgemm_tc_tile_index(chosen.tile_m, chosen.tile_n) : 0);
            return;
        }
    }
    if (chosen.gemv == 2) {
        GemvArgs<T> g;
        gemm_as_gemv<T>(a, &g);
        tuned::gemv<T>(g, GemvLaunch{}, s);
        return;
    }
    if (l.pack_a != 0) chosen.pack_a = l.pack_a;
    if (l.pack_b != 0) chosen.pack_b = l.pack_b;
    if (l.align != 0) chosen.align = l.align;
    GemmArgs<T> run = a.op_a == Op::T && chosen.pack_a == 2 ? pack::packed(a, s, fn) : a;
    if (a.op_b == Op::N && chosen.pack_b == 2) run = pack::packed_b(run, s, fn);
    if (chosen.align == 2) run = pack::aligned(run, s, fn);
    dispatch_list(run, chosen, s, fn, typename Configs<T>::type{});
    WB_CHECK_LAUNCH();
}

template void gemm<float>(const GemmArgs<float>&, const GemmLaunch&, cudaStream_t);
template void gemm<double>(const GemmArgs<double>&, const GemmLaunch&, cudaStream_t);

}  // namespace wb::tuned
