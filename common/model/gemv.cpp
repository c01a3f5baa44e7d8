// gemv.cpp — the GEMV model per ladder stage (declared in model/gemv.hpp, architecture §6).
//
// The chapters print this prediction beside every GEMV measurement; it runs (and is tested)
// without a GPU. Each stage's kernels (kernels/<stage>/gemv.cu) are described by their grid, the
// elements each thread loads and how many of them it keeps in flight, the L1/shared wavefronts
// per block and the DRAM bytes; model/kernel_time.cpp times them.
#include "model/gemv.hpp"

#include "launch_limits.hpp"
#include "model/model_internal.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace wb::model {

using detail::ceil_div;
using detail::fmt;
using detail::invalid;

namespace {

/// Chapter 2's chunk of x in constant memory (kernels/shared/gemv.cu: 24 KB per launch).
long long shared_chunk(int elem_bytes) { return elem_bytes == 4 ? 6144 : 3072; }

/// L1 wavefronts of one warp instruction that reads `bytes_per_lane` contiguous bytes per lane,
/// lanes adjacent: one per 128-byte line it covers, at least one.
double coalesced_wavefronts(int lanes, int bytes_per_lane) {
    return std::max(1.0, std::ceil(static_cast<double>(lanes) * bytes_per_lane / 128.0));
}

/// Shared-memory wavefronts of a warp access whose lane i touches element i x stride (elements
/// of elem_bytes): the most distinct 4-byte words any bank is asked for (the n-way conflict),
/// and at least the 128 bytes per wavefront the pipe moves.
double smem_wavefronts(const DeviceProfile& dev, long long stride_elems, int elem_bytes) {
    std::vector<long long> words;
    const int per = std::max(1, elem_bytes / 4);
    for (int lane = 0; lane < 32; ++lane)
        for (int w = 0; w < per; ++w) words.push_back(lane * stride_elems * per + w);
    return std::max<double>(bank_conflict_ways(dev, words), 32.0 * elem_bytes / 128.0);
}

/// Registers of the tuned N kernel by its unroll U (ptxas, sm_90, the K = 1 instances of
/// kernels/tuned/gemv.cu): the 2 U vectors in flight dominate.
int tuned_n_regs(int u, int elem_bytes) {
    if (u >= 8) return elem_bytes == 4 ? 118 : 128;
    if (u >= 4) return elem_bytes == 4 ? 64 : 81;
    return 64;
}

/// The same for the element-load kernel (columns not on 16 bytes; ptxas, sm_90, K = 0).
int tuned_n_element_regs(int u, int elem_bytes) {
    if (u >= 16) return 107;  // float only
    if (u >= 8) return elem_bytes == 4 ? 64 : 94;
    if (u >= 4) return elem_bytes == 4 ? 62 : 79;
    return elem_bytes == 4 ? 40 : 54;
}

}  // namespace

std::pair<long long, int> gemv_model_split(int requested_y, long long tiles, long long k, int blocks_per_sm,
                                           long long min_k, int max_y, int step, const DeviceProfile& dev) {
    long long y = requested_y;
    if (y <= 0) {  // derive_split: enough blocks for blocks_per_sm per SM, each at least min_k long
        const long long target = static_cast<long long>(dev.sm_count) * blocks_per_sm;
        y = tiles > 0 ? ceil_div(target, tiles) : 1;
        y = std::min<long long>(y, std::max<long long>(1, std::min<long long>(max_y, k / std::max(1LL, min_k))));
        y = std::max<long long>(1, y);
    }
    // gemv_split_reduction: whole steps per block, then the blocks those need.
    const long long kpb = std::max<long long>(step, ceil_div(ceil_div(std::max(1LL, k), y), step) * step);
    return {kpb, static_cast<int>(std::max<long long>(1, ceil_div(std::max(1LL, k), kpb)))};
}

