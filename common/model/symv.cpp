// symv.cpp — the SYMV model per ladder stage (declared in model/symv.hpp, architecture §6).
//
// The chapters print this prediction beside every SYMV measurement; it runs (and is tested)
// without a GPU.
#include "model/symv.hpp"

#include "model/kernel_time.hpp"
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
                            const DeviceProfile& dev, bool beta_nonzero, bool warm) {
    if (elem_bytes != 4 && elem_bytes != 8) invalid("predict_symv", "elem_bytes", elem_bytes, "must be 4 or 8");
    return predict_symv(symv_stage_design(stage, elem_bytes, launch), n, elem_bytes,
                        with_defaults(stage, elem_bytes, launch), dev, beta_nonzero, warm);
}

SymvPrediction predict_symv(const SymvStageDesign& design, long long n, int elem_bytes, const SymvModelLaunch& launch,
                            const DeviceProfile& dev, bool beta_nonzero, bool warm) {
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

    // The kernels, each described for model/kernel_time (the rounds per tile are read off the
    // compiled loops, cuobjdump -sass, sm_90). `walks`: each block's dependent DRAM round trips,
    // in launch order (the longest first where the kernel orders them so).
    const double tile_bytes = e * static_cast<double>(nb) * static_cast<double>(nb);
    std::vector<KernelWork> kernels;
    KernelWork main;
    main.blocks_per_sm = std::max(1, p.occ.blocks_per_sm);
    const int warps = std::max(1, l.block_threads / 32);
    long long blocks = 0;
    if (design.stage == Stage::kNaive) {
        // One thread per row walks n elements, 4 loads in flight (the loop is unrolled 4 times);
        // the mirrored half reads one line per lane (32 wavefronts), the stored half one.
        blocks = ceil_div(n, l.block_threads);
        main.blocks = blocks;
        main.rounds = std::ceil(dn / design.loads_in_flight) + 1;
        main.wavefronts = warps * dn * (0.5 * 32 + 0.5 * std::max(1.0, 32 * e / 128) + 1);
        main.dram_bytes = p.matrix_bytes_cached + p.vector_bytes;
        p.longest_walk = 0;
        kernels.push_back(main);
    } else if (design.row_panels) {
        // kSymvPanelRows rows per block, each read whole by block_threads / rows lanes, kUnroll
        // loads of each part in flight per step: one round trip per step.
        blocks = ceil_div(n, nb);
        main.blocks = blocks;
        p.longest_walk = ceil_div(n, static_cast<long long>(l.block_threads / nb) * design.loads_in_flight);
        main.rounds = static_cast<double>(p.longest_walk) + 1;
        main.dram_bytes = p.matrix_bytes_cached + p.vector_bytes;
        kernels.push_back(main);
    } else if (design.stage == Stage::kShared) {
        // Block row I walks all nt tiles: per tile x_J is loaded and stored first (one round
        // trip: every block asks for the same slice at once, so from DRAM), then the tile's
        // loads (in flight together: a second).
        blocks = nt;
        main.blocks = blocks;
        main.rounds = 2.0 * static_cast<double>(nt) + 1;
        main.dram_bytes = p.matrix_bytes_cached + p.vector_bytes;
        p.longest_walk = nt;
        kernels.push_back(main);
    } else if (design.stage == Stage::kPattern) {
        // Block row I (longest first) walks its I + 1 stored tiles, two round trips each (x_J,
        // then the tile), writing the mirror's partials; then the reduction pass.
        blocks = nt;
        for (long long b = 0; b < nt; ++b) main.walks.push_back(2.0 * static_cast<double>(nt - b) + 1);
        main.dram_bytes = p.matrix_bytes_cached + p.vector_bytes + p.workspace_bytes / 2;
        // Per tile, after its data: the row sums (32 / block_y dependent FMAs after their shared
        // loads), a barrier, the column sums (as many), a barrier, the sum of the block_y partials,
        // a barrier: spread over the tile's two round trips.
        const double fma = e == 4 ? kFmaCycles : kDfmaCycles, per = 32.0 / std::max(1, warps);
        main.chain_cycles = (2 * (kSharedLoadCycles + per * fma) + 3 * kBarrierCycles +
                             kSharedLoadCycles + warps * fma) / 2;
        p.longest_walk = nt;
        kernels.push_back(main);
    } else if (design.stage == Stage::kAccess) {
        // Kernel 1: one block per diagonal tile (x, then the tile: two round trips).
        KernelWork diag;
        diag.blocks = nt;
        diag.blocks_per_sm = main.blocks_per_sm;
        diag.rounds = 3;
        diag.dram_bytes = e * dn * nb / 2 + e * dn;
        kernels.push_back(diag);
        // Kernel 2: block column J (longest first) walks its nt - 1 - J tiles, the next tile's
        // loads in flight while this one is used: a round trip per tile.
        blocks = nt;
        for (long long b = 0; b < nt; ++b) main.walks.push_back(static_cast<double>(nt - 1 - b) + 2);
        main.dram_bytes = p.matrix_bytes_cached - diag.dram_bytes + e * dn + p.workspace_bytes / 2;
        // Per tile, after its data: the row sum, L = nb / Q dependent FMAs, a barrier, the sum of
        // the Q thread columns' partials, a barrier; the next tile's registers are then copied
        // from the prefetch buffer, which waits for it: the chain adds to the round trip.
        const double fma = e == 4 ? kFmaCycles : kDfmaCycles, q = std::max(1LL, l.block_threads / std::max(1LL, nb));
        main.chain_cycles = (nb / q) * fma + 2 * kBarrierCycles + kSharedLoadCycles + q * fma;
        p.longest_walk = std::max(1LL, nt - 1);
        kernels.push_back(main);
    } else {  // tuned, KBLAS tiles
        // nt x Y blocks: block (J, y) walks tiles J + 1 + y, + Y, ... (longest columns first),
        // double-buffered: a round trip per tile, one more for its first tile and x_J, one for
        // the column sums; block y = 0 also uses the diagonal tile (copied in during the walk).
        blocks = nt * yb;
        for (long long b = 0; b < nt; ++b)
            for (long long y = 0; y < yb; ++y) {
                const long long tiles = std::max(0LL, ceil_div(nt - 1 - b - y, yb));
                main.walks.push_back(static_cast<double>(tiles) + 2);
            }
        main.dram_bytes = p.matrix_bytes_cached + e * dn + (design.workspace ? p.workspace_bytes / 2 : 0.0);
        // Of a block's tiles + 2 round trips, the bytes move in tiles of them (the first tile's
        // with x_J, then each next tile's while the last one is used); the last tile's use and
        // the column sums move none: a block's end, paid where few blocks share an SM.
        main.bare_rounds = 2;
        // The L2's requests: the layouts whose warps read whole 128-byte lines of a column ask
        // for a line per request; the warp-rows layout's load instruction reads 8 rows of 4
        // columns, a request of 8 elements per column (one sector in float, two in double). Each
        // line also crosses the L2's fabric between its two partitions once (Nsight Compute,
        // float 16384: 4.25 M line requests from the SMs and 4.19 M on the fabric for the
        // vector layout; 14.65 M and 6.1 M for warp-rows; docs/notes/symv.md).
        const double lines = p.matrix_bytes_cached / 128.0;
        main.l2_requests = (l.warp_rows ? p.matrix_bytes_cached / std::min(128.0, 8.0 * e) : lines) + lines;
        p.longest_walk = ceil_div(nt - 1, yb) + 1;
        if (!design.workspace) {  // atomics: y = beta y first, a kernel of its own
            KernelWork beta;
            beta.blocks = ceil_div(n, 256);
            beta.rounds = 2;
            beta.dram_bytes = e * dn * (beta_nonzero ? 2 : 1);
            kernels.push_back(beta);
        }
        kernels.push_back(main);
    }
    if (design.workspace) {
        // The fixed-order reduction (symv_common.cu): 32 rows per block of 8 groups, each thread
        // loading its row's partials 8 at a time; it reads the partials (from the L2 where they
        // were kept) and writes y.
        KernelWork red;
        red.blocks = ceil_div(n, 32);
        red.blocks_per_sm = 8;
        const double per_row = static_cast<double>(p.partials) / dn;
        red.rounds = std::ceil(per_row / 64.0) + 1;
        red.dram_bytes = p.workspace_bytes / 2 + p.vector_bytes;
        kernels.push_back(red);
    }
    p.grid = grid_metrics(dev, blocks, l.block_threads, p.occ.blocks_per_sm);
    (void)tile_bytes;

    // Warm (CG's next iteration): the stored triangle (naive and shared read it twice, but the
    // same bytes) and the partials hit in the L2 where they fit.
    const bool in_l2 = warm && dev.l2_bytes > 0 && p.triangle_bytes + p.workspace_bytes <= dev.l2_bytes;
    for (KernelWork& kw : kernels) kw.warm = in_l2;
    std::vector<KernelTime> parts;
    p.predicted_ms = kernels_time_ms(kernels, dev, &parts);
    // The main kernel's part (the first with blocks of the step's own launch).
    const std::size_t main_index = design.stage == Stage::kAccess || (!design.workspace && design.stage == Stage::kTuned &&
                                                                       !design.row_panels)
                                       ? 1
                                       : 0;
    p.main = parts[std::min(main_index, parts.size() - 1)];
    p.walk_ms = p.main.walk_ms;
    p.predicted_gbs = p.useful_bytes / (p.predicted_ms * 1e6);
    const double resident = static_cast<double>(std::min(p.grid.active_threads, blocks * l.block_threads));
    const double inflight = resident * design.loads_in_flight;  // elements
    p.latency_bound_gbs = dev.idle_latency_ns > 0 ? std::min(dev.bandwidth_gbs, inflight * e / dev.idle_latency_ns)
                                                  : dev.bandwidth_gbs;

    std::string note;
    if (p.occ.blocks_per_sm == 0) {
        note = "does not fit on an SM (" + std::string(limiter_name(p.occ.limiter)) + ")";
    } else {
        const KernelTime& t = p.main;
        if (t.limit == KernelLimit::dram) note = "bandwidth-bound";
        else if (t.limit == KernelLimit::walk && design.stage == Stage::kNaive)
            note = "walk-bound: each thread reads its row's " + std::to_string(n) + " elements " +
                   std::to_string(design.loads_in_flight) + " at a time";
        else if (t.limit == KernelLimit::walk && design.row_panels)
            note = "walk-bound: each thread takes " + std::to_string(p.longest_walk) + " steps of " +
                   std::to_string(design.loads_in_flight) + " loads";
        else if (t.limit == KernelLimit::l2_requests)
            note = "L2-request-bound: " + fmt("%.1f", t.l2_ms * 1e3) + " us of the L2's lookups against " +
                   fmt("%.1f", t.dram_ms * 1e3) + " us of DRAM";
        else if (t.limit == KernelLimit::walk)
            note = "walk-bound: the busiest block reads " + std::to_string(p.longest_walk) +
                   " tiles, a round trip each, the bus busy while many blocks walk";
        else
            note = kernel_limit_name(t.limit);
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
