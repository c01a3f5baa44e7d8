/// \file gemm_design.cpp
/// \brief The GEMM model's view of a launch (gemm_design.hpp).
#include "gemm_design.hpp"

#include "tuned/dgemm_tensor_core.hpp"
#include "tuned/gemm_config.hpp"
#include "gemm_epilogue_source.hpp"
#include "derive/derivation.hpp"
#include "model/kernel_time.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace wb {
namespace {

/// The launch bound (blocks per SM) the tuned step's configuration of l's tile is compiled for;
/// 0 where l's tile is none of them.
template <const tuned::GemmConfig&... E>
int tuned_min_blocks(const GemmLaunch& l, tuned::ConfigList<E...>) {
    int b = 0;
    ((b = E.tile_m == l.tile_m && E.tile_n == l.tile_n && E.tile_k == l.tile_k ? E.min_blocks : b), ...);
    return b;
}

}  // namespace

model::GemmDesign gemm_model_design(Stage stage, const GemmLaunch& l, int elem_bytes) {
    model::GemmDesign d;
    d.stage = stage;
    const int bx = std::max(1, l.block_x), by = std::max(1, l.block_y);
    d.threads = bx * by;
    d.thread_m = std::max(1, l.thread_m);
    d.thread_n = std::max(1, l.thread_n);
    d.tile_m = l.tile_m > 0 ? l.tile_m : bx * d.thread_m;
    d.tile_n = l.tile_n > 0 ? l.tile_n : by * d.thread_n;
    d.tile_k = std::max(1, l.tile_k);
    d.split_k = std::max(1, l.split_k);  // the tuned step's split k (0: none)
    // A warp's lanes run along m first (threadIdx.x), then along n.
    const int lanes_m = std::min(32, bx), lanes_n = std::max(1, 32 / lanes_m);
    d.warp_m = l.warp_m > 0 ? l.warp_m : lanes_m * d.thread_m;
    d.warp_n = l.warp_n > 0 ? l.warp_n : lanes_n * d.thread_n;
    const int vec = 16 / elem_bytes;
    const int acc = d.thread_m * d.thread_n * elem_bytes / 4;
    d.regs_per_thread = std::min(255, 32 + acc + (d.thread_m + d.thread_n) * elem_bytes / 4);
    d.smem_per_block = std::max(1, l.stages) * (d.tile_m + d.tile_n) * d.tile_k * elem_bytes;
    d.stages = stage == Stage::kTuned ? std::max(1, l.stages) : 1;  // only the tuned step pipelines
    if (stage == Stage::kNaive) {
        d.operands_from_l1 = true;
        d.smem_per_block = 0;
        d.overhead = 1.0;  // two address computations and the loop per FMA
    } else if (stage == Stage::kShared) {
        d.overhead = 0.5;
    } else if (stage == Stage::kPattern) {
        d.overhead = 0.25;
    } else {  // access, tuned: 16-byte operand loads from shared memory
        d.load_width = vec;
        d.overhead = stage == Stage::kTuned ? 0.05 : 0.1;
        if (stage == Stage::kTuned) {
            // Per k-tile each thread of a tuned kernel issues, besides its FMAs and fragment
            // loads, its share of the stage copies (addresses, guards, cp.async or the
            // transposing loads and stores), the cp.async wait, the barrier and the loop: counted
            // in the sm_90 SASS of the seven float NN main loops, 86 (64 x 64) to 140 (128 x 64,
            // 16 x 128) instructions on the interior path, median 110. Per FMA instruction that is
            // 110 / (tile_k x thread tile): 0.05 for 16 x 8 (256 x 128), 0.11 for 8 x 8, 0.43 for
            // 4 x 4 at BK 16: the larger thread tile issues 6% fewer instructions per FMA than 8 x 8.
            d.overhead = model::kTunedGemmLoopInstrPerKTile / (static_cast<double>(d.tile_k) * d.thread_m * d.thread_n);
        }
        if (stage == Stage::kTuned) {
            // The tuned kernels hold two sets of operand fragments (the next k-step's loaded while
            // this one's FMAs run) and 40 registers of indices, the pipeline's addresses and loop
            // state, within their configuration's launch bound (ptxas: 136 registers for the
            // 8 x 8 float tiles under a bound of 2 blocks of 128 threads, 216 for 16 x 8).
            d.regs_per_thread = acc + 2 * (d.thread_m + d.thread_n) * elem_bytes / 4 + 40;
            d.min_blocks = elem_bytes == 4 ? tuned_min_blocks(l, tuned::Configs<float>::type{})
                                           : tuned_min_blocks(l, tuned::Configs<double>::type{});
        }
        if (stage == Stage::kAccess) {
            // Chapter 4 (access/gemm.cu): a thread reads its thread_m contiguous elements of op(A)
            // as 16-byte vectors, lanes thread_m x size(T) bytes apart: 16 bytes apart in float (no
            // conflict), 32 in double, where lanes tx and tx + 4 of a quarter warp meet in the same
            // banks: two wavefronts per quarter, eight per load.
            const int lane_stride = d.thread_m * elem_bytes;
            const double ways = std::max(1, lane_stride / 16);
            d.a_wavefronts_per_k = std::ceil(static_cast<double>(d.thread_m) / vec) * 4.0 * ways;
        }
    }
    return d;
}

