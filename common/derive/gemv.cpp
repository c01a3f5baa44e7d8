// gemv.cpp — chapter 6's GEMV derivation (derive/derivation.hpp): White's Mv procedure on the
// T10 (§4.5.1, Eq. 4.24), the tuned kernel's launch from Little's law and the waves elsewhere.
#include "derive/derivation.hpp"
#include "derive/derive_internal.hpp"

#include "model/memory.hpp"
#include "model/model_internal.hpp"
#include "model/occupancy.hpp"
#include "model/white.hpp"

#include <algorithm>
#include <initializer_list>
#include <string>

namespace wb::derive {

using model::detail::ceil_div;
using model::detail::fmt;

namespace {

/// White §4.5.1 on the T10: dBlk.x from Step 2 (the widest padded tile, Eq. 4.11, that fits
/// shared memory), dBlk.y from Step 1 (8192 active threads, Eq. 4.16), dGrd.x = n / dBlk.x.
void white_mv(const DeviceProfile& dev, long long n, Derivation& d) {
    const model::WhiteLaunch l = model::derive_mv_launch_t10(n, dev);
    const int smem = (l.dblk_x * l.dblk_x + l.dblk_x) * 4;
    const int threads = l.dblk_x * l.dblk_y;
    const int per_sm = model::white_active_blocks_per_sm(dev, threads, 15, smem);
    const long long active = std::min<long long>(static_cast<long long>(dev.sm_count) * per_sm, l.dgrd_x) * threads;
    d.params.push_back({"dBlk.x", l.dblk_x, "most shared-memory reuse (rule 2, White Eq. 4.11)",
                        "tile of (dBlk.x^2 + dBlk.x) x 4 B = " + std::to_string(smem) + " B fits " +
                            std::to_string(dev.smem_per_block_bytes) + " B; twice as wide does not"});
    d.params.push_back({"dBlk.y", l.dblk_y, "saturate the bus (rule 1, White Eq. 4.16, 4.24)",
                        std::to_string(active) + " active threads >= 8192 (the smallest dBlk.y that gets there)"});
    d.params.push_back({"dGrd.x", l.dgrd_x, "one block per tile of rows (White Eq. 4.16b)",
                        std::to_string(n) + " / " + std::to_string(l.dblk_x)});
    d.params.push_back({"partitions", static_cast<long long>(detail::white_partitions(dev, l, threads, 15, smem)),
                        "most partitions (rule 4, White Eq. 3.13)",
                        fmt("%.1f", detail::white_partitions(dev, l, threads, 15, smem)) + " of " +
                            std::to_string(dev.partitions) + " partitions touched", false});
}

/// Rule 1 for an unroll: the smallest of `values` (the ones the tuned kernel instantiates) whose
/// resident threads (registers regs_of(p)) keep bytes_of(p) each in flight, together twice
/// Little's law per SM (the margin hides each block's reduction tail); the largest that fits
/// where none gets there.
template <class Regs, class Bytes>
Derived unroll(const DeviceProfile& dev, const std::string& name, int threads, std::initializer_list<int> values,
               Regs regs_of, Bytes bytes_of) {
    const double need = 2.0 * model::bytes_in_flight_needed_per_sm(dev);
    int pick = *values.begin();
    double have = 0;
    int resident = 0;
    for (int p : values) {
        const auto o = model::occupancy(dev, threads, std::min(regs_of(p), dev.max_regs_per_thread), 0);
        if (o.blocks_per_sm < 1) break;
        pick = p;
        resident = o.active_threads_per_sm;
        have = static_cast<double>(resident) * bytes_of(p);
        if (have >= need) break;
    }
    return {name, pick, "Little's law x 2, the reduction tail's margin (rule 1)",
            std::to_string(resident) + " resident threads x " + std::to_string(bytes_of(pick)) + " B = " +
                fmt("%.0f B", have) + " per SM against 2 x " + fmt("%.0f B", need / 2) +
                (have < need ? " (capped by registers)" : "")};
}

/// The N kernel (kernels/tuned/gemv.cu): block (block_x, Q), each thread W rows of every (Q Y)-th
/// column, U columns per batch, the next batch's U loads in flight while one is multiplied.
void derive_n(const DeviceProfile& dev, long long m, long long n, int elem_bytes, bool vector_loads, Derivation& d) {
    const int load = vector_loads ? 16 : elem_bytes;  // bytes per load of A
    const int w = load / elem_bytes;                   // rows per thread
    // Rule 2, coalescing: a warp's load instruction reads whole 128-byte lines (4 sectors) of a
    // column: 8 threads x 16 B, or 32 floats / 16 doubles for element loads.
    const int line = 4 * dev.segment_bytes;
    const int bx_min = std::clamp(line / load, 4, dev.warp_size);
    // Registers: the kernel's launch bound, kNLaunchBound threads per block, lets the compiler use
    // regs_per_sm / kNLaunchBound registers per thread, so no more threads than that are ever
    // resident per SM, whatever U is.
    constexpr int kNLaunchBound = 512;  // __launch_bounds__ of the N kernel (kernels/tuned/gemv.cu)
    const int reg_budget = std::min(dev.max_regs_per_thread, dev.regs_per_sm / kNLaunchBound);
    const int resident = std::min(dev.max_threads_per_sm, kNLaunchBound);
    // Rule 1 (Little's law, x 2: the margin that hides each block's reduction tail): a thread
    // keeps one batch of U loads in flight (the next batch, while the current one is used); the
    // smallest instantiated U whose resident threads get there, within the register budget (two
    // batches of A, load / 4 registers each, and of x, elem / 4 each, over 32 for the rest).
    const double need = 2.0 * model::bytes_in_flight_needed_per_sm(dev);
    auto regs = [&](int u) { return 32 + 2 * u * (load / 4 + elem_bytes / 4); };
    int u = 2;
    // The N kernel instantiates U = 2, 4, 8, and 16 for float element loads (kernels/tuned/gemv.cu).
    for (int cand : {2, 4, 8, 16}) {
        if (cand == 16 && (vector_loads || elem_bytes != 4)) break;
        if (regs(cand) > reg_budget) break;
        u = cand;
        if (static_cast<double>(resident) * cand * load >= need) break;
    }
    const double have = static_cast<double>(resident) * u * load;
    d.params.push_back({"U", u, "Little's law x 2, the reduction tail's margin (rule 1)",
                        std::to_string(resident) + " resident threads (" + std::to_string(reg_budget) +
                            " registers each under the kernel's bound of " + std::to_string(kNLaunchBound) +
                            " threads) x " + std::to_string(u) + " loads x " + std::to_string(load) + " B = " +
                            fmt("%.0f B", have) + " per SM against 2 x " + fmt("%.0f B", need / 2) +
                            (have < need ? " (capped by registers)" : "")});
    auto tiles = [&](int bx) { return ceil_div(m, static_cast<long long>(bx) * w); };
    const long long sms = dev.sm_count;
    // Rule 5, which blocks: where the narrowest tiles are fewer than the SMs, an SM gets one block
    // and that block must carry the SM's whole share: blocks of every resident thread. Otherwise
    // two blocks per SM (half the resident threads each): one streams while the other finishes
    // its reduction, and the last wave's fragments are half as large.
    const bool short_output = tiles(bx_min) < sms;
    int threads = short_output ? resident : resident / 2;
    const long long slots = sms * (resident / threads);
    int bx = bx_min;
    long long y = 1;
    std::string why;
    // Q >= 4 thread rows share each tile's reduction (the flat sum's threads per output).
    const int bx_max = std::max(bx_min, threads / 4);
    const double block_bytes = static_cast<double>(threads) * u * load;
    if (!short_output) {
        // Rule 5, one wave: the narrowest tile whose blocks all fit the resident slots; where none
        // does (many waves, a small tail), the narrowest.
        while (bx < bx_max && tiles(bx) > slots) bx *= 2;
        if (tiles(bx) > slots) bx = bx_min;
        why = std::to_string(tiles(bx)) + " tiles on " + std::to_string(slots) + " slots (" + std::to_string(sms) +
              " SMs x " + std::to_string(resident / threads) + "): " +
              (tiles(bx) <= slots ? "one wave" : fmt("%.2f waves, the tail small", static_cast<double>(tiles(bx)) / slots));
    } else if (static_cast<double>(tiles(bx)) * block_bytes >= need / 2 * sms) {
        // Rule 1 for the whole device: the tiles' blocks alone keep twice Little's law in flight
        // (bandwidth x latency); a split would only add partials.
        why = std::to_string(tiles(bx)) + " blocks x " + fmt("%.0f B", block_bytes) + " in flight >= 2 x " +
              fmt("%.0f B", need / 2 * sms) + " (Little's law for the device): no split";
    } else {
        // Rule 5, KBLAS's Y: split each tile's reduction over Y blocks, one wave of them (never a
        // second, partial one: a split's blocks are equally long); widen the tile while that puts
        // more blocks in the wave (Y = floor(SMs / tiles) rounds down less).
        auto blocks = [&](int b) { return tiles(b) * std::max<long long>(1, sms / tiles(b)); };
        for (int b = 2 * bx; b <= bx_max; b *= 2)
            if (blocks(b) > blocks(bx)) bx = b;
        y = 0;  // set below, once the tile is final
    }
    int q = threads / bx;
    // Rule 1 per thread row: two batches of U columns each (the double buffer), so Q is cut on a
    // short reduction and the tile widens to keep the block's threads.
    const int q_max = static_cast<int>(detail::pow2_floor(std::max<long long>(1, n / (2LL * u - 1))));
    std::string cut;
    if (q > q_max) {
        q = q_max;
        bx = std::min(256, threads / q);
        cut = "; Q cut to " + std::to_string(q) + ": " + std::to_string(n) + " columns, two batches of " +
              std::to_string(u) + " per thread row";
    }
    // The split's limit: every block keeps one batch per thread row.
    const long long y_max = std::max<long long>(1, n / (static_cast<long long>(u) * q));
    if (y == 0) {
        // One wave of the final blocks: resident slots of bx x Q threads over the tiles.
        const long long slots_final = sms * std::max(1, resident / (bx * q));
        y = std::max<long long>(1, slots_final / tiles(bx));
        why = std::to_string(tiles(bx)) + " tiles x Y = " + std::to_string(tiles(bx) * y) + " blocks on " +
              std::to_string(slots_final) + " slots (" + fmt("%.2f", static_cast<double>(tiles(bx)) / slots_final) +
              " waves without it)";
    }
    if (y > y_max) {
        y = y_max;
        why += "; capped at " + std::to_string(y_max) + " (a batch of U columns per thread row)";
    }
    d.params.push_back({"block_x", bx, "coalescing (rule 2: whole lines), widened by the waves (rule 5)",
                        std::to_string(bx) + " threads x " + std::to_string(load) + " B (" +
                            std::to_string(bx_min) + " read a " + std::to_string(line) + "-byte line) = " +
                            std::to_string(bx * w) + " rows per tile" + cut});
    d.params.push_back({"block_y", q, short_output ? "one block per SM carries its share (rules 1, 5)"
                                                   : "two blocks per SM (rules 1, 5)",
                        std::to_string(bx * q) + " threads per block, " + std::to_string(resident) +
                            " resident per SM: " + fmt("%.0f B", block_bytes) + " in flight per block"});
    d.params.push_back(blocks_per_sm(dev, bx * q, reg_budget, 0));
    d.params.push_back({"Y", y, "waves (rule 5, KBLAS Y)", why});
}

}  // namespace

int gemv_t_registers(int columns) { return 32 + 2 * (columns + 1) * 4; }

Derivation derive_gemv(const DeviceProfile& dev, bool trans, long long m, long long n, int elem_bytes,
                       bool vector_loads) {
    detail::check_shape("derive_gemv", elem_bytes, m, n);
    Derivation d;
    d.op = "gemv";
    d.shape = std::string(trans ? "T " : "N ") + std::to_string(m) + " x " + std::to_string(n) + " " +
              detail::precision(elem_bytes);
    if (trans && elem_bytes == 4 && detail::white_case(dev, m, n)) {
        white_mv(dev, n, d);
        return d;
    }
    const int w = 16 / elem_bytes;  // elements per 16-byte load
    d.params.push_back(bytes_in_flight_per_sm(dev));
    constexpr int kThreads = 256;   // 8 warps: two per scheduler of a 4-scheduler SM
    if (!trans) {
        derive_n(dev, m, n, elem_bytes, vector_loads, d);
        return d;
    }
    // T: a warp reads down a column (32 lanes x 16 B), 8 warps split the rows, C columns per block.
    d.params.push_back({"block_x", dev.warp_size, "coalescing (rule 2: a warp along a column)",
                        std::to_string(dev.warp_size) + " lanes x 16 B = " + std::to_string(16 * dev.warp_size) +
                            " B of a column per load"});
    const int q = kThreads / dev.warp_size;
    d.params.push_back({"block_y", q, "warps splitting the rows", std::to_string(kThreads) + " threads per block"});
    // Rule 1: C columns each one 16-byte load, plus x: registers for two steps (the double
    // buffer), one step of (C + 1) x 16 B in flight (the next, while one is used).
    auto regs_t = [](int p) { return gemv_t_registers(p); };
    // The tuned T kernel instantiates C = 2, 4, 8 (kernels/tuned/gemv.cu).
    const Derived loads = unroll(dev, "C", kThreads, {2, 4, 8}, regs_t, [](int p) { return (p + 1) * 16; });
    const int c = static_cast<int>(loads.value);
    d.params.push_back(loads);
    const int regs = std::min(regs_t(c), dev.max_regs_per_thread);
    const Derived bps = blocks_per_sm(dev, kThreads, regs, 0);
    d.params.push_back(bps);
    const long long tiles = ceil_div(n, c);
    d.params.push_back(wave_split(dev, tiles, static_cast<int>(bps.value),
                                  std::max<long long>(1, m / (2LL * dev.warp_size * q * w))));
    return d;
}

}  // namespace wb::derive
