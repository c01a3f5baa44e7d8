// gemv.cpp — the GEMV model per ladder stage (declared in model/gemv.hpp, architecture §6).
//
// The chapters print this prediction beside every GEMV measurement; it runs (and is tested)
// without a GPU.
#include "model/gemv.hpp"

#include "launch_limits.hpp"
#include "model/model_internal.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace wb::model {

using detail::ceil_div;
using detail::fmt;
using detail::invalid;

// ---------------------------------------------------------------------------------------------
// GEMV per ladder stage
// ---------------------------------------------------------------------------------------------

GemvStageDesign gemv_stage_design(Stage stage, bool trans, int elem_bytes,
                                  int block_threads, const DeviceProfile& dev) {
    (void)trans;
    (void)dev;
    GemvStageDesign d;
    d.stage = stage;
    // These are the model's assumptions about each step's kernel (chapter text explains them);
    // a chapter that knows the real register count or tile passes its own design.
    if (stage == Stage::kNaive) {
        d.regs_per_thread = 32;
        d.smem_per_block = 0;
        d.loads_in_flight = 8;  // the compiler unrolls the k loop and keeps about 8 loads in flight
        d.reduction_per_thread = 0;
        d.uncoalesced_t = true;
        d.summary = "one thread per result, A straight from global memory";
    } else if (stage == Stage::kShared) {
        d.regs_per_thread = 32;
        d.smem_per_block = block_threads * 8 * elem_bytes;  // a tile of 8 elements per thread
        d.loads_in_flight = 8;  // one tile load, then a barrier
        d.reduction_per_thread = 0;
        d.summary = "A staged through shared memory in coalesced tiles, x in constant memory";
    } else if (stage == Stage::kPattern) {
        d.regs_per_thread = 32;
        d.smem_per_block = block_threads * elem_bytes;  // partial sums for the block reduction
        d.loads_in_flight = 8;
        d.reduction_per_thread = 64;  // several threads share one result's sum
        d.summary = "several threads share each result; partial sums reduced in shared memory";
    } else if (stage == Stage::kAccess) {
        d.regs_per_thread = 40;
        d.smem_per_block = block_threads * elem_bytes;
        d.loads_in_flight = 16;  // aligned 16-byte vector loads, several per thread in flight
        d.reduction_per_thread = 64;
        d.summary = "aligned vector loads, padded shared memory, partition-aware start";
    } else if (stage == Stage::kTuned) {
        d.regs_per_thread = 64;
        d.smem_per_block = block_threads * elem_bytes;
        d.loads_in_flight = 32;  // double-buffered register prefetch: two sets of vector loads
        d.reduction_per_thread = 64;
        d.summary = "unrolled, register prefetch (double buffering), hoisted index arithmetic";
    } else {
        throw std::invalid_argument(std::string("gemv_stage_design: stage (\"") + stage_name(stage) +
                                    "\") has no GEMV model");
    }
    return d;
}

GemvPrediction predict_gemv(Stage stage, bool trans, long long m, long long n,
                            int elem_bytes, int block_threads, const DeviceProfile& dev,
                            bool beta_nonzero) {
    return predict_gemv(gemv_stage_design(stage, trans, elem_bytes, block_threads, dev), trans, m, n,
                        elem_bytes, block_threads, dev, beta_nonzero);
}