GemvModelLaunch gemv_model_launch(Stage stage, bool trans, int block_threads) {
    GemvModelLaunch l;
    const int t = block_threads;
    if (stage == Stage::kNaive) {
        l.block_x = t > 0 ? t : 256;
    } else if (stage == Stage::kShared) {
        l.block_x = trans ? 32 : (t > 0 ? t : 256);
    } else if (stage == Stage::kPattern || stage == Stage::kAccess) {
        l.block_x = 32;
        l.block_y = t > 0 ? std::max(1, t / 32) : 8;
    } else if (stage == Stage::kTuned) {
        if (trans) {
            l.block_x = 32;
            l.block_y = t > 0 ? std::max(1, t / 32) : 8;
            l.nb = 4;
        } else {
            l.block_x = 16;
            l.block_y = t > 0 ? std::max(1, t / 16) : 16;
            l.ept = 8;
        }
        l.Y = 1;
    }
    return l;
}

GemvStageDesign gemv_stage_design(Stage stage, bool trans, int elem_bytes, const GemvModelLaunch& launch,
                                  const DeviceProfile& dev) {
    GemvStageDesign d;
    d.stage = stage;
    const int e = elem_bytes, w = 16 / std::max(1, e);  // elements per 16-byte load
    const bool f = e == 4;
    // Registers and shared memory: ptxas (cuobjdump -res-usage, sm_90) of each stage's kernels.
    // Loads in flight: the compiled loops (cuobjdump -sass, sm_90), what each thread issues before
    // its first use of them.
    if (stage == Stage::kNaive) {
        d.regs_per_thread = trans ? 29 : 32;
        // The loop is unrolled 16 times; the first FMA waits on the 9th (float) or 4th (double)
        // load of A: about that many of each thread's loads are outstanding at a time.
        d.loads_in_flight = f ? 9 : 4;
        d.uncoalesced_t = true;
        d.summary = "one thread per result, A straight from global memory";
    } else if (stage == Stage::kShared) {
        d.regs_per_thread = 32;
        if (trans) {
            const int nb = launch.block_x > 0 ? launch.block_x : 32;
            d.smem_per_block = 1024 + nb * nb * e;
            d.loads_in_flight = 4;  // the tile's column loop is unrolled 4 times, each load stored at once
            d.summary = "A staged through an unpadded shared tile (coalesced loads, conflicting stores)";
        } else {
            d.smem_per_block = 1024;
            d.loads_in_flight = f ? 14 : 8;  // unrolled 16 times: 14 (float) or 8 (double) loads ahead
            d.summary = "x in constant memory, one thread per result";
        }
    } else if (stage == Stage::kPattern) {
        const int q = launch.block_y > 0 ? launch.block_y : 8;
        d.regs_per_thread = 32;
        d.smem_per_block = (trans ? (f ? 9360 : 17680) : (f ? 5136 : 9232)) + q * 32 * e;
        d.loads_in_flight = 1;  // not unrolled: each load is used before the next is issued
        d.summary = "Q threads per result, Y blocks per tile, partial sums in shared memory";
    } else if (stage == Stage::kAccess) {
        const int q = launch.block_y > 0 ? launch.block_y : 8;
        d.regs_per_thread = trans ? 40 : 56;
        d.smem_per_block = trans ? (f ? 9488 : 17936) + q * 32 * e : (f ? 5136 : 9232) + q * 32 * w * e;
        d.loads_in_flight = w;  // one 16-byte load at a time (the loop is not unrolled)
        d.summary = "16-byte loads, padded tile, staggered starts";
    } else if (stage == Stage::kTuned) {
        if (trans && launch.loop) {
            // tuned/gemv_t_loop.cuh: 256 threads, the next step's C vectors and x in flight.
            const int c = launch.nb > 0 ? launch.nb : 4;
            d.regs_per_thread = c >= 8 ? (f ? 120 : 128) : c >= 4 ? 80 : (f ? 66 : 80);
            d.smem_per_block = 1024;
            d.loads_in_flight = (c + 1) * w;
        } else if (trans && launch.block_x > 0 && launch.block_x < 32) {
            // tuned/gemv_t_shapes.cuh, gemv_t_short_kernel: its loop is not pipelined (the SASS
            // issues one iteration's C vectors and x, then waits for them): C vectors in flight.
            const int c = launch.nb > 0 ? launch.nb : 4;
            d.regs_per_thread = c >= 8 ? (f ? 80 : 98) : c >= 4 ? (f ? 40 : 62) : (f ? 32 : 40);
            d.smem_per_block = 1024;
            d.loads_in_flight = c * w;
        } else if (trans) {
            const int c = launch.nb > 0 ? launch.nb : 4;
            d.regs_per_thread = c >= 8 ? (f ? 96 : 120) : c >= 4 ? (f ? 61 : 64) : (f ? 40 : 46);
            d.smem_per_block = c >= 8 ? (f ? 6160 : 11280) : (f ? 5648 : 10256);
            d.loads_in_flight = 2 * c * w;  // double buffer: two steps of C 16-byte loads
        } else {
            const int u = launch.ept > 0 ? launch.ept : 8;
            const int bx = launch.block_x > 0 ? launch.block_x : 16, q = launch.block_y > 0 ? launch.block_y : 16;
            const int wn = launch.rows_per_load == 1 ? 1 : w;  // element loads: one row per thread
            d.regs_per_thread = wn == 1 ? tuned_n_element_regs(u, e) : tuned_n_regs(u, e);
            d.smem_per_block = (f ? 5136 : 9232) + bx * wn * (q + 2) * e;
            d.loads_in_flight = 2 * u * wn;  // double buffer: two batches of U loads
        }
        d.summary = "registers, 16-byte loads, double-buffered prefetch, a launch derived from the shape";
        d.regs_per_thread = std::min(d.regs_per_thread, dev.max_regs_per_thread);  // the compiler fits the device
    } else {
        throw std::invalid_argument(std::string("gemv_stage_design: stage (\"") + stage_name(stage) +
                                    "\") has no GEMV model");
    }
    return d;
}