model::GemmDesign gemm_tensor_core_design(const GemmLaunch& l) {
    const int index = l.tile_m > 0 ? tuned::dgemm_tc_tile_index(l.tile_m, l.tile_n) : 0;
    const tuned::DgemmTcTile k = tuned::kDgemmTcTiles[index < 0 ? 0 : index];
    GemmLaunch tc;
    tc.block_x = 32 * (k.tile_m / k.warp_m) * (k.tile_n / k.warp_n);
    tc.block_y = 1;
    tc.tile_m = k.tile_m;
    tc.tile_n = k.tile_n;
    tc.tile_k = k.tile_k;
    tc.thread_m = k.warp_m / 8;  // an mma's C fragment: 8 lane groups along m, 4 lanes along n
    tc.thread_n = k.warp_n / 4;
    tc.warp_m = k.warp_m;
    tc.warp_n = k.warp_n;
    tc.stages = k.stages;
    model::GemmDesign d = gemm_model_design(Stage::kTuned, tc, 8);
    d.load_width = 1;      // every fragment element is one 8-byte shared load
    d.tensor_core = true;  // the FP64 tensor cores' rate (dev.fp64_tensor_gflops)
    d.split_k = l.split_k > 1 ? l.split_k : 1;
    return d;
}

/// A kernel's main loop as measured over as counted (GemmDesign::main_share): the model's time for
/// the kernel's own timed call `s` (gemm_main_loop_timed: NN, unsplit, no copies) with design `d`,
/// at the boost clock as that short call runs and without the launch's fixed cost, over the time
/// measured, times `op_a` (the tensor cores' measured op(A) = A^T rate, the derivation's factor
/// too); at most 1; 1 where none was timed.
static double main_share_of(const model::GemmDesign& d, const DeviceProfile& dev, const GemmTimedCall& s,
                            int elem_bytes, double op_a = 1.0) {
    if (!(s.ms > 0) || s.m <= 0 || s.n <= 0 || s.k <= 0) return 1;
    DeviceProfile boost = dev;
    boost.sgemm_clock_mhz = boost.dgemm_clock_mhz = 0;  // not under a sustained GEMM's power
    model::GemmDesign w = d;
    w.split_k = 1;
    w.main_share = 1;
    w.op_rate = 1;
    w.copies_ms = 0;
    const double counted = model::predict_gemm(w, s.m, s.n, s.k, elem_bytes, boost).ms - model::kLaunchOverheadUs / 1e3;
    return std::clamp(counted / s.ms * op_a, 0.05, 1.0);
}

model::GemmPrediction predict_gemm_tensor_core(long long m, long long n, long long k, const DeviceProfile& dev,
                                               const GemmLaunch& l, bool transposed_a) {
    model::GemmDesign d = gemm_tensor_core_design(l);
    d.epilogue_gbs = gemm_epilogue_gbs(l, 8, dev.live);
    const GemmTimedCall s = gemm_main_loop_timed(l, 8, dev.live);
    d.main_share = main_share_of(d, dev, s, 8, transposed_a && s.transposed_a > 0 ? s.transposed_a : 1.0);
    return model::predict_gemm(d, m, n, k, 8, dev);
}

void gemm_tuned_call(model::GemmDesign& d, const DeviceProfile& dev, long long m, long long n, long long k,
                     int elem_bytes, const GemmLaunch& l, bool transposed_a, bool op_b_t) {
    d.epilogue_gbs = gemm_epilogue_gbs(l, elem_bytes, dev.live);
    // The op pair the main loop reads once the packs have run, at the kernel's measured rate.
    const bool ta = transposed_a && l.pack_a != 2, tb = op_b_t || l.pack_b == 2;
    const GemmTimedCall s = gemm_main_loop_timed(l, elem_bytes, dev.live);
    d.main_share = main_share_of(d, dev, s, elem_bytes);  // the FMA tiles' too
    d.op_rate = derive::gemm_op_pair_rate(ta, tb, s.transposed_a, s.op_nt, s.op_tt);
    // The copies before it, each its bytes read and written (the copy ceiling) and a launch: A^T
    // or B transposed, and with align = 2 the operands neither pack covers (the model does not
    // see the leading dimensions: a launch asks for aligned copies only where an operand is
    // unaligned, and the chapters' unaligned calls have both).
    auto copy_ms = [&](double elements) {
        const double bytes = elements * elem_bytes;
        return model::dram_ms(bytes, bytes, dev) + model::kLaunchOverheadUs / 1e3;
    };
    double copies = 0;
    const bool packs_a = transposed_a && l.pack_a == 2, packs_b = !op_b_t && l.pack_b == 2;
    if (packs_a) copies += copy_ms(static_cast<double>(m) * k);
    if (packs_b) copies += copy_ms(static_cast<double>(k) * n);
    if (l.align == 2) {
        if (!packs_a) copies += copy_ms(static_cast<double>(m) * k);
        if (!packs_b) copies += copy_ms(static_cast<double>(k) * n);
    }
    d.copies_ms = copies;
}

double gemm_tiles_ms(const DeviceProfile& dev, long long m, long long n, long long k, int elem_bytes,
                     const GemmLaunch& l, bool transposed_a, bool op_b_t) {
    if (l.math == 2) return predict_gemm_tensor_core(m, n, k, dev, l, transposed_a).ms;
    model::GemmDesign d = gemm_model_design(Stage::kTuned, l, elem_bytes);
    gemm_tuned_call(d, dev, m, n, k, elem_bytes, l, transposed_a, op_b_t);
    return model::predict_gemm(d, m, n, k, elem_bytes, dev).ms;
}

}  // namespace wb
