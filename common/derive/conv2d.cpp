// conv2d.cpp — chapter 6's convolution derivation (derive/derivation.hpp): White's procedure on
// the T10 (§5.1.5, Eq. 5.19); elsewhere a warp along a row, the outputs per thread Little's law
// asks for (rule 1) and the tile width that keeps the halo small (rule 2).
#include "derive/derivation.hpp"
#include "derive/derive_internal.hpp"

#include "model/conv2d.hpp"
#include "model/kernel_time.hpp"
#include "model/memory.hpp"
#include "model/model_internal.hpp"
#include "model/occupancy.hpp"
#include "model/white.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace wb::derive {

using model::detail::fmt;
using model::detail::invalid;

namespace {

/// White §5.1.5 on the T10: 10 registers per thread, SMemPerBlk = (2 dBlk.x dBlk.y + dBlk.x) x 4.
void white_conv(const DeviceProfile& dev, long long n, int fs, Derivation& d) {
    const model::WhiteLaunch l = model::derive_conv_launch_t10(n, fs, dev);
    const int threads = l.dblk_x * l.dblk_y;
    const int smem = (2 * l.dblk_x * l.dblk_y + l.dblk_x) * 4;  // Eq. 5.7
    const int per_sm = model::white_active_blocks_per_sm(dev, threads, 10, smem);
    const auto g = model::grid_metrics(dev, l.dgrd_x * l.dgrd_y, threads, per_sm);
    d.params.push_back({"dBlk.x", l.dblk_x, "coalescing and one pass per filter row (rule 2, White Eq. 5.8-5.11)",
                        "max(" + std::to_string(dev.transaction_threads) + " threads of a half-warp, FS = " +
                            std::to_string(fs) + " rounded up to a power of two), at most " +
                            std::to_string(dev.max_threads_per_block)});
    d.params.push_back({"dBlk.y", l.dblk_y, "least shared memory that saturates the bus (rules 1, 3, White Eq. 5.7)",
                        std::to_string(smem) + " B per block, " + std::to_string(g.active_threads) +
                            " active threads >= 12800 (Eq. 4.14)"});
    d.params.push_back({"dGrd.x", l.dgrd_x, "tiles across (White Eq. 5.12c)", std::to_string(n) + " / dBlk.x"});
    d.params.push_back({"dGrd.y", l.dgrd_y, "tiles down (White Eq. 5.12d)", std::to_string(n) + " / dBlk.y"});
}

/// The candidates' pick (derive_conv2d with `tiles`): rule 1, then rule 2 (what bounds the filter:
/// above the ridge the busiest SM's issue, rule 5, before the halo), then rule 3.
void pick_conv(const DeviceProfile& dev, long long rows, long long cols, int fs, int elem_bytes,
               const std::vector<Conv2dTile>& tiles, Derivation& d) {
    struct Cand {
        Conv2dTile t;
        int threads = 0, regs = 0, smem = 0, per_sm = 0;
        double in_flight = 0, halo = 0;
        double busiest = 0, fill = 1, per_fma = 1, issue = 0;  // rule 5 above the ridge
    };
    const double need = model::bytes_in_flight_needed_per_sm(dev);
    std::vector<Cand> fit;
    for (const Conv2dTile& t : tiles) {
        Cand c{t};
        c.threads = t.block_x * t.block_y;
        const int outputs = t.thread_x * t.thread_y;
        if (c.threads < 1 || outputs < 1 || t.tile_x < 1 || t.tile_y < 1 || c.threads > dev.max_threads_per_block)
            continue;
        // Registers: 32 for indices and the filter walk, the thread's outputs; shared memory: the
        // staged tile and the halo of one pass's filter chunk (none where the window lives in
        // registers).
        c.regs = std::min(32 + outputs * elem_bytes / 4, dev.max_regs_per_thread);
        const int fx = t.chunk_x > 0 ? std::min(fs, t.chunk_x) : fs, fy = t.chunk_y > 0 ? std::min(fs, t.chunk_y) : fs;
        const long long smem = t.staged ? static_cast<long long>(t.tile_x + fx - 1) * (t.tile_y + fy - 1) * elem_bytes : 0;
        if (smem > dev.smem_per_block_bytes) continue;
        c.smem = static_cast<int>(smem);
        c.per_sm = model::occupancy(dev, c.threads, c.regs, c.smem).blocks_per_sm;
        if (c.per_sm < 1) continue;
        // Rule 1: each output one element in flight; rule 2: input elements read per output.
        c.in_flight = static_cast<double>(c.per_sm) * c.threads * outputs * elem_bytes;
        c.halo = static_cast<double>(t.tile_x + fs - 1) * (t.tile_y + fs - 1) / (static_cast<double>(t.tile_x) * t.tile_y);
        // Rule 5 (the FMAs' side of rule 2): the busiest SM runs ceil(tiles / SMs) whole tiles of
        // FS^2 FMAs per output, each FMA issuing the kernel's instructions per FMA (the model's
        // count from the kernel's SASS, model/conv2d), at the share of the SM's pipes its
        // resident warps keep busy: where every tap is a load at a run-time index just before
        // its FMAs, kBusyWarps warps hide it, and a grid of fewer tiles than SMs x blocks per SM
        // leaves the busiest SM fewer.
        const double blocks = static_cast<double>((rows + t.tile_y - 1) / t.tile_y) * ((cols + t.tile_x - 1) / t.tile_x);
        c.busiest = std::ceil(blocks / dev.sm_count);
        const double warps = std::min<double>(c.per_sm, c.busiest) * c.threads / dev.warp_size;
        c.fill = t.runtime_taps ? std::min(1.0, warps / model::kBusyWarps) : 1.0;
        c.per_fma = 1 + model::conv2d_stage_design(Stage::kTuned, fs, elem_bytes, t.tile_x, t.tile_y, t.thread_x,
                                                   t.thread_y, c.threads)
                            .other_per_fma;
        // Clocks per warp FMA: its instructions at 4 issued per clock per SM, or the FMA lanes'
        // rate where fewer (FP64: 64 lanes, two warp FMAs per clock).
        const int lanes = elem_bytes == 8 ? dev.fp64_lanes_per_sm : dev.fp32_lanes_per_sm;
        const double clocks = std::max(c.per_fma / 4.0, static_cast<double>(dev.warp_size) / lanes);
        c.issue = c.busiest * t.tile_x * t.tile_y * clocks / c.fill;
        fit.push_back(c);
    }
    if (fit.empty())
        throw std::invalid_argument("derive_conv2d: tiles (" + std::to_string(tiles.size()) +
                                    " candidates) must include one that fits the registers and shared memory of " +
                                    dev.name);
    const bool any_saturates = std::any_of(fit.begin(), fit.end(), [&](const Cand& c) { return c.in_flight >= need; });
    // Rule 2 asks what bounds the filter. Below the ridge (the FMA peak over the DRAM bandwidth)
    // its bytes do: each candidate reads the image once from DRAM and writes the output once (the
    // halo's second reads hit the L2), so reuse buys nothing and rule 3 decides: the least shared
    // memory (the window in registers: none). Above the ridge the FMAs do, and they wait on the
    // input each output reads: the least halo (ties within 1/64), then rule 3.
    const double intensity = 2.0 * fs * fs / (2.0 * elem_bytes);  // flops per byte of image and output
    const double peak = elem_bytes == 8 ? dev.fp64_peak_gflops() : dev.fp32_peak_gflops();
    const double ridge = peak / dev.bandwidth_gbs;
    const bool bytes_bound = intensity < ridge;
    const Cand* best = nullptr;
    for (const Cand& c : fit) {
        if (any_saturates && c.in_flight < need) continue;  // rule 1 first
        if (!best) {
            best = &c;
            continue;
        }
        const bool less_smem = c.smem < best->smem || (c.smem == best->smem && c.halo < best->halo);
        const auto alike = [](double a, double b, double tol) { return a <= b * (1 + tol) && b <= a * (1 + tol); };
        const bool less_issue = c.issue * (1 + 1.0 / 16) < best->issue;
        const bool less_halo = c.halo * (1 + 1.0 / 64) < best->halo;
        const bool fma_pick = less_issue || (alike(c.issue, best->issue, 1.0 / 16) &&
                                             (less_halo || (alike(c.halo, best->halo, 1.0 / 64) && c.smem < best->smem)));
        if (bytes_bound ? less_smem : fma_pick) best = &c;
    }
    if (!best)  // none saturates: the most in flight
        for (const Cand& c : fit)
            if (!best || c.in_flight > best->in_flight) best = &c;
    const Conv2dTile& t = best->t;
    d.params.push_back(bytes_in_flight_per_sm(dev));
    d.params.push_back({"block_x", t.block_x, "one of the kernel's instantiated launches",
                        std::to_string(tiles.size()) + " candidates, " + std::to_string(fit.size()) + " fit " +
                            dev.name});
    d.params.push_back({"block_y", t.block_y, "the candidate's threads", std::to_string(best->threads) + " threads"});
    d.params.push_back({"thread_x", t.thread_x, "Little's law (rule 1)",
                        std::to_string(best->per_sm) + " blocks x " + std::to_string(best->threads) + " threads x " +
                            std::to_string(t.thread_x * t.thread_y) + " outputs x " + std::to_string(elem_bytes) +
                            " B = " + fmt("%.0f B", best->in_flight) + " per SM against " + fmt("%.0f B", need) +
                            (any_saturates ? "" : " (no candidate gets there: the most in flight)")});
    d.params.push_back({"thread_y", t.thread_y,
                        bytes_bound ? "bytes bound the filter: no reuse to gain (rule 2)"
                                    : "the busiest SM's issue (rule 5, ties within 1/16), then the least input per "
                                      "output (rule 2, ties within 1/64)",
                        fmt("%.1f", intensity) + " flop per byte against a ridge of " + fmt("%.1f", ridge) + "; " +
                            (bytes_bound ? std::string()
                                         : fmt("%.0f", best->busiest) + " tiles on the busiest SM x " +
                                               fmt("%.2f", best->per_fma) + " instructions per FMA" +
                                               (best->fill < 1 ? " over " + fmt("%.2f", best->fill) +
                                                                     " of its pipes busy (run-time taps)"
                                                               : std::string()) +
                                               "; ") +
                            fmt("%.3f", best->halo) + " input elements read per output"});
    d.params.push_back({"tile_x", t.tile_x, bytes_bound ? "the least shared memory (rule 3)" : "the least shared memory on ties (rule 3)",
                        std::to_string(best->smem) + " B of shared memory per block" +
                            (t.staged ? "" : " (the window in registers)")});
    d.params.push_back({"tile_y", t.tile_y, "block_y x thread_y, or the candidate's rows",
                        std::to_string(t.tile_x) + " x " + std::to_string(t.tile_y) + " outputs per block"});
    d.params.push_back(blocks_per_sm(dev, best->threads, best->regs, best->smem));
}

}  // namespace