GemvStageDesign gemv_stage_design(Stage stage, bool trans, int elem_bytes, int block_threads, const DeviceProfile& dev) {
    return gemv_stage_design(stage, trans, elem_bytes, gemv_model_launch(stage, trans, block_threads), dev);
}

GemvPrediction predict_gemv(Stage stage, bool trans, long long m, long long n, int elem_bytes,
                            const GemvModelLaunch& launch, const DeviceProfile& dev, bool beta_nonzero, bool warm) {
    return predict_gemv(gemv_stage_design(stage, trans, elem_bytes, launch, dev), trans, m, n, elem_bytes, launch,
                        dev, beta_nonzero, warm);
}

namespace {

void check_threads(int block_threads, const DeviceProfile& dev) {
    const int warp = dev.warp_size > 0 ? dev.warp_size : 32;
    if (block_threads < 1 || block_threads > dev.max_threads_per_block || block_threads % warp != 0)
        invalid("predict_gemv", "block_threads", block_threads,
                "must be a multiple of " + std::to_string(warp) + " in " + std::to_string(warp) + ".." +
                    std::to_string(dev.max_threads_per_block));
}

}  // namespace

GemvPrediction predict_gemv(Stage stage, bool trans, long long m, long long n, int elem_bytes, int block_threads,
                            const DeviceProfile& dev, bool beta_nonzero) {
    check_threads(block_threads, dev);
    return predict_gemv(stage, trans, m, n, elem_bytes, gemv_model_launch(stage, trans, block_threads), dev,
                        beta_nonzero);
}

GemvPrediction predict_gemv(const GemvStageDesign& design, bool trans, long long m, long long n, int elem_bytes,
                            int block_threads, const DeviceProfile& dev, bool beta_nonzero) {
    check_threads(block_threads, dev);
    return predict_gemv(design, trans, m, n, elem_bytes, gemv_model_launch(design.stage, trans, block_threads), dev,
                        beta_nonzero);
}

