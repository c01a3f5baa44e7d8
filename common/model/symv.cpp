// symv.cpp — the SYMV model per ladder stage (declared in model/symv.hpp, architecture §6).
//
// The chapters print this prediction beside every SYMV measurement; it runs (and is tested)
// without a GPU.
#include "model/symv.hpp"

#include "model/model_internal.hpp"
#include "roofline.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace wb::model {

using detail::ceil_div;
using detail::fmt;
using detail::invalid;

SymvModelLaunch symv_default_launch(Stage stage, int elem_bytes) {
    SymvModelLaunch l;
    l.y_blocks = 1;
    if (stage == Stage::kNaive) {
        l.block_threads = 128;
    } else if (stage == Stage::kShared || stage == Stage::kPattern) {
        l.block_threads = 256;
        l.nb = 32;
    } else if (stage == Stage::kAccess) {
        l.block_threads = 256;
        l.nb = 64;
    } else {
        l.block_threads = elem_bytes == 4 ? 256 : 512;
        l.nb = 64;
    }
    return l;
}

namespace {

SymvModelLaunch with_defaults(Stage stage, int elem_bytes, SymvModelLaunch l) {
    const SymvModelLaunch d = symv_default_launch(stage, elem_bytes);
    if (l.block_threads <= 0) l.block_threads = d.block_threads;
    if (l.nb <= 0) l.nb = d.nb;
    if (l.y_blocks <= 0) l.y_blocks = 1;
    return l;
}

}  // namespace

SymvStageDesign symv_stage_design(Stage stage, int elem_bytes, const SymvModelLaunch& launch) {
    const SymvModelLaunch l = with_defaults(stage, elem_bytes, launch);
    const int e = elem_bytes;
    SymvStageDesign d;
    d.stage = stage;
    // The model's assumptions about each step's kernel (the chapter text explains them); a chapter
    // that knows the real register count passes its own design.
    if (stage == Stage::kNaive) {
        d.regs_per_thread = 32;
        d.loads_in_flight = 4;  // the compiler unrolls the j loop: a few loads ahead
        d.reads_both_triangles = true;
        d.strided_mirror = true;
        d.summary = "one thread per row, the mirrored half read lda apart";
    } else if (stage == Stage::kShared) {
        d.regs_per_thread = 40;  // ptxas -v, sm_90
        d.smem_per_block = (32 * 33 + 32 + 16 * 32) * e;
        d.loads_in_flight = std::max(1, 32 * 32 / l.block_threads);  // one tile per barrier
        d.reads_both_triangles = true;
        d.summary = "tiles of the whole matrix mirrored in shared memory (Nath alg. 1)";
    } else if (stage == Stage::kPattern) {
        d.regs_per_thread = 40;  // ptxas -v, sm_90
        d.smem_per_block = (32 * 33 + 64 + 8 * 32) * e;
        d.loads_in_flight = std::max(1, 32 * 32 / l.block_threads);
        d.workspace = true;
        d.kernels = 2;
        d.summary = "the triangle once, tiles used twice, workspace + reduction (Nath alg. 2)";
    } else if (stage == Stage::kAccess) {
        d.regs_per_thread = e == 4 ? 80 : 148;  // ptxas -v, sm_90 (the off-diagonal kernel)
        d.smem_per_block = (4 * 64 + 2 * 64) * e;
        d.loads_in_flight = l.nb * l.nb / l.block_threads;  // L: the prefetched tile row
        d.workspace = true;
        d.columns = true;
        d.kernels = 3;
        d.summary = "diagonal, vertical off-diagonal with register prefetch, reduction (VECPAR'12)";
    } else if (stage == Stage::kTuned && is_symv_row_panels(l.nb, l.block_threads)) {
        d.regs_per_thread = 64;  // __launch_bounds__(1024): 64K registers / 1024 threads
        d.smem_per_block = (kSymvPanelThreads / 32) * (kSymvPanelRows + 1) * e;
        d.loads_in_flight = kSymvPanelUnroll;
        d.reads_both_triangles = true;
        d.row_panels = true;
        d.summary = "small n: rows of 8 read whole (both triangles), one kernel, no workspace";
    } else if (stage == Stage::kTuned) {
        // The kernel's register rule (its __launch_bounds__): the registers 64K per SM leave each
        // thread at the resident blocks the rule asks for.
        const int q = std::max(1, l.block_threads / std::max(1, l.nb));
        const int blocks = tuned_symv_min_blocks(l.nb, q, e);
        d.regs_per_thread = std::min(255, 65536 / (blocks * std::max(1, l.block_threads)) / 8 * 8);
        d.smem_per_block = (l.nb * (l.nb + 1) + 2 * q * l.nb + (l.nb / 32) * l.nb + l.nb) * e;
        d.loads_in_flight = std::max(1, l.nb * l.nb / l.block_threads);  // L, kept in flight by the double buffer
        d.workspace = !l.atomics;
        d.columns = true;
        d.kernels = 2;  // deterministic: main + reduction; atomics: beta pass + main
        d.summary = l.atomics ? "KBLAS: double buffers, Y blocks per column, atomics into y"
                              : "KBLAS: double buffers, Y blocks per column, fixed-order reduction";
    } else {
        throw std::invalid_argument(std::string("symv_stage_design: stage (\"") + stage_name(stage) +
                                    "\") has no SYMV model");
    }
    return d;
}