Derivation derive_conv2d(const DeviceProfile& dev, long long rows, long long cols, int fs, int elem_bytes,
                         const std::vector<Conv2dTile>& tiles) {
    detail::check_shape("derive_conv2d", elem_bytes, rows, cols);
    if (fs < 1 || fs % 2 == 0) invalid("derive_conv2d", "fs", fs, "must be odd and >= 1");
    Derivation d;
    d.op = "conv2d";
    d.shape = std::to_string(rows) + " x " + std::to_string(cols) + " FS " + std::to_string(fs) + " " +
              detail::precision(elem_bytes);
    if (elem_bytes == 4 && detail::white_case(dev, rows, cols)) {
        white_conv(dev, rows, fs, d);
        return d;
    }
    if (!tiles.empty()) {
        pick_conv(dev, rows, cols, fs, elem_bytes, tiles, d);
        return d;
    }
    constexpr int kThreads = 256;
    const int bx = dev.warp_size;  // a warp along a row: whole 128-byte lines of floats
    const int by = kThreads / bx;
    d.params.push_back({"block_x", bx, "coalescing (rule 2: a warp along a row)",
                        std::to_string(bx) + " x " + std::to_string(elem_bytes) + " B per row of the warp"});
    d.params.push_back({"block_y", by, "rows of threads", std::to_string(kThreads) + " threads per block"});
    // Rule 2: the tile's halo along x, (tile_x + FS - 1) / tile_x, at most 5/4 (tile_x >= 4 (FS - 1)),
    // with at most 8 outputs across per thread (registers).
    int tx = 1;
    while (tx < 8 && bx * tx < 4 * (fs - 1)) tx *= 2;
    // Rule 1: outputs down per thread, each one element in flight, until the SM holds Little's law.
    // Registers: 32 + the thread's outputs; shared memory: the tile and its halo. Where no tile of
    // that width fits shared memory, a narrower one (rule 3 before rule 2).
    int ty = 1;
    Derived loads{};
    for (; tx >= 1 && loads.parameter.empty(); tx /= 2)
        for (int cand = 1; cand <= 16; cand *= 2) {
            const int tile_x = bx * tx, tile_y = by * cand;
            const long long smem = static_cast<long long>(tile_x + fs - 1) * (tile_y + fs - 1) * elem_bytes;
            const int regs = std::min(32 + tx * cand * elem_bytes / 4, dev.max_regs_per_thread);
            if (smem > dev.smem_per_block_bytes) break;
            const auto o = model::occupancy(dev, kThreads, regs, static_cast<int>(smem));
            if (o.blocks_per_sm < 1) break;
            ty = cand;
            const double have = static_cast<double>(o.active_threads_per_sm) * tx * cand * elem_bytes;
            const double need = model::bytes_in_flight_needed_per_sm(dev);
            loads = {"thread_y", ty, "Little's law (rule 1)",
                     std::to_string(o.active_threads_per_sm) + " resident threads x " + std::to_string(tx * cand) +
                         " outputs x " + std::to_string(elem_bytes) + " B = " + fmt("%.0f B", have) +
                         " per SM against " + fmt("%.0f B", need)};
            if (have >= need) break;
        }
    tx = std::max(1, loads.parameter.empty() ? tx : tx * 2);  // the loop halved it once more on exit
    if (loads.parameter.empty())
        throw std::invalid_argument("derive_conv2d: fs (" + std::to_string(fs) + ") leaves no tile that fits " +
                                    dev.name + "'s shared memory");
    const int tile_x = bx * tx, tile_y = by * ty;
    d.params.push_back({"thread_x", tx, "most shared-memory reuse (rule 2: halo <= 5/4, 8 outputs at most)",
                        "tile " + std::to_string(tile_x) + " wide, halo " +
                            fmt("%.2f", static_cast<double>(tile_x + fs - 1) / tile_x) + " along x"});
    d.params.push_back(loads);
    const int smem = (tile_x + fs - 1) * (tile_y + fs - 1) * elem_bytes;
    d.params.push_back({"tile_x", tile_x, "block_x x thread_x", std::to_string(bx) + " x " + std::to_string(tx)});
    d.params.push_back({"tile_y", tile_y, "block_y x thread_y", std::to_string(by) + " x " + std::to_string(ty)});
    d.params.push_back(blocks_per_sm(dev, kThreads, std::min(32 + tx * ty * elem_bytes / 4, dev.max_regs_per_thread),
                                     smem));
    return d;
}

}  // namespace wb::derive