GemvPrediction predict_gemv(const GemvStageDesign& design, bool trans, long long m, long long n, int elem_bytes,
                            const GemvModelLaunch& launch_in, const DeviceProfile& dev, bool beta_nonzero, bool warm) {
    const std::string fn = "predict_gemv";
    if (m < 0) invalid(fn, "m", m, "must be >= 0");
    if (n < 0) invalid(fn, "n", n, "must be >= 0");
    if (elem_bytes != 4 && elem_bytes != 8) invalid(fn, "elem_bytes", elem_bytes, "must be 4 or 8");
    const Stage stage = design.stage;
    const GemvModelLaunch dl = gemv_model_launch(stage, trans, 0);
    GemvModelLaunch l = launch_in;
    if (l.block_x <= 0) l.block_x = dl.block_x;
    if (l.block_y <= 0) l.block_y = std::max(1, dl.block_y);
    if (l.nb <= 0) l.nb = dl.nb;
    if (l.ept <= 0) l.ept = dl.ept;
    const int threads = l.block_x * (stage == Stage::kNaive || stage == Stage::kShared ? 1 : l.block_y);
    if (threads < 1 || threads > dev.max_threads_per_block)
        invalid(fn, "threads per block", threads, "must be in 1.." + std::to_string(dev.max_threads_per_block));

    GemvPrediction p;
    const long long results = trans ? n : m;    // len(y)
    const long long reduction = trans ? m : n;  // len(x)
    const double e = elem_bytes;
    const int w = 16 / elem_bytes;
    const int warps = static_cast<int>(ceil_div(threads, 32));
    p.useful_bytes = e * (static_cast<double>(m) * static_cast<double>(n) + static_cast<double>(reduction) +
                          static_cast<double>(results) * (beta_nonzero ? 2 : 1));
    p.occ = occupancy(dev, threads, design.regs_per_thread, std::min(design.smem_per_block, dev.smem_per_block_bytes));
    if (m == 0 || n == 0) {
        p.useful_bytes = 0;  // BLAS returns at once: nothing is read or written
        p.predicted_ms = p.predicted_ms_cached = kLaunchOverheadUs * 1e-3;
        p.note = "empty: launch overhead only";
        return p;
    }
    if (p.occ.blocks_per_sm == 0) {
        p.note = "does not fit on an SM (" + std::string(limiter_name(p.occ.limiter)) + ")";
        p.predicted_ms = p.predicted_ms_cached = std::numeric_limits<double>::infinity();
        return p;
    }

    // DRAM bytes of A: coalesced designs move each element once (lda = m: columns start on a
    // sector); naive T asks for one sector per element, which L1 keeps for the thread's next rows.
    const WarpAccess full = warp_access(dev, 0, 1, elem_bytes, 32);
    const long long rem = m % 32;
    const WarpAccess part = rem > 0 ? warp_access(dev, 0, 1, elem_bytes, static_cast<int>(rem)) : WarpAccess{};
    const double a_bytes = static_cast<double>(m / 32 * full.bytes_moved + part.bytes_moved) * n;
    p.transactions = (m / 32 * full.transactions + part.transactions) * n;
    const bool strided = trans && design.uncoalesced_t;
    double a_bytes_pessimistic = a_bytes;
    if (strided) {
        const int stride = static_cast<int>(std::min<long long>(m, kMaxInt32));
        const WarpAccess sw = warp_access(dev, 0, stride, elem_bytes, 32);
        const long long nrem = n % 32;
        const WarpAccess sp = nrem > 0 ? warp_access(dev, 0, stride, elem_bytes, static_cast<int>(nrem)) : WarpAccess{};
        p.transactions = (n / 32 * sw.transactions + sp.transactions) * m;
        a_bytes_pessimistic = static_cast<double>(n / 32 * sw.bytes_moved + sp.bytes_moved) * static_cast<double>(m);
    }
    const double xy_bytes = e * (static_cast<double>(reduction) + static_cast<double>(results) * (beta_nonzero ? 2 : 1));
    p.dram_bytes = a_bytes_pessimistic + xy_bytes;
    p.dram_bytes_cached = a_bytes + xy_bytes;
    p.efficiency = p.useful_bytes / p.dram_bytes;

    // The kernels. A thread's walk: the elements of A it loads over its loads in flight, one
    // DRAM round trip per batch; `finish`: the rounds after the last load (the reduction's
    // barrier and y; with a split, the partials written, the ticket, the last block's reads).
    const double u = std::max(1, design.loads_in_flight);
    const double x_wave = 1;  // x[j] is the same for the whole warp: one broadcast wavefront
    const double a_wave = coalesced_wavefronts(32, elem_bytes);  // a warp's scalar load of a column
    std::vector<KernelWork> kernels;
    KernelWork k;
    double per_thread = 0;  // elements of A one thread of the main kernel loads
    if (stage == Stage::kNaive) {
        k.blocks = ceil_div(results, l.block_x);
        per_thread = static_cast<double>(reduction);
        // T: one DRAM round trip per sector a thread walks down its column; the sectors' other
        // elements come from L1. Each warp load touches 32 lines: 32 wavefronts (plus x).
        const double per_round = strided ? std::max(u, 32.0 / e) : u;
        k.rounds = std::ceil(per_thread / per_round) + 1;
        k.wavefronts = warps * per_thread * ((strided ? 32.0 : a_wave) + x_wave);
        k.dram_bytes = p.dram_bytes_cached;
        kernels.push_back(k);
    } else if (stage == Stage::kShared) {
        const long long chunk = shared_chunk(elem_bytes), chunks = ceil_div(reduction, chunk);
        p.kernels = static_cast<int>(2 * chunks);  // a copy of the chunk into constant memory, then the kernel
        for (long long c = 0; c < chunks; ++c) {
            const long long klen = std::min(chunk, reduction - c * chunk);
            KernelWork copy;  // 24 KB device to device: a queued operation, nothing to speak of
            kernels.push_back(copy);
            KernelWork kc;
            kc.blocks = ceil_div(results, l.block_x);
            const double y_bytes = e * static_cast<double>(results) * (c > 0 || beta_nonzero ? 2 : 1);
            kc.dram_bytes = e * static_cast<double>(klen) * static_cast<double>(trans ? n : m) + y_bytes;
            if (trans) {
                // Tiles of nb rows: nb column loads per thread (4 in flight), each stored into the
                // unpadded tile (lanes nb elements apart: an nb-way conflict), then nb reads.
                const long long nb = l.block_x, tiles = ceil_div(klen, nb);
                kc.rounds = static_cast<double>(tiles) * std::ceil(nb / u) + 1;
                kc.wavefronts = static_cast<double>(tiles) * nb *
                                (a_wave + smem_wavefronts(dev, nb, elem_bytes) + smem_wavefronts(dev, 1, elem_bytes)) *
                                warps;
            } else {
                kc.rounds = std::ceil(klen / u) + 1;
                // x comes from the constant cache one 64-byte line at a time (ULDC.64 pairs in the
                // unrolled body); each new line is a miss served by the L2, waited for in line.
                kc.l2_rounds = std::ceil(static_cast<double>(klen) * e / 64.0);
                kc.wavefronts = warps * static_cast<double>(klen) * a_wave;  // x: the constant cache
            }
            kernels.push_back(kc);
        }
        per_thread = static_cast<double>(std::min(chunk, reduction));
        k = kernels[1];
    } else if (stage == Stage::kPattern || stage == Stage::kAccess) {
        // 32 results (x W rows for access N) per tile, Q thread rows, Y blocks per tile
        // (kernels/<stage>/gemv.cu: derive_split with 2048 / threads blocks per SM, at least
        // 4 tiles of the reduction per block, at most 64 (access N: 16) blocks per tile).
        const bool vec_n = stage == Stage::kAccess && !trans;
        const long long rows = 32LL * (vec_n ? w : 1), tiles = ceil_div(results, rows);
        const int max_y = stage == Stage::kAccess && !trans ? 16 : 64;
        const auto [kpb, y] = gemv_model_split(l.Y, tiles, reduction, 2048 / threads, 128, max_y, 32, dev);
        p.y_blocks = y;
        k.blocks = tiles * y;
        const double q = l.block_y;
        if (trans) {
            // Per tile of 32 rows: 32 x 32 elements loaded by 32 Q threads (scalar: 32 / Q each, a
            // load and its store before the next; access: 16-byte loads, 32 / (W Q) each), stored
            // into the tile (pattern: unpadded, a 32-way conflict; access: padded, none), then
            // 32 / Q reads of the tile and of x per thread.
            const double row_tiles = std::ceil(static_cast<double>(kpb) / 32);
            const double loads = stage == Stage::kAccess ? std::max(1.0, 32.0 / (w * q)) : 32.0 / q;
            k.rounds = row_tiles * std::ceil(loads) + (y > 1 ? 3 : 1);
            // x's 32 elements of the tile are loaded after the tile's stores (the compiled loop
            // does not hoist them): one more dependent round trip per tile, an L2 hit.
            k.l2_rounds = row_tiles;
            const double store_ways = stage == Stage::kAccess ? smem_wavefronts(dev, 33, elem_bytes)
                                                              : smem_wavefronts(dev, 32, elem_bytes);
            const double stores = stage == Stage::kAccess ? 32.0 / q : 32.0 / q;  // elements per thread
            k.wavefronts = row_tiles * q *
                           (loads * (stage == Stage::kAccess ? coalesced_wavefronts(32, 16) : a_wave) +
                            stores * store_ways + (32.0 / q) * (smem_wavefronts(dev, 1, elem_bytes) + 1));
            per_thread = row_tiles * 32.0 / q;
        } else {
            // Q thread rows walk the block's columns, one column (pattern: one element; access:
            // a 16-byte vector of W rows) per load, the next load after this one's FMA.
            const double cols = std::ceil(static_cast<double>(kpb) / q);
            k.rounds = cols + (y > 1 ? 3 : 1);
            const double a_w = stage == Stage::kAccess ? coalesced_wavefronts(32, 16) : a_wave;
            k.wavefronts = q * cols * (a_w + x_wave);
            per_thread = cols * (vec_n ? w : 1);
        }
        k.dram_bytes = p.dram_bytes_cached + (y > 1 ? 2.0 * e * y * static_cast<double>(results) : 0.0);
        kernels.push_back(k);
    } else {  // tuned
        if (trans && (l.loop || l.block_x < 32)) {
            // Short columns (tuned/gemv_t_shapes.cuh, gemv_t_loop.cuh): groups of L = block_x
            // lanes, 256 / L groups per block, each group C = nb columns; lane l reads vectors
            // l, l + L, ... of a column. A warp load covers 32 / L columns, L x 16 bytes of each:
            // one L1 wavefront per 128-byte line, so narrow groups touch 32 / L lines per request.
            const long long lanes = l.block_x, groups = 256 / lanes, c = l.nb;
            const double vectors = std::ceil(static_cast<double>(reduction) / w);  // a column's vectors
            const double steps = std::ceil(vectors / static_cast<double>(lanes));  // a lane's per column
            const double per_request = (32.0 / lanes) * coalesced_wavefronts(static_cast<int>(lanes), 16);
            const long long tiles = ceil_div(results, groups * c);  // one tile: the block's columns
            if (l.loop) {
                // A resident wave of blocks (the launcher asks the occupancy API); each group walks
                // its share of the tiles, the steps of consecutive tiles one double-buffered stream:
                // one round trip per step.
                k.blocks = std::min<long long>(tiles, static_cast<long long>(dev.sm_count) * p.occ.blocks_per_sm);
                const double tiles_per_block = std::ceil(static_cast<double>(tiles) / static_cast<double>(k.blocks));
                k.rounds = tiles_per_block * steps + 1;
                k.wavefronts = warps * tiles_per_block * steps * (c * per_request + coalesced_wavefronts(32, 16));
                per_thread = tiles_per_block * steps * c * w;
            } else {
                // One tile per block; the loop waits for each step's C vectors before the next
                // (not pipelined): a round trip per step, then beta y (loaded first) and the write.
                k.blocks = tiles;
                k.rounds = steps + 1;
                k.wavefronts = warps * steps * (c * per_request + coalesced_wavefronts(32, 16));
                per_thread = steps * c * w;
            }
        } else if (trans) {
            // C columns per block of 32 x Q threads; each step every thread loads W rows of its C
            // columns (and of x), the next step's loads in flight while it multiplies this one's.
            const long long c = l.nb, chunk = 32LL * l.block_y * w, tiles = ceil_div(results, c);
            const auto [kpb, y] = gemv_model_split(std::max(1, l.Y), tiles, reduction, 1, 1, 1 << 16,
                                                   static_cast<int>(chunk), dev);
            p.y_blocks = y;
            k.blocks = tiles * y;
            const double steps = std::ceil(static_cast<double>(kpb) / chunk);
            k.rounds = steps + (y > 1 ? 3 : 1);
            k.wavefronts = l.block_y * steps * (c + 1) * coalesced_wavefronts(32, 16);
            per_thread = steps * c * w;
        } else {
            // block_x threads x W rows per tile, Q thread rows, Y blocks per tile; each thread
            // visits every (Q Y)-th column in batches of U, the next batch loading meanwhile.
            // Element loads (columns not on 16 bytes): W = 1, a thread row reads block_x
            // elements of a column that start anywhere in a sector: one line more per request.
            const int wn = l.rows_per_load == 1 ? 1 : w;
            const long long rows = static_cast<long long>(l.block_x) * wn, tiles = ceil_div(results, rows);
            const int y = std::max(1, l.Y);
            p.y_blocks = y;
            k.blocks = tiles * y;
            const double cols = std::ceil(static_cast<double>(reduction) / (static_cast<double>(l.block_y) * y));
            k.rounds = std::ceil(cols / l.ept) + (y > 1 ? 3 : 2);
            const double a_req = wn == 1 ? coalesced_wavefronts(l.block_x, elem_bytes) + 1
                                         : coalesced_wavefronts(l.block_x, 16);
            k.wavefronts = l.block_y * cols * (a_req + x_wave);
            per_thread = cols * wn;
        }
        k.dram_bytes = p.dram_bytes_cached + (p.y_blocks > 1 ? 2.0 * e * p.y_blocks * static_cast<double>(results) : 0.0);
        kernels.push_back(k);
    }
    const bool in_l2 = warm && dev.l2_bytes > 0 && e * static_cast<double>(m) * static_cast<double>(n) <= dev.l2_bytes;
    for (KernelWork& kw : kernels) {
        if (kw.blocks > 0) kw.blocks_per_sm = p.occ.blocks_per_sm;
        kw.warm = in_l2;
    }
    p.grid = grid_metrics(dev, k.blocks, threads, p.occ.blocks_per_sm);

    std::vector<KernelTime> parts;
    p.predicted_ms = kernels_time_ms(kernels, dev, &parts);
    p.main = parts[stage == Stage::kShared ? 1 : 0];
    p.predicted_ms_cached = p.predicted_ms;
    p.predicted_gbs = p.useful_bytes / (p.predicted_ms * 1e6);
    p.predicted_gbs_cached = p.predicted_gbs;
    // Little's law: what the resident threads' loads in flight sustain.
    const double inflight_bytes = static_cast<double>(std::min<long long>(p.grid.active_threads, k.blocks * threads)) *
                                  std::min(u, std::max(1.0, per_thread)) * e;
    p.latency_bound_gbs = dev.latency_ns > 0 ? std::min(dev.bandwidth_gbs, inflight_bytes / dev.latency_ns)
                                             : dev.bandwidth_gbs;

    const KernelTime& t = p.main;
    std::string note;
    if (t.limit == KernelLimit::dram) {
        note = "bandwidth-bound";
    } else if (t.limit == KernelLimit::walk) {
        note = "latency-bound: each thread keeps " + fmt("%.0f", u) + " elements in flight, " +
               fmt("%.0f", t.waves) + " wave(s) of " + fmt("%.0f", k.rounds) + " round trips of " +
               fmt("%.0f ns", dev.latency_ns);
    } else if (t.limit == KernelLimit::lsu) {
        note = std::string("L1/shared wavefronts: ") + (strided ? "32 lines per warp load" : "conflicting tile stores");
    } else {
        note = kernel_limit_name(t.limit);
    }
    note += "; occupancy " + fmt("%.0f%%", 100.0 * p.occ.occupancy) + " (" + limiter_name(p.occ.limiter) + "), " +
            fmt("%.2f", p.grid.waves) + " waves";
    if (p.y_blocks > 1) note += ", Y = " + std::to_string(p.y_blocks);
    if (p.grid.total_blocks < dev.sm_count)
        note += "; only " + std::to_string(p.grid.total_blocks) + " of " + std::to_string(dev.sm_count) +
                " SMs get a block";
    if (p.kernels > 1) note += "; " + std::to_string(p.kernels / 2) + " chunks of x, a copy and a kernel each";
    p.note = note;
    return p;
}

}  // namespace wb::model
