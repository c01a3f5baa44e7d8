// gemm.cpp — chapter 6's GEMM derivation (derive/derivation.hpp): White's MM procedure on the
// T10 (§4.5.2, Eq. 4.41); elsewhere the tile from shared-memory and register reuse against the
// ridge (rule 2), rule 3 on ties, the wave fill and split k (rule 5).
#include "derive/derivation.hpp"
#include "derive/derive_internal.hpp"

#include "model/gemm.hpp"
#include "model/model_internal.hpp"
#include "model/occupancy.hpp"
#include "model/white.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>
#include <string>

namespace wb::derive {

using model::detail::ceil_div;
using model::detail::fmt;

namespace {

/// White §4.5.2 on the T10 with n_ele = 16 and 32 registers per thread.
void white_mm(const DeviceProfile& dev, long long n, Derivation& d) {
    const model::WhiteLaunch l = model::derive_mm_launch_t10(n, dev);
    const int smem = 16 * l.dblk_x * 4;  // Eq. 4.8 with n_ele = 16
    const int threads = l.dblk_x * l.dblk_y;
    const int per_sm = model::white_active_blocks_per_sm(dev, threads, 32, smem);
    const auto g = model::grid_metrics(dev, l.dgrd_x * l.dgrd_y, threads, per_sm);
    d.params.push_back({"n_ele", 16, "most shared-memory reuse (rule 2, White §4.5.2)",
                        "16 elements of a row of A staged per thread, the most a half-warp's segment reuses"});
    d.params.push_back({"dBlk.x", l.dblk_x, "least shared memory per block (rule 3, White Eq. 4.8)",
                        "n_ele x dBlk.x x 4 B = " + std::to_string(smem) + " B; dBlk.x >= 8 (a 32-byte segment)"});
    d.params.push_back({"dBlk.y", l.dblk_y, "bus saturated, most partitions, fewest fragments (rules 1, 4, 5)",
                        std::to_string(g.active_threads) + " active threads >= 12800 (Eq. 4.14), " +
                            std::to_string(g.fragmented_blocks) + " fragmented blocks"});
    d.params.push_back({"dGrd.x", l.dgrd_x, "tiles across C (White Eq. 4.25c)",
                        std::to_string(n) + " / (dBlk.x dBlk.y)"});
    d.params.push_back({"dGrd.y", l.dgrd_y, "rows of C per n_ele (White Eq. 4.29)", std::to_string(n) + " / 16"});
    const double parts = detail::white_partitions(dev, l, threads, 32, smem);
    d.params.push_back({"partitions", static_cast<long long>(parts), "most partitions (rule 4, White Eq. 3.13)",
                        fmt("%.1f", parts) + " of " + std::to_string(dev.partitions) + " partitions touched", false});
}

/// One candidate tile of the modern derivation.
struct Tile {
    int tm = 0, tn = 0, tk = 0, threads = 0, regs = 0, smem = 0, per_sm = 0;
    long long blocks = 0;
    double intensity = 0;   ///< flops per byte from the L2 (the block's reuse)
    double smem_bytes = 0;  ///< shared-memory bytes per FMA (the thread's register reuse)
    double rate = 0, fill = 0;
    long long split = 1;
};

}  // namespace

Derivation derive_gemm(const DeviceProfile& dev, long long m, long long n, long long k, int elem_bytes,
                       const std::vector<GemmTile>& tiles, long long max_split_k) {
    detail::check_shape("derive_gemm", elem_bytes, m, n, k);
    Derivation d;
    d.op = "gemm";
    d.shape = std::to_string(m) + " x " + std::to_string(n) + " x " + std::to_string(k) + " " +
              detail::precision(elem_bytes);
    if (elem_bytes == 4 && m == n && n == k && detail::white_case(dev, m, n)) {
        white_mm(dev, n, d);
        return d;
    }
    const double peak = elem_bytes == 8 ? dev.fp64_peak_gflops() : dev.fp32_peak_gflops();
    const double l2_gbs = model::kL2OverDram * dev.bandwidth_gbs;
    const double ridge = peak / l2_gbs;  // flops per L2 byte at which the FMA lanes bound
    // Shared memory serves banks x 4 bytes per clock per SM: the FMAs per clock that feeds.
    const double smem_bytes_per_clock = dev.banks * 4.0;
    const int lanes = elem_bytes == 8 ? dev.fp64_lanes_per_sm : dev.fp32_lanes_per_sm;
    std::vector<GemmTile> cands = tiles;
    if (cands.empty()) {
        // 256 threads (16 x 16), k depth: each row of a stage's slab is two 32-byte sectors.
        const int tk = std::max(1, 2 * dev.segment_bytes / elem_bytes);
        for (int tm : {32, 64, 128, 256})
            for (int tn : {32, 64, 128, 256})
                if (tn <= tm) cands.push_back({tm, tn, tk, tm / 16, tn / 16, 2});
    }
    // A slice of k keeps at least 8 slabs of its main loop, and the kernel's limit.
    auto max_split = [&](int slab) {
        const long long rule = std::max<long long>(1, k / (8LL * slab));
        return max_split_k > 0 ? std::min(rule, max_split_k) : rule;
    };
    Tile best;
    for (const GemmTile& c : cands) {
        const int tm = c.tile_m, tn = c.tile_n, tk = c.tile_k;
        if (tm < 1 || tn < 1 || tk < 1 || c.thread_m < 1 || c.thread_n < 1) continue;
        const int threads = tm * tn / (c.thread_m * c.thread_n);
        if (threads < dev.warp_size || threads > dev.max_threads_per_block) continue;
        Tile t{tm, tn, tk};
        t.threads = threads;
        t.regs = 32 + (c.thread_m * c.thread_n + c.thread_m + c.thread_n) * elem_bytes / 4;
        t.smem = std::max(1, c.stages) * (tm + tn) * tk * elem_bytes;
        if (t.regs > dev.max_regs_per_thread || t.smem > dev.smem_per_block_bytes) continue;
        t.per_sm = model::occupancy(dev, threads, t.regs, t.smem).blocks_per_sm;
        if (t.per_sm < 1) continue;
        t.intensity = 2.0 * tm * tn / ((tm + tn) * static_cast<double>(elem_bytes));
        const double thm = c.thread_m, thn = c.thread_n;  // the thread's tile of C
        t.smem_bytes = elem_bytes * (thm + thn) / (thm * thn);
        t.blocks = ceil_div(m, tm) * ceil_div(n, tn);
        // Rule 5 inside rule 2: where C's tiles leave slots idle, k splits (KBLAS Y); the
        // tile is judged by the wave fill it reaches with its split (the second pass, which
        // sums the slices, is not counted).
        t.split = wave_split(dev, t.blocks, t.per_sm, max_split(tk), "split_k").value;
        const auto g = model::grid_metrics(dev, t.blocks * t.split, threads, t.per_sm);
        const double waves = static_cast<double>(g.full_waves + (g.fragmented_blocks > 0 ? 1 : 0));
        t.fill = g.waves < 1 ? g.waves : g.waves / std::max(1.0, waves);
        // Rule 2: the block's reuse bounds the L2 rate, the thread's bounds the shared-memory rate.
        const double smem_share = std::min(1.0, smem_bytes_per_clock / t.smem_bytes / std::max(1, lanes));
        t.rate = std::min({peak, l2_gbs * t.intensity, peak * smem_share}) * t.fill;
        // Rule 2 (reuse x the wave fill), then rule 3 on ties (within 1/64): less shared memory.
        if (best.tm == 0 || t.rate > best.rate * (1 + 1.0 / 64) ||
            (t.rate * (1 + 1.0 / 64) >= best.rate && t.smem < best.smem))
            best = t;
    }
    if (best.tm == 0)
        throw std::invalid_argument("derive_gemm: tiles (" + std::to_string(cands.size()) +
                                    " candidates) must include one that fits the registers and shared memory of " +
                                    dev.name);
    d.params.push_back({"tile_m", best.tm, "most shared-memory and register reuse (rule 2)",
                        fmt("%.1f flop/B", best.intensity) + " from the L2 against a ridge of " +
                            fmt("%.1f", ridge) + "; " + fmt("%.2f", best.smem_bytes) +
                            " B of shared memory per FMA against " +
                            fmt("%.2f", smem_bytes_per_clock / std::max(1, lanes)) + " B a lane can get; " +
                            std::to_string(best.regs) + " registers"});
    d.params.push_back({"tile_n", best.tn, "most reuse, then the wave fill (rules 2, 5)",
                        std::to_string(best.blocks) + " tiles x " + std::to_string(best.split) +
                            " slices of k, the last wave " + fmt("%.0f%%", 100 * best.fill) + " full"});
    d.params.push_back({"tile_k", best.tk, "the tile's k depth per stage",
                        std::to_string(best.tk) + " x " + std::to_string(elem_bytes) + " B = " +
                            std::to_string(best.tk * elem_bytes) + " B per row of a stage"});
    d.params.push_back({"threads", best.threads, "the tile's threads", "tile_m tile_n / (thread_m thread_n)"});
    d.params.push_back(blocks_per_sm(dev, best.threads, best.regs, best.smem));
    // Rule 5: where C's tiles leave slots idle, split k (at least 8 k-slabs per slice).
    d.params.push_back(wave_split(dev, best.blocks, best.per_sm, max_split(best.tk), "split_k"));
    return d;
}

}  // namespace wb::derive
