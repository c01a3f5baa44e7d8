/// \file gemm.cpp
/// \brief The GEMM model (model/gemm.hpp).
#include "model/gemm.hpp"

#include "model/model_internal.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace wb::model {

GemmPrediction predict_gemm(const GemmDesign& d, long long m, long long n, long long k, int elem_bytes,
                            const DeviceProfile& dev) {
    detail::require(
        m >= 0 && n >= 0 && k >= 0, "predict_gemm",
        "m, n, k (" + std::to_string(m) + ", " + std::to_string(n) + ", " + std::to_string(k) + ") must be >= 0");
    detail::require(elem_bytes == 4 || elem_bytes == 8, "predict_gemm",
                    "elem_bytes (" + std::to_string(elem_bytes) + ") must be 4 or 8");
    detail::require(d.tile_m > 0 && d.tile_n > 0 && d.tile_k > 0, "predict_gemm",
                    "tiles (" + std::to_string(d.tile_m) + " x " + std::to_string(d.tile_n) + " x " +
                        std::to_string(d.tile_k) + ") must be positive");
    detail::require(d.thread_m > 0 && d.thread_n > 0 && d.load_width > 0 && d.warp_m > 0 && d.warp_n > 0,
                    "predict_gemm", "thread tile, warp tile and load width must be positive");
    GemmPrediction p;
    p.flops = 2.0 * m * n * k;
    const int fma_lanes = elem_bytes == 4 ? dev.fp32_lanes_per_sm : dev.fp64_lanes_per_sm;
    p.peak_gflops = dev.sm_count * fma_lanes * 2.0 * dev.sm_clock_mhz / 1e3;
    if (d.tensor_core) p.peak_gflops = dev.fp64_tensor_gflops > 0 ? dev.fp64_tensor_gflops : 2 * p.peak_gflops;
    // FMAs per clock per SM that the rate allows, in lanes (the tensor cores: their measured rate).
    const double lanes = p.peak_gflops * 1e3 / (2.0 * dev.sm_count * dev.sm_clock_mhz);
    // The clock: a GEMM whose power reaches the board's limit runs below the boost clock (chapter 0
    // measures it under the vendor's GEMM); every SM bound below counts clocks at that rate. That
    // holds for the step that runs at the vendor's rate (chapter 5's, the tensor cores); the
    // earlier steps move a fraction of its bytes and flops per second, below the limit.
    const bool at_gemm_power = d.tensor_core || d.stage == Stage::kTuned;
    const double clock_share = at_gemm_power ? dev.gemm_clock_share(elem_bytes == 8) : 1.0;
    p.peak_gflops *= clock_share;
    int regs = d.regs_per_thread;
    if (d.min_blocks > 0 && dev.regs_per_sm > 0) {
        const int warps = std::max(1, static_cast<int>(detail::ceil_div(d.threads, dev.warp_size)));
        const int unit = std::max(1, dev.reg_alloc_unit);
        const long long per_warp = dev.regs_per_sm / (static_cast<long long>(d.min_blocks) * warps);
        regs = std::max(1, std::min(regs, static_cast<int>(per_warp / unit * unit / dev.warp_size)));
    }
    p.occ = occupancy(dev, d.threads, regs, d.smem_per_block);
    detail::require(p.occ.blocks_per_sm > 0, "predict_gemm",
                    "a block of " + std::to_string(d.threads) + " threads, " + std::to_string(regs) +
                        " registers per thread and " + std::to_string(d.smem_per_block) +
                        " bytes of shared memory must fit an SM");
    p.global_loads_per_fma = 1.0 / d.tile_m + 1.0 / d.tile_n;
    // The tensor cores spread a k-step's operands over the 4 lanes of a fragment row.
    const double k_lanes = d.tensor_core ? 4.0 : 1.0;
    p.operand_loads_per_fma = static_cast<double>(d.thread_m + d.thread_n) / (d.thread_m * d.thread_n) / k_lanes;
    const double load_instr = p.operand_loads_per_fma / d.load_width;
    // Instructions per warp FMA (32 FMAs): the FMA itself (an mma.sync m16n8k4 .f64 does 16 warps'
    // worth), its loads and the overhead (per FMA instruction).
    const double fma_instr = d.tensor_core ? 1.0 / 16 : 1.0;
    p.issue_fraction = fma_instr / (fma_instr + load_instr + d.overhead * fma_instr);
    if (m == 0 || n == 0 || k == 0) {
        p.ms = kLaunchOverheadUs / 1e3;
        p.limit = "empty: launch overhead only";
        return p;
    }
    // Per SM and clock: warp FMAs the lanes retire, instructions issued, wavefronts served.
    const double clock_hz = dev.sm_clock_mhz * clock_share * 1e6;
    const double warp_fmas = p.flops / 2.0 / dev.warp_size;  // FMA instructions over all warps
    const double per_sm = warp_fmas / dev.sm_count;
    // The tensor cores' main loop at its measured share of the rate (GemmDesign::main_share).
    const double share = d.tensor_core && d.main_share > 0 ? std::min(1.0, d.main_share) : 1.0;
    const double t_fma = per_sm / (lanes / static_cast<double>(dev.warp_size)) / clock_hz / share;
    const double t_issue = per_sm * fma_instr / p.issue_fraction / 4.0 / clock_hz;
    // Wavefronts per warp FMA instruction: per k-step a thread issues ceil(tm/w) + ceil(tn/w) load
    // instructions; each is served in one 128-byte wavefront per 128 bytes the warp requests
    // (32 lanes x w elements: a 16-byte load takes four, a broadcast included), and a strided
    // op(A) read from global memory one line, one wavefront, per lane; those serve tm x tn FMA
    // instructions (the tensor cores: a quarter of the loads, above).
    auto cdiv = [](long long a, long long b) { return static_cast<double>((a + b - 1) / b); };
    const double per_instr = std::max(1.0, std::ceil(32.0 * d.load_width * elem_bytes / 128.0));
    const double a_k = d.a_wavefronts_per_k > 0 ? d.a_wavefronts_per_k
                       : d.strided_a            ? 32.0 * d.thread_m
                                                : cdiv(d.thread_m, d.load_width) * per_instr;
    const double b_k = cdiv(d.thread_n, d.load_width) * per_instr;
    const double wavefronts = (a_k + b_k) / k_lanes / (d.thread_m * d.thread_n);
    const double t_l1 = per_sm * wavefronts / clock_hz;
    const double l2_bytes = p.flops / 2.0 * p.global_loads_per_fma * elem_bytes;
    const double t_l2 = l2_bytes / (kL2OverDram * dev.bandwidth_gbs * 1e9);
    // C's reads and writes at the kernel's measured epilogue bandwidth where that is less.
    const double c_gbs = d.epilogue_gbs > 0 && d.split_k <= 1 ? std::min(dev.bandwidth_gbs, d.epilogue_gbs) : dev.bandwidth_gbs;
    const double t_dram = static_cast<double>(elem_bytes) * (m * k + k * n) / (dev.bandwidth_gbs * 1e9) +
                          static_cast<double>(elem_bytes) * 2.0 * m * n / (c_gbs * 1e9);
    // The tail wave: the last wave's blocks leave SMs idle. A split k has split_k blocks per tile.
    const int split = std::max(1, d.split_k);
    const double tiles = std::ceil(static_cast<double>(m) / d.tile_m) * std::ceil(static_cast<double>(n) / d.tile_n);
    const double blocks = tiles * split;
    const double slots = static_cast<double>(dev.sm_count) * p.occ.blocks_per_sm;
    p.waves = blocks / slots;
    // The tail: the last round's blocks leave SMs idle, and fewer warps keep an SM's pipes less
    // busy. The tensor-core kernel, whose resident warps hold more independent mma.sync than the
    // pipe takes, only pays the blocks' imbalance across SMs.
    const int warps_per_block = static_cast<int>(detail::ceil_div(d.threads, dev.warp_size));
    const double blocks_per_sm = blocks / dev.sm_count;
    double tail = 1;
    if (d.tensor_core) {
        tail = std::ceil(blocks_per_sm) / blocks_per_sm;
    } else if (d.stages > 1) {
        // A pipelined kernel's warp waits only for its own fragments: each k-step it issues their
        // loads, then its FMAs, which wait a shared load's latency after the loads' issue slots
        // (stall: that wait's share of its time). A scheduler idles only while all its warps wait,
        // so w warps per scheduler keep it issuing 1 - stall^w of the clocks (independent warps'
        // waits overlap at random). The busiest SM runs ceil(blocks / SMs) blocks in rounds of at
        // most the resident blocks, each round at its warps' share; against the grid spread
        // evenly at the full rate that is the tail.
        const double loads = cdiv(d.thread_m, d.load_width) + cdiv(d.thread_n, d.load_width);
        const double fmas = static_cast<double>(d.thread_m) * d.thread_n;
        const double wait = kSharedLoadCycles + loads;
        const double stall = wait / (fmas + loads + wait);
        auto round = [&](long long j) {  // a round of j blocks, in block-times at the full rate
            return j == 0 ? 0.0 : j / (1.0 - std::pow(stall, static_cast<double>(j) * warps_per_block / kWarpSchedulers));
        };
        const long long busiest = static_cast<long long>(std::ceil(blocks_per_sm));
        const long long per_sm = p.occ.blocks_per_sm;
        tail = ((busiest / per_sm) * round(per_sm) + round(busiest % per_sm)) / blocks_per_sm;
    } else {
        // The other steps also wait for each stage's loads behind a barrier: an SM keeps its pipes
        // busy once it holds kBusyWarps warps, and the waves count slots of up to that many.
        const double busy_blocks = std::min<double>(p.occ.blocks_per_sm, std::ceil(kBusyWarps / warps_per_block));
        const double busy_waves = blocks / (static_cast<double>(dev.sm_count) * busy_blocks);
        tail = std::ceil(busy_waves) / busy_waves;
    }
    // Padding: edge tiles compute whole tiles.
    const double padded = tiles * d.tile_m * d.tile_n / (static_cast<double>(m) * n);
    struct Bound {
        double t;
        std::string words;
    };
    const Bound bounds[] = {
        {t_fma, "FMA lanes (" + detail::pct(p.issue_fraction) + " of issue slots are FMAs)"},
        {t_issue, "instruction issue: " + detail::pct(p.issue_fraction) + " of issued instructions are FMAs (" +
                      std::to_string(d.thread_m) + "x" + std::to_string(d.thread_n) + " results per thread)"},
        {t_l1, std::string(d.operands_from_l1 ? "L1" : "shared-memory") +
                   " wavefronts: " + std::to_string(wavefronts).substr(0, 5) + " per FMA instruction"},
        {t_l2, "L2 bandwidth: " + std::to_string(p.global_loads_per_fma).substr(0, 6) + " global loads per FMA (" +
                   std::to_string(d.tile_m) + "x" + std::to_string(d.tile_n) + " block tile)"},
        {t_dram, "DRAM bandwidth"},
    };
    // The compute bounds (all but DRAM) pay for the whole tiles, the idle slots of the last wave
    // and each block's pipeline fill and epilogue (about two k-tiles' time: kt / (kt + 2) of a
    // block in its main loop, what the tuned rule's estimate counts). DRAM moves the operands'
    // bytes once whatever the tiles: a 128 x 16 tile on 2 columns of C computes 8 times the FMAs
    // it needs, not 8 times the bytes.
    const double kt = std::max(1.0, static_cast<double>(k) / split / d.tile_k);
    // Only a pipelined block (stages > 1: the tuned kernels' cp.async stages) fills and drains a
    // pipeline; the steps without one wait for each k-tile's loads alike, which the rates above
    // already average over.
    const double fill = d.stages > 1 ? (kt + 2.0) / kt : 1.0;
    // The FMA tiles' main loop at its measured share of the counted rate (GemmDesign::main_share):
    // what the counts miss is in every compute bound alike.
    const double fma_share = !d.tensor_core && d.main_share > 0 ? std::min(1.0, d.main_share) : 1.0;
    const double compute_scale =
        std::max(tail, 1.0) * padded * fill / (d.op_rate > 0 ? d.op_rate : 1.0) / fma_share;
    const Bound* worst = &bounds[0];
    for (const Bound& b : bounds) {
        const double tb = &b == &bounds[4] ? b.t : b.t * compute_scale;
        const double tw = worst == &bounds[4] ? worst->t : worst->t * compute_scale;
        if (tb > tw) worst = &b;
    }
    const double t_main = worst == &bounds[4] ? worst->t : worst->t * compute_scale;
    // A split's second pass: the partials written and read, C read and written, one more launch.
    const double t_sum = split > 1 ? (2.0 * split + 2.0) * elem_bytes * static_cast<double>(m) * n /
                                         (dev.bandwidth_gbs * 1e9) + kLaunchOverheadUs * 1e-6
                                   : 0.0;
    const double t = t_main + t_sum;
    p.ms = t * 1e3 + kLaunchOverheadUs / 1e3 + std::max(0.0, d.copies_ms);
    p.gflops = p.flops / (p.ms * 1e6);
    std::ostringstream os;
    os << worst->words << "; occupancy " << detail::pct(p.occ.occupancy) << " (" << limiter_name(p.occ.limiter) << "), "
       << std::fixed;
    os.precision(2);
    os << p.waves << " waves";
    if (tail > 1.05) os << " (tail costs " << detail::pct(tail - 1) << ")";
    if (split > 1) os << "; k split in " << split << " (the partials' pass: " << detail::pct(t_sum / t) << ")";
    p.limit = os.str();
    return p;
}

}  // namespace wb::model
