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

/// The candidates' pick (derive_conv2d with `tiles`): each candidate that fits the device (its
/// registers and shared memory, White Eq. 3.7 with granularity) is predicted by the convolution
/// model (model/conv2d.hpp, predict_conv2d_launch) and the least predicted time wins. The model
/// is where the rules meet: Little's law (rule 1) through the blocks' walk of round trips, the
/// reuse of the window (rule 2) through the halo's L2 bytes and the shared-memory wavefronts per
/// FMA, the shared memory per block (rule 3) through the occupancy, the busiest SM's issue and
/// tail wave (rule 5) through the FMA, issue and wavefront bounds over whole tiles per SM, each
/// term counted from the kernel's code (its SASS instructions per FMA). Ties (within 1/64) go to
/// the least shared memory (rule 3).
void pick_conv(const DeviceProfile& dev, long long rows, long long cols, int fs, int elem_bytes, bool vector_rows,
               const std::vector<Conv2dTile>& tiles, Derivation& d) {
    struct Cand {
        Conv2dTile t;
        int threads = 0, regs = 0, smem = 0, per_sm = 0;
        double in_flight = 0, halo = 0;
        model::Conv2dPrediction p;
    };
    const double need = model::bytes_in_flight_needed_per_sm(dev);
    std::vector<Cand> fit;
    for (const Conv2dTile& t : tiles) {
        Cand c;
        c.t = t;
        c.threads = t.block_x * t.block_y;
        const int outputs = t.thread_x * t.thread_y;
        if (c.threads < 1 || outputs < 1 || t.tile_x < 1 || t.tile_y < 1 || c.threads > dev.max_threads_per_block)
            continue;
        try {
            c.p = model::predict_conv2d_launch(t.tile_x, t.tile_y, t.thread_x, t.thread_y, c.threads, rows, cols, fs,
                                               elem_bytes, vector_rows, dev, t.blocked);
        } catch (const std::invalid_argument&) {
            continue;  // the model's block cannot be resident on this device
        }
        const model::Conv2dDesign k = model::conv2d_stage_design(Stage::kTuned, fs, elem_bytes, t.tile_x, t.tile_y,
                                                                 t.thread_x, t.thread_y, c.threads, vector_rows,
                                                                 t.blocked);
        if (k.smem_per_block > dev.smem_per_block_bytes) continue;
        c.regs = k.regs_per_thread;
        c.smem = k.smem_per_block;
        c.per_sm = c.p.occ.blocks_per_sm;
        // Rule 1: each output one element in flight; rule 2: input elements read per output.
        c.in_flight = static_cast<double>(c.per_sm) * c.threads * outputs * elem_bytes;
        c.halo = static_cast<double>(t.tile_x + fs - 1) * (t.tile_y + fs - 1) / (static_cast<double>(t.tile_x) * t.tile_y);
        fit.push_back(c);
    }
    if (fit.empty())
        throw std::invalid_argument("derive_conv2d: tiles (" + std::to_string(tiles.size()) +
                                    " candidates) must include one that fits the registers and shared memory of " +
                                    dev.name);
    const Cand* best = &fit.front();
    for (const Cand& c : fit) {
        const bool tie = c.p.ms <= best->p.ms * (1 + 1.0 / 64) && best->p.ms <= c.p.ms * (1 + 1.0 / 64);
        if (tie ? c.smem < best->smem : c.p.ms < best->p.ms) best = &c;
    }
    std::string others;
    for (const Cand& c : fit)
        if (&c != best)
            others += (others.empty() ? "" : ", ") + std::to_string(c.t.tile_x) + "x" + std::to_string(c.t.tile_y) +
                      " (" + std::to_string(c.t.thread_x) + "x" + std::to_string(c.t.thread_y) +
                      (c.t.blocked ? ", blocked" : "") + ") " + fmt("%.4f ms", c.p.ms);
    const double intensity = 2.0 * fs * fs / (2.0 * elem_bytes);  // flops per byte of image and output
    const double peak = elem_bytes == 8 ? dev.fp64_peak_gflops() : dev.fp32_peak_gflops();
    const double ridge = peak / dev.bandwidth_gbs;
    const Conv2dTile& t = best->t;
    d.params.push_back(bytes_in_flight_per_sm(dev));
    d.params.push_back({"block_x", t.block_x, "one of the kernel's instantiated launches",
                        std::to_string(tiles.size()) + " candidates, " + std::to_string(fit.size()) + " fit " +
                            dev.name});
    d.params.push_back({"block_y", t.block_y, "the candidate's threads", std::to_string(best->threads) + " threads"});
    d.params.push_back({"thread_x", t.thread_x, "Little's law (rule 1)",
                        std::to_string(best->per_sm) + " blocks x " + std::to_string(best->threads) + " threads x " +
                            std::to_string(t.thread_x * t.thread_y) + " outputs x " + std::to_string(elem_bytes) +
                            " B = " + fmt("%.0f B", best->in_flight) + " per SM against " + fmt("%.0f B", need)});
    d.params.push_back({"thread_y", t.thread_y,
                        "the least predicted time (the model's bounds: rules 1, 2 and 5, ties within 1/64 to rule 3)",
                        fmt("%.4f ms", best->p.ms) + ", " + best->p.limit + (others.empty() ? "" : "; against " + others) +
                            "; " + fmt("%.1f", intensity) + " flop per byte against a ridge of " + fmt("%.1f", ridge) +
                            "; " + fmt("%.3f", best->halo) + " input elements read per output" +
                            (vector_rows ? "" : "; rows not 16-byte aligned: element copies")});
    d.params.push_back({"tile_x", t.tile_x, "the candidate's columns (rule 3's shared memory)",
                        std::to_string(best->smem) + " B of shared memory per block" +
                            (t.staged ? "" : " (the window in registers)")});
    d.params.push_back({"tile_y", t.tile_y, "block_y x thread_y, or the candidate's rows",
                        std::to_string(t.tile_x) + " x " + std::to_string(t.tile_y) + " outputs per block"});
    if (std::any_of(fit.begin(), fit.end(), [](const Cand& c) { return c.t.blocked; }))
        d.params.push_back({"blocked", t.blocked ? 1 : 0, "the least predicted time among the kernel classes",
                            t.blocked ? "the blocked kernel (taps read per chunk) ahead of the compile-time one"
                                      : "the kernel that knows the filter size at compile time"});
    d.params.push_back(blocks_per_sm(dev, best->threads, best->regs, best->smem));
}

}  // namespace

Derivation derive_conv2d(const DeviceProfile& dev, long long rows, long long cols, int fs, int elem_bytes,
                         const std::vector<Conv2dTile>& tiles, bool vector_rows) {
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
        pick_conv(dev, rows, cols, fs, elem_bytes, vector_rows, tiles, d);
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
