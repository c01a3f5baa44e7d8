// symv.cpp — chapter 6's SYMV derivation (derive/derivation.hpp): first whether the one-kernel row
// panels beat the two-kernel tiles (their grid one wave, the triangle's second read cheaper than
// the tiles' second kernel), then KBLAS's order nb -> Q -> Y (TOMS §9): the tile and thread rows
// that keep the most bytes of A in flight per SM (rule 1), the blocks per block column that
// balance a block's pipeline fill and drain against the grid's tail (rule 5).
#include "derive/derivation.hpp"
#include "derive/derive_internal.hpp"

#include "model/memory.hpp"
#include "model/model_internal.hpp"
#include "model/occupancy.hpp"
#include "model/symv.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace wb::derive {

using model::detail::ceil_div;
using model::detail::fmt;

namespace {

/// Rule 5 before the tiles: the row panels (kernels/tuned/symv_small.cuh) read every row whole,
/// the stored triangle twice, in one kernel; the tiles read it once but leave partials that a
/// second kernel sums. The panels are taken where (a) their grid of n / 8 blocks is one wave of
/// resident 1024-thread blocks (a second wave would double the time), and (b) the second read of
/// the triangle, n (n + 1) / 2 x size(T) bytes at the bandwidth, takes less than what the tiles'
/// second kernel costs: its queued start (model::kNextKernelUs, chapter 0's graph-node cost), one
/// DRAM latency before its first partials arrive, and the partials' bytes, n (nt + Y) x size(T)
/// written and read, at the bandwidth. Returns the rows per block (0: the tiles) and the line.
Derived row_panels_rule(const DeviceProfile& dev, long long n, int elem_bytes, long long nt, long long y) {
    const int threads = model::kSymvPanelThreads, rows = model::kSymvPanelRows;
    int per_sm = 0;
    if (threads <= dev.max_threads_per_block) {
        // __launch_bounds__(1024): the compiler keeps a thread within regs_per_sm / 1024 registers.
        const int regs = std::min(dev.max_regs_per_thread, dev.regs_per_sm / threads);
        per_sm = model::occupancy(dev, threads, regs, 0).blocks_per_sm;
    }
    const long long blocks = ceil_div(n, static_cast<long long>(rows));
    const long long wave = static_cast<long long>(per_sm) * dev.sm_count;
    const double second_read_us = static_cast<double>(n) * (n + 1) / 2 * elem_bytes / dev.bandwidth_gbs / 1e3;
    const double partial_bytes = 2.0 * static_cast<double>(n) * static_cast<double>(nt + y) * elem_bytes;
    const double second_kernel_us = model::kNextKernelUs + dev.latency_ns / 1e3 + partial_bytes / dev.bandwidth_gbs / 1e3;
    const bool one_wave = per_sm > 0 && blocks <= wave;
    const bool cheaper = second_read_us < second_kernel_us;
    const std::string waves = per_sm == 0 ? "no block of " + std::to_string(threads) + " threads fits"
                              : std::to_string(blocks) + " panels of " + std::to_string(rows) + " rows on " +
                                    std::to_string(wave) + " slots (" + (one_wave ? "one wave" : "more than one wave") + ")";
    const std::string metric = waves + "; the triangle read again " +
        fmt("%.2f us", second_read_us) + (cheaper ? " < " : " >= ") + "the tiles' second kernel " +
        fmt("%.2f us", second_kernel_us) + " (start " + fmt("%.2f", model::kNextKernelUs) + " + latency " +
        fmt("%.2f", dev.latency_ns / 1e3) + " + partials)";
    const bool take = one_wave && cheaper;
    // Printed either way; part of the launch only where taken (0: the tiles' parameters follow).
    return {"panel rows", take ? rows : 0, "one kernel or two (rule 5: the waves, the second kernel)", metric, take};
}

/// Rule 5, KBLAS's Y: a block column of the triangle split into Y pieces. Each block pays its
/// pipeline's fill and drain, about two DRAM latencies in which its slot streams nothing; the
/// grid's tail is, on average, half the longest piece (nt / Y tiles) at a slot's share of the
/// bandwidth. Per slot: (nt Y / slots) x 2 latency + nt / (2Y) x t_tile, least at
/// Y* = sqrt(slots x t_tile / (4 x latency)), which does not depend on n; rounded down to the
/// kernel's powers of two (the fill and drain are certain, the tail an average), at most the
/// tiles of the longest column and 32.
long long y_rule(const DeviceProfile& dev, long long nt, long long slots, int nb, int elem_bytes, double* y_star,
                 double* tile_ns) {
    *tile_ns = static_cast<double>(nb) * nb * elem_bytes / (dev.bandwidth_gbs / static_cast<double>(slots));
    *y_star = std::sqrt(static_cast<double>(slots) * *tile_ns / (4.0 * dev.latency_ns));
    const long long cap = detail::pow2_floor(std::min<long long>(32, std::max<long long>(1, nt)));
    return std::clamp<long long>(detail::pow2_floor(static_cast<long long>(*y_star)), 1, cap);
}

}  // namespace