GemvPrediction predict_gemv(const GemvStageDesign& design, bool trans, long long m, long long n,
                            int elem_bytes, int block_threads, const DeviceProfile& dev,
                            bool beta_nonzero) {
    const std::string fn = "predict_gemv";
    if (m < 0) invalid(fn, "m", m, "must be >= 0");
    if (n < 0) invalid(fn, "n", n, "must be >= 0");
    if (elem_bytes != 4 && elem_bytes != 8) invalid(fn, "elem_bytes", elem_bytes, "must be 4 or 8");
    const int warp = dev.warp_size > 0 ? dev.warp_size : 32;
    if (block_threads < 1 || block_threads > dev.max_threads_per_block || block_threads % warp != 0)
        invalid(fn, "block_threads", block_threads,
                "must be a multiple of " + std::to_string(warp) + " in " + std::to_string(warp) + ".." +
                    std::to_string(dev.max_threads_per_block));

    GemvPrediction p;
    const long long results = trans ? n : m;    // len(y)
    const long long reduction = trans ? m : n;  // len(x)
    const double e = elem_bytes;
    p.useful_bytes = e * (static_cast<double>(m) * static_cast<double>(n) + static_cast<double>(reduction) +
                          static_cast<double>(results) * (beta_nonzero ? 2 : 1));
    p.occ = occupancy(dev, block_threads, design.regs_per_thread, design.smem_per_block);

    const double overhead_ms = kLaunchOverheadUs * 1e-3;
    if (m == 0 || n == 0) {
        p.useful_bytes = 0;  // BLAS returns at once: nothing is read or written
        p.predicted_ms = p.predicted_ms_cached = overhead_ms;
        p.note = "empty: launch overhead only";
        return p;
    }

    // Grid: one thread per result, or results x ceil(reduction / reduction_per_thread).
    const long long threads_total =
        design.reduction_per_thread > 0 ? results * ceil_div(reduction, design.reduction_per_thread)
                                        : results;
    p.grid = grid_metrics(dev, ceil_div(threads_total, block_threads), block_threads, p.occ.blocks_per_sm);

    // A: coalesced reading of contiguous columns (N: a warp's rows of one column; T: a warp's
    // stretch of one column), or naive T: a warp reads one element from each of 32 columns.
    const bool strided = trans && design.uncoalesced_t;
    const long long col = m;  // lda = m: columns assumed aligned to a sector
    const WarpAccess full = warp_access(dev, 0, 1, elem_bytes, warp);
    const long long rem = col % warp;
    const WarpAccess part = rem > 0 ? warp_access(dev, 0, 1, elem_bytes, static_cast<int>(rem)) : WarpAccess{};
    const long long coalesced_tx = (col / warp * full.transactions + part.transactions) * n;
    const double coalesced_bytes = static_cast<double>((col / warp * full.bytes_moved + part.bytes_moved)) * n;
    double a_bytes = coalesced_bytes;
    double per_load_bytes = e;  // DRAM bytes one thread's load moves
    if (strided) {
        const int stride = static_cast<int>(std::min<long long>(m, kMaxInt32));
        const WarpAccess sw = warp_access(dev, 0, stride, elem_bytes, warp);
        const long long nrem = n % warp;
        const WarpAccess sp = nrem > 0 ? warp_access(dev, 0, stride, elem_bytes, static_cast<int>(nrem)) : WarpAccess{};
        p.transactions = (n / warp * sw.transactions + sp.transactions) * m;
        a_bytes = static_cast<double>(n / warp * sw.bytes_moved + sp.bytes_moved) * static_cast<double>(m);
        per_load_bytes = static_cast<double>(sw.bytes_moved) / warp;
    } else {
        p.transactions = coalesced_tx;
    }
    const double xy_bytes = e * (static_cast<double>(reduction) + static_cast<double>(results) * (beta_nonzero ? 2 : 1));
    p.dram_bytes = a_bytes + xy_bytes;
    p.dram_bytes_cached = coalesced_bytes + xy_bytes;
    p.efficiency = p.useful_bytes / p.dram_bytes;

    // Little's law. Resident threads keep loads_in_flight elements outstanding each, so elements
    // arrive at most at inflight / latency per ns whatever each load moves: the latency-bound time
    // is the same with or without sector reuse, while the DRAM time grows with the bytes moved.
    const double resident_threads = static_cast<double>(std::min(p.grid.active_threads, threads_total));
    const double inflight = resident_threads * design.loads_in_flight;  // elements
    const double elements = p.useful_bytes / e;
    const double latency_ms =
        dev.latency_ns > 0 && inflight > 0 ? elements / inflight * dev.latency_ns * 1e-6
                                           : (inflight > 0 ? 0.0 : std::numeric_limits<double>::infinity());
    p.latency_bound_gbs = dev.latency_ns > 0
                              ? std::min(dev.bandwidth_gbs, inflight * per_load_bytes / dev.latency_ns)
                              : dev.bandwidth_gbs;
    const auto time_ms = [&](double bytes) {
        const double bw_ms = dev.bandwidth_gbs > 0 ? bytes / (dev.bandwidth_gbs * 1e6)
                                                   : std::numeric_limits<double>::infinity();
        return std::max(bw_ms, latency_ms) + overhead_ms;
    };
    const bool latency_bound = latency_ms > p.dram_bytes / (dev.bandwidth_gbs * 1e6);
    p.predicted_ms = time_ms(p.dram_bytes);
    p.predicted_ms_cached = time_ms(p.dram_bytes_cached);
    p.predicted_gbs = p.useful_bytes / (p.predicted_ms * 1e6);
    p.predicted_gbs_cached = p.useful_bytes / (p.predicted_ms_cached * 1e6);

    std::string note;
    if (p.occ.blocks_per_sm == 0) {
        note = "does not fit on an SM (" + std::string(limiter_name(p.occ.limiter)) + ")";
    } else {
        note = latency_bound
                   ? "latency-bound: " + fmt("%.0f", resident_threads) + " resident threads keep " +
                         fmt("%.0f", inflight * per_load_bytes / 1024.0) + " KB in flight of the " +
                         fmt("%.0f", bytes_in_flight_needed(dev) / 1024.0) + " KB needed"
                   : "bandwidth-bound";
        note += "; occupancy " + fmt("%.0f%%", 100.0 * p.occ.occupancy) + " (" +
                limiter_name(p.occ.limiter) + "), " + fmt("%.2f", p.grid.waves) + " waves";
        if (p.grid.total_blocks < dev.sm_count)
            note += "; only " + std::to_string(p.grid.total_blocks) + " of " + std::to_string(dev.sm_count) +
                    " SMs get a block";
        if (strided)
            note += "; naive T: each warp load touches " + std::to_string(p.transactions / std::max(1LL, m) /
                                                                            std::max(1LL, ceil_div(n, warp))) +
                    " segments for " + std::to_string(warp) + " elements (efficiency " +
                    fmt("%.3f", p.efficiency) + ") unless L1/L2 keep the sectors; cached case " +
                    fmt("%.0f", p.predicted_gbs_cached) + " GB/s";
    }
    p.note = note;
    return p;
}

}  // namespace wb::model