SymvPrediction predict_symv(Stage stage, long long n, int elem_bytes, const SymvModelLaunch& launch,
                            const DeviceProfile& dev, bool beta_nonzero) {
    if (elem_bytes != 4 && elem_bytes != 8) invalid("predict_symv", "elem_bytes", elem_bytes, "must be 4 or 8");
    return predict_symv(symv_stage_design(stage, elem_bytes, launch), n, elem_bytes,
                        with_defaults(stage, elem_bytes, launch), dev, beta_nonzero);
}

SymvPrediction predict_symv(const SymvStageDesign& design, long long n, int elem_bytes, const SymvModelLaunch& launch,
                            const DeviceProfile& dev, bool beta_nonzero) {
    const std::string fn = "predict_symv";
    if (n < 0) invalid(fn, "n", n, "must be >= 0");
    if (elem_bytes != 4 && elem_bytes != 8) invalid(fn, "elem_bytes", elem_bytes, "must be 4 or 8");
    const int warp = dev.warp_size > 0 ? dev.warp_size : 32;
    const SymvModelLaunch l = with_defaults(design.stage, elem_bytes, launch);
    if (l.block_threads < warp || l.block_threads > dev.max_threads_per_block || l.block_threads % warp != 0)
        invalid(fn, "launch.block_threads", l.block_threads,
                "must be a multiple of " + std::to_string(warp) + " in " + std::to_string(warp) + ".." +
                    std::to_string(dev.max_threads_per_block));
    if (l.nb < 0) invalid(fn, "launch.nb", l.nb, "must be >= 0");

    SymvPrediction p;
    const double e = elem_bytes, dn = static_cast<double>(n);
    const double overhead_ms = kLaunchOverheadUs * 1e-3 * design.kernels;
    p.optimal_gflops = 4.0 * dev.bandwidth_gbs / e;
    p.occ = occupancy(dev, l.block_threads, design.regs_per_thread, design.smem_per_block);
    if (n == 0) {
        p.predicted_ms = kLaunchOverheadUs * 1e-3;
        p.note = "empty: BLAS's quick return";
        return p;
    }
    p.useful_bytes = roofline::symv_bytes(n, static_cast<std::size_t>(elem_bytes));
    p.triangle_bytes = e * dn * (dn + 1) / 2;
    p.optimal_ms = dev.bandwidth_gbs > 0 ? p.useful_bytes / (dev.bandwidth_gbs * 1e6) : 0;

    // The matrix: once (storage aware) or twice (storage oblivious); naive's mirrored half one
    // sector per element unless L1/L2 keep the sectors for the next columns.
    const double seg = dev.segment_bytes > 0 ? dev.segment_bytes : 32;
    const double mirrored = dn * (dn - 1) / 2;  // elements of the other triangle
    if (design.reads_both_triangles) {
        p.matrix_bytes_cached = p.triangle_bytes + e * mirrored;
        p.matrix_bytes = design.strided_mirror ? p.triangle_bytes + seg * mirrored : p.matrix_bytes_cached;
    } else {
        p.matrix_bytes = p.matrix_bytes_cached = p.triangle_bytes;
    }
    p.transactions = static_cast<long long>(std::ceil(p.matrix_bytes / seg));

    // The workspace (Nath §5.1, §5.3): one partial per row per off-diagonal tile (the tile's
    // product that belongs to the other block), plus each design's own per-row partials.
    const long long nb = std::max(1, l.nb), nt = ceil_div(n, nb), yb = std::max(1, l.y_blocks);
    const long long offdiag = n * (nt - 1) / 2;
    if (design.stage == Stage::kPattern) p.partials = offdiag + n;
    else if (design.stage == Stage::kAccess) p.partials = offdiag + 2 * n;
    else if (design.stage == Stage::kTuned && !design.row_panels) p.partials = offdiag + yb * n;
    if (design.workspace) {
        p.workspace_bytes = 2 * e * static_cast<double>(p.partials);  // written, then read by the reduction
    } else if (design.stage == Stage::kTuned && !design.row_panels) {
        p.atomic_adds = p.partials;
        p.workspace_bytes = beta_nonzero ? 2 * e * dn : e * dn;  // the beta pass over y
    }
    p.vector_bytes = e * (dn + dn + (beta_nonzero ? dn : 0));
    p.dram_bytes = p.matrix_bytes + p.workspace_bytes + p.vector_bytes;

    // The grid and the busiest block.
    long long blocks = 0;
    double tile_rounds = 1;  // latencies one tile costs a block
    if (design.stage == Stage::kNaive) {
        blocks = ceil_div(n, l.block_threads);
        p.longest_walk = 0;
    } else if (design.row_panels) {
        // A block's threads step through n elements per row, (threads / rows) x unroll at a time.
        blocks = ceil_div(n, nb);
        p.longest_walk = ceil_div(n, static_cast<long long>(l.block_threads / nb) * design.loads_in_flight);
    } else {
        blocks = design.stage == Stage::kTuned ? nt * yb : nt;
        tile_rounds = std::max(1.0, static_cast<double>(nb * nb) / (l.block_threads * design.loads_in_flight));
        if (design.stage == Stage::kShared) p.longest_walk = nt;
        else if (design.stage == Stage::kPattern) p.longest_walk = nt;
        else if (design.stage == Stage::kAccess) p.longest_walk = std::max(1LL, nt - 1);
        else p.longest_walk = ceil_div(nt - 1, yb) + 1;
    }
    p.grid = grid_metrics(dev, blocks, l.block_threads, p.occ.blocks_per_sm);

    // Little's law over the resident threads, and the busiest block's own walk.
    const double resident = static_cast<double>(std::min(p.grid.active_threads, blocks * l.block_threads));
    const double inflight = resident * design.loads_in_flight;  // elements
    const double elements = (p.matrix_bytes_cached + p.workspace_bytes) / e;
    const double lat_ns = dev.latency_ns;
    const double latency_ms = lat_ns > 0 && inflight > 0 ? elements / inflight * lat_ns * 1e-6 : 0;
    p.latency_bound_gbs = lat_ns > 0 ? std::min(dev.bandwidth_gbs, inflight * e / lat_ns) : dev.bandwidth_gbs;
    p.walk_ms = design.stage == Stage::kNaive ? dn / design.loads_in_flight * lat_ns * 1e-6
                                        : static_cast<double>(p.longest_walk) * tile_rounds * lat_ns * 1e-6;
    const double bw_ms = dev.bandwidth_gbs > 0 ? p.dram_bytes / (dev.bandwidth_gbs * 1e6)
                                               : std::numeric_limits<double>::infinity();
    p.predicted_ms = std::max({bw_ms, latency_ms, p.walk_ms}) + overhead_ms;
    p.predicted_gbs = p.useful_bytes / (p.predicted_ms * 1e6);

    std::string note;
    if (p.occ.blocks_per_sm == 0) {
        note = "does not fit on an SM (" + std::string(limiter_name(p.occ.limiter)) + ")";
    } else {
        if (bw_ms >= latency_ms && bw_ms >= p.walk_ms) note = "bandwidth-bound";
        else if (p.walk_ms >= latency_ms && design.stage == Stage::kNaive)
            note = "walk-bound: each thread reads its row's " + std::to_string(n) + " elements " +
                   std::to_string(design.loads_in_flight) + " at a time (" + fmt("%.3f", p.walk_ms) + " ms)";
        else if (p.walk_ms >= latency_ms && design.row_panels)
            note = "walk-bound: each thread takes " + std::to_string(p.longest_walk) + " steps of " +
                   std::to_string(design.loads_in_flight) + " loads (" + fmt("%.3f", p.walk_ms) + " ms)";
        else if (p.walk_ms >= latency_ms)
            note = "walk-bound: the busiest block reads " + std::to_string(p.longest_walk) + " tiles (" +
                   fmt("%.3f", p.walk_ms) + " ms) while the rest have finished";
        else
            note = "latency-bound: " + fmt("%.0f", resident) + " resident threads keep " +
                   fmt("%.0f", inflight * e / 1024.0) + " KB in flight of the " +
                   fmt("%.0f", bytes_in_flight_needed(dev) / 1024.0) + " KB needed";
        note += "; occupancy " + fmt("%.0f%%", 100.0 * p.occ.occupancy) + " (" + limiter_name(p.occ.limiter) +
                "), " + fmt("%.2f", p.grid.waves) + " waves";
        if (design.reads_both_triangles) note += "; reads both triangles (storage oblivious)";
        if (p.workspace_bytes > 0 && design.workspace)
            note += "; workspace " + fmt("%.1f%%", 100.0 * p.workspace_bytes / p.triangle_bytes) + " of the triangle";
        if (p.atomic_adds > 0) note += "; " + std::to_string(p.atomic_adds) + " atomic adds into y";
    }
    p.note = note;
    return p;
}

}  // namespace wb::model