Derivation derive_symv(const DeviceProfile& dev, long long n, int elem_bytes, bool vector_loads, long long lda_bytes,
                       bool row_panels) {
    detail::check_shape("derive_symv", elem_bytes, n, n);
    Derivation d;
    d.op = "symv";
    d.shape = "lower " + std::to_string(n) + " " + detail::precision(elem_bytes);
    // nb and Q (KBLAS §9: nb first, then Q): resident blocks x one nb x nb tile each in flight.
    struct Cand {
        int nb, q, regs, smem, per_sm;
        double bytes;
    };
    auto candidate = [&](int nb, int q) {  // nb = 0: it does not fit the device
        const int regs = std::min(model::tuned_symv_regs(nb, q, elem_bytes), dev.max_regs_per_thread);
        const int smem = nb * (nb + 1) * elem_bytes;  // the diagonal tile, padded, for its mirror
        if (nb * q > dev.max_threads_per_block || smem > dev.smem_per_block_bytes) return Cand{0, 0, 0, 0, 0, 0};
        const int per_sm = model::occupancy(dev, nb * q, regs, smem).blocks_per_sm;
        if (per_sm < 1) return Cand{0, 0, 0, 0, 0, 0};
        return Cand{nb, q, regs, smem, per_sm, static_cast<double>(per_sm) * nb * nb * elem_bytes};
    };
    auto most_in_flight = [&](int max_nb) {
        Cand best{0, 0, 0, 0, 0, 0};
        for (auto [nb, q] : {std::pair{32, 4}, {64, 4}, {64, 8}}) {
            if (nb > max_nb) continue;
            const Cand c = candidate(nb, q);
            if (c.nb == 0) continue;
            // Ties (within 1/8) to the larger nb: half the deterministic partials.
            if (best.nb == 0 || c.bytes > best.bytes * 1.125 || (c.bytes * 1.125 >= best.bytes && c.nb > best.nb))
                best = c;
        }
        return best;
    };
    Cand best = most_in_flight(64);
    if (best.nb == 0) throw std::invalid_argument("derive_symv: no tile of 32 or 64 fits " + dev.name);
    const double need = model::bytes_in_flight_needed_per_sm(dev);
    d.params.push_back(bytes_in_flight_per_sm(dev));
    // Y for a tile; Y doubles where every column starts at the same place in the DRAM's address
    // interleave (rule 4: the column stride a multiple of 128 KiB, chapter 4's partition camping):
    // twice the blocks per column, each reading its own rows, spread the reads over more of it.
    constexpr long long kAliasedStride = 128 * 1024;
    const bool aliased = lda_bytes > 0 && lda_bytes % kAliasedStride == 0;
    double y_star = 0, tile_ns = 0;
    auto y_of = [&](const Cand& c) {
        const long long nt = ceil_div(n, static_cast<long long>(c.nb));
        const long long slots = static_cast<long long>(dev.sm_count) * c.per_sm;
        const long long cap = detail::pow2_floor(std::min<long long>(32, std::max<long long>(1, nt)));
        const long long y = y_rule(dev, nt, slots, c.nb, elem_bytes, &y_star, &tile_ns);
        return aliased ? std::min(cap, 2 * y) : y;
    };
    // Rule 5, the panels, before the tiles: they need no partials, so where they win nothing else is set.
    if (row_panels) {
        const Derived panels = row_panels_rule(dev, n, elem_bytes, ceil_div(n, static_cast<long long>(best.nb)), y_of(best));
        d.params.push_back(panels);
        if (panels.value > 0) return d;
    }
    // Rule 1 for the whole grid: nt x Y blocks must keep the device's Little's law in flight (one
    // tile each, at most the resident ones); where they do not, the smaller tile: twice the block
    // columns, each a quarter of the bytes.
    long long y = y_of(best);
    auto grid_bytes = [&](const Cand& c, long long yy) {
        const long long blocks = std::min(ceil_div(n, static_cast<long long>(c.nb)) * yy,
                                          static_cast<long long>(dev.sm_count) * c.per_sm);
        return static_cast<double>(blocks) * c.nb * c.nb * elem_bytes;
    };
    std::string smaller;
    if (grid_bytes(best, y) < need * dev.sm_count) {
        const Cand other = most_in_flight(best.nb / 2);
        if (other.nb > 0 && grid_bytes(other, y_of(other)) > grid_bytes(best, y)) {
            smaller = "; the grid of nb = " + std::to_string(best.nb) + " keeps " + fmt("%.0f B", grid_bytes(best, y)) +
                      " in flight < " + fmt("%.0f B", need * dev.sm_count) + " (Little's law for the device): nb = " +
                      std::to_string(other.nb);
            best = other;
            y = y_of(best);
        }
    }
    d.params.push_back({"nb", best.nb, "most bytes of A in flight per SM (rule 1, KBLAS §9 first)",
                        std::to_string(best.per_sm) + " blocks x " + std::to_string(best.nb) + "^2 x " +
                            std::to_string(elem_bytes) + " B = " + fmt("%.0f B", best.bytes) + " against " +
                            fmt("%.0f B", need) + smaller});
    // KBLAS §9 second, Q, at the Y the tile's slots give (KBLAS's order: nb, Q, then Y). Where the
    // columns take element loads (the 64-wide tile's kernel with Q thread rows), Q = 8 holds fewer
    // blocks (fewer bytes in flight) but gives each thread half the rows of a tile, a shorter chain
    // per tile: a grid of few blocks per SM waits on that chain, a full one on the bytes. The SYMV
    // model weighs the two; an equal time keeps the most bytes in flight.
    const Cand y_from = best;  // the Y rule's slots
    std::string q_why;
    if (!vector_loads && best.nb == 64) {
        const Cand alt = candidate(64, best.q == 4 ? 8 : 4);
        if (alt.nb > 0) {
            auto predicted_us = [&](const Cand& c) {
                model::SymvModelLaunch l;
                l.nb = c.nb;
                l.block_threads = c.nb * c.q;
                l.y_blocks = static_cast<int>(y);
                return 1e3 * model::predict_symv(Stage::kTuned, n, elem_bytes, l, dev).predicted_ms;
            };
            const double t_best = predicted_us(best), t_alt = predicted_us(alt);
            q_why = "; the model at Y = " + std::to_string(y) + ": Q = " + std::to_string(best.q) + " " +
                    fmt("%.1f us", t_best) + ", Q = " + std::to_string(alt.q) + " " + fmt("%.1f us", t_alt);
            if (t_alt < t_best) best = alt;
        }
    }
    d.params.push_back({"Q", best.q, "thread rows of the tile (KBLAS §9 second)",
                        std::to_string(best.nb / best.q) + " rows a thread, " + std::to_string(best.regs) +
                            " registers" + q_why});
    d.params.push_back(blocks_per_sm(dev, best.nb * best.q, best.regs, best.smem));
    // Rule 2: the same bytes in fewer load instructions where the columns allow 16-byte loads.
    const int loads = vector_loads ? 16 : elem_bytes;
    d.params.push_back({"loads", loads, "coalescing (rule 2: 16-byte loads where A's columns are aligned)",
                        vector_loads ? std::to_string(16 / elem_bytes) + " elements per load: 1/" +
                                           std::to_string(16 / elem_bytes) + " of the load instructions of element loads"
                                     : "A's columns are not 16-byte aligned: one element per load"});
    const long long nt = ceil_div(n, static_cast<long long>(best.nb));
    const long long slots = static_cast<long long>(dev.sm_count) * y_from.per_sm;
    d.params.push_back({"Y", y, "a block's fill and drain against the grid's tail (rule 5, KBLAS Y)",
                        "Y* = sqrt(" + std::to_string(slots) + " slots x " + fmt("%.0f ns", tile_ns) +
                            " a tile at a slot's share / (4 x " + fmt("%.0f ns", dev.latency_ns) + ")) = " +
                            fmt("%.1f", y_star) + ", longest column " + std::to_string(nt) + " tiles" +
                            (aliased ? "; doubled: the column stride is a multiple of 128 KiB (rule 4)" : "")});
    return d;
}

}  // namespace wb::derive
