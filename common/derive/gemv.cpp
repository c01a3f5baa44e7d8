// gemv.cpp — chapter 6's GEMV derivation (derive/derivation.hpp): White's Mv procedure on the
// T10 (§4.5.1, Eq. 4.24), the tuned kernel's launch from Little's law and the waves elsewhere.
#include "derive/derivation.hpp"
#include "derive/derive_internal.hpp"

#include "model/memory.hpp"
#include "model/model_internal.hpp"
#include "model/occupancy.hpp"
#include "model/white.hpp"

#include <algorithm>
#include <cmath>
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

/// The split of one tile's reduction over Y blocks (rule 5, KBLAS's Y), shared by N and T.
/// `block_bytes`: what a block keeps in flight with both of its buffers full (threads x two
/// batches or steps); `resident`: its blocks per SM (occupancy); `max_y`: each block keeps a
/// minimum of work and the deterministic finish sums at most 8 partials per chain of its thread
/// groups (kernels/gemv_common.cuh, split_finish).
Derived split_y(const DeviceProfile& dev, long long tiles, double block_bytes, int resident, long long max_y) {
    const long long sms = dev.sm_count;
    if (tiles >= sms) return {"Y", 1, "waves (rule 5, KBLAS Y)", std::to_string(tiles) + " tiles: every SM has one"};
    const double device = dev.bandwidth_gbs * dev.latency_ns;  // Little's law for the device (B)
    // Rule 1 for the device: a block streams with one of its two buffers in flight (the other is
    // being used), so `tiles` SMs pull tiles x block_bytes / 2 / latency. Where at least an eighth
    // of the SMs have a tile and that reaches the bandwidth (the tiles alone keep the device's
    // Little's law in flight), a split only adds partials. (With fewer tiles the call is
    // latency-bound: shorter walks per block pay whatever they hold.)
    const double streaming = static_cast<double>(tiles) * block_bytes / 2;
    if (8 * tiles >= sms && streaming >= device)
        return {"Y", 1, "Little's law for the device (rule 1)",
                std::to_string(tiles) + " blocks x " + fmt("%.0f B", block_bytes / 2) + " in flight = " +
                    fmt("%.0f B", streaming) + " >= " + fmt("%.0f B", device) + ": no split"};
    if (max_y <= 1) return {"Y", 1, "waves (rule 5, KBLAS Y)", "no split: a block's minimum of work"};
    // Rule 1 per SM: the fewest resident blocks that keep twice Little's law in flight (the margin
    // hides each block's reduction tail); rule 5: one wave of them, never a second, partial one
    // (a split's blocks are equally long: one block past the wave doubles the time, an idle slot
    // costs only its share), so Y rounds down where rounding up passes the resident slots.
    const double need = 2.0 * model::bytes_in_flight_needed_per_sm(dev);
    const long long per_sm = std::min<long long>(resident, std::max(1LL, static_cast<long long>(std::ceil(need / block_bytes))));
    long long y = ceil_div(sms * per_sm, tiles);
    const long long slots = sms * resident;
    if (tiles * y > slots) y = std::max<long long>(1, slots / tiles);
    y = std::clamp<long long>(y, 1, max_y);
    return {"Y", y, "waves (rule 5, KBLAS Y) of blocks that keep Little's law in flight (rule 1)",
            std::to_string(tiles) + " tiles x Y = " + std::to_string(tiles * y) + " blocks: " + std::to_string(per_sm) +
                " per SM keep 2 x " + fmt("%.0f B", need / 2) + " in flight (" + fmt("%.0f B", block_bytes) +
                " each), " + std::to_string(slots) + " resident slots" + (y == max_y ? " (capped at a block's minimum of work)" : "")};
}

/// The N kernel's time for one wave of `blocks` blocks of `threads` threads, each thread keeping
/// `thread_bytes` in flight (a batch of U loads), tiles of bx rows, split Y ways (see derive_n).
/// Returns a function (bx, threads, blocks, Y) -> ns.
auto one_wave_cost(const DeviceProfile& dev, long long m, long long n, int elem_bytes, bool vector_loads,
                   int thread_bytes) {
    return [=, &dev](int bx, int threads, long long blocks, long long y) {
        const double flight = static_cast<double>(blocks) * threads * thread_bytes;
        const double rate = std::min(dev.bandwidth_gbs, flight / dev.latency_ns);  // B/ns
        // Element loads: a tile's column run of bx elements touches one sector more than it
        // fills (rule 2); from 16 sectors a run on (bx_elem) that is within the estimate's
        // resolution, 1/16, and counted as such.
        const double run = std::min(16.0, static_cast<double>(bx) * elem_bytes / dev.segment_bytes);
        const double bytes = static_cast<double>(m) * n * elem_bytes * (vector_loads ? 1.0 : (run + 1) / run);
        double tail = 0;
        const bool cluster = y <= 8 || (threads <= 256 && y <= 16);  // tuned/gemv_cluster_launch.cuh
        const double l2 = dev.l2_latency_ns > 0 ? dev.l2_latency_ns : dev.latency_ns;
        if (y > 1)
            tail = cluster ? dev.latency_ns + static_cast<double>(ceil_div(y, 2LL)) * l2
                           : 2 * dev.latency_ns + static_cast<double>(ceil_div(y, 4LL)) * l2;
        return bytes / rate + tail;
    };
}

/// Resident blocks per SM of the N kernels: their launch bound, kNLaunchBound threads per block,
/// lets the compiler use regs_per_sm / kNLaunchBound registers per thread, so no more than that
/// many threads are ever resident per SM, whatever U is.
constexpr int kNLaunchBound = 512;  // __launch_bounds__ of the N kernel (kernels/tuned/gemv.cu)

/// The N kernel (kernels/tuned/gemv.cu): block (block_x, Q), each thread W rows of every (Q Y)-th
/// column, U columns per batch, the next batch's U loads in flight while one is multiplied.
void derive_n(const DeviceProfile& dev, long long m, long long n, int elem_bytes, bool vector_loads, Derivation& d) {
    const int load = vector_loads ? 16 : elem_bytes;  // bytes per load of A
    const int w = load / elem_bytes;                   // rows per thread
    // Rule 2, coalescing: a warp's load instruction reads whole 128-byte lines (4 sectors) of a
    // column: 8 threads x 16 B; element loads put a whole warp on one column (32 consecutive
    // rows per instruction: an odd lda gives every column its own alignment, so the lanes of one
    // instruction must not straddle two columns).
    const int line = 4 * dev.segment_bytes;
    // Element loads (an odd lda): a column's run of bx rows starts anywhere in a sector, so it
    // touches one sector more than its bytes fill, bx elem / 32 + 1 of them. That extra sector
    // costs at most 1/16 of the run (the estimate's resolution) from bx elem >= 16 sectors on:
    // 128 rows of float, 64 of double, where a warp's run (32 rows) pays 1/4 to 1/8 more.
    const int bx_elem = std::max(dev.warp_size, 16 * dev.segment_bytes / elem_bytes);
    const int bx_line = vector_loads ? std::clamp(line / load, 4, dev.warp_size) : bx_elem;
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
    // A block's bytes in flight with both batches full, and the split's limits: every thread row
    // keeps a batch of U columns, and the finish sums at most 8 partials per chain of its thread
    // groups (min(threads, 1024 elements of scratch) / the tile's vectors).
    auto block_bytes = [&](int threads) { return static_cast<double>(threads) * 2 * u * load; };
    auto max_y = [&](int bx, int q) {
        const long long groups = std::max(1, std::min(q, (1024 / w) / bx));
        return std::min<long long>(std::max<long long>(1, n / (static_cast<long long>(u) * q)), 8 * groups);
    };
    auto per_sm = [&](int threads) { return std::max(1, resident / threads); };
    auto split = [&](int bx, int threads) {
        return split_y(dev, tiles(bx), block_bytes(threads), per_sm(threads), max_y(bx, threads / bx));
    };
    int bx = bx_line, threads = resident;
    long long y_pick = 0;  // > 0: the one-wave comparison below chose Y with the tile
    std::string why;
    // Rule 2's floor: a column run of one 128-byte line (4 sectors, a fifth where element loads
    // start it inside a sector); bx_line is the width that keeps that fifth sector small.
    const int bx_min = vector_loads ? bx_line : std::max(4, line / elem_bytes);
    const bool few = 8 * tiles(bx_min) < sms;
    const long long half_slots = sms * per_sm(resident / 2);
    if (!few && tiles(bx_line) <= half_slots) {
        // Rules 1, 2 and 5 together, where some tile width fits one wave: each (tile, block,
        // Y) of one wave streams at min(bandwidth, bytes in flight / latency) (Little's law for
        // the device: each thread keeps a batch of U loads in flight), over the sectors its
        // column runs touch (rule 2), and a split pays its tail after the last load (rule 5):
        // through a cluster a barrier round trip and Y/2 reads of neighbours' shared memory, or
        // through global partials the fence and the ticket (two round trips) and Y/4 partial
        // loads from the L2 per chain (kernels/gemv_common.cuh). The least such time; narrower
        // tiles, then 512-thread blocks, then no split first where times are within 1/64.
        const auto cost = one_wave_cost(dev, m, n, elem_bytes, vector_loads, u * load);
        double best = 0;
        for (int b = bx_min; b <= 256; b *= 2)
            for (int t : {resident, resident / 2}) {
                const long long slots = sms * per_sm(t);
                if (b > t || tiles(b) > slots) continue;
                // Y: none, or the whole wave (a split short of it leaves SMs idle whose bytes in
                // flight cost the same tail).
                const long long wave_y = std::max(1LL, std::min(max_y(b, t / b), slots / tiles(b)));
                for (long long yy : {1LL, wave_y}) {
                    const double c = cost(b, t, tiles(b) * yy, yy);
                    if (best == 0 || c < best * (1 - 1.0 / 64)) {
                        best = c;
                        bx = b;
                        threads = t;
                        y_pick = yy;
                    }
                }
            }
        why = std::to_string(tiles(bx)) + " tiles x Y = " + std::to_string(tiles(bx) * y_pick) + " blocks of one wave: " +
              fmt("%.1f us", best / 1000) + " streamed with the split's tail, the least of the one-wave launches";
    } else if (few) {
        // Rule 5, KBLAS's Y where the tiles are fewer than an eighth of the SMs (the call is
        // latency-bound): one tile row of threads, no wider than the output, and blocks of every
        // resident thread (one per SM, each carrying the SM's whole share); the tile widens while
        // that puts more blocks in the wave (Y = floor(SMs / tiles) rounds down less).
        bx = static_cast<int>(std::clamp<long long>(detail::pow2_ceil(ceil_div(m, w)), 4, bx_line));
        threads = resident;
        auto blocks = [&](int b) { return tiles(b) * std::max<long long>(1, sms / tiles(b)); };
        for (int b = 2 * bx; b <= threads / 4; b *= 2)
            if (blocks(b) > blocks(bx)) bx = b;
        why = std::to_string(tiles(bx)) + " tiles, fewer than an eighth of the " + std::to_string(sms) +
              " SMs: one " + std::to_string(threads) + "-thread block per SM";
    } else {
        // Rule 5, the waves of a long output: blocks that are all resident stream together and
        // end together, a second, partial wave runs with a fraction of Little's law in flight. So
        // the narrowest coalesced tile whose blocks (two per SM: half the resident threads each,
        // one streams while the other reduces) fit one wave, at most 64 threads across (Q >= 4
        // thread rows share a tile's reduction). Where none does (many waves, a small tail
        // whatever the width), the widest tile up to a warp across that still leaves a wave's
        // worth of tiles (rule 2: each tile reads all of x, so fewer tiles re-read it less).
        const long long wave = half_slots;
        bx = bx_line;
        while (bx < 64 && tiles(bx) > wave) bx *= 2;
        if (tiles(bx) > wave) {
            bx = bx_line;
            while (bx < dev.warp_size && tiles(2 * bx) >= wave) bx *= 2;
        }
        // Blocks of every resident thread where one per SM holds every tile (rule 1: the SM's
        // whole share in one block), two of half that otherwise.
        threads = tiles(bx) <= sms ? resident : resident / 2;
        if (threads == resident) {
            // The reduction splits over Y blocks per tile, one wave of them: widen the tile (up to
            // 4x) while that puts more blocks in the wave, only where the narrow tile splits
            // already (the split itself is rule 1's decision, not the width's).
            const long long y0 = split(bx, threads).value;
            long long most = tiles(bx) * y0;
            for (int b = 2 * bx, last = std::min(256, 4 * bx); y0 > 1 && b <= last; b *= 2) {
                const long long y = split(b, threads).value;
                if (y > 1 && tiles(b) * y > most) {
                    most = tiles(b) * y;
                    bx = b;
                }
            }
        }
        why = std::to_string(tiles(bx)) + " tiles on " + std::to_string(wave) + " slots of " +
              std::to_string(resident / 2) + "-thread blocks (" + std::to_string(sms) + " SMs x " +
              std::to_string(per_sm(resident / 2)) + ")" +
              (tiles(bx) <= wave ? ": one wave" : fmt(": %.2f waves, the tail small", static_cast<double>(tiles(bx)) / wave));
    }
    int q = threads / bx;
    // Rule 1 per thread row: two batches of U columns each (the double buffer; the second may be
    // the guarded last one, U - 1 columns at least), so Q is cut on a short reduction and the
    // tile widens to keep the block's threads.
    const int q_max = static_cast<int>(detail::pow2_floor(std::max<long long>(1, n / (2LL * u - 1))));
    std::string cut;
    if (q > q_max) {
        q = q_max;
        bx = std::min(256, threads / q);
        cut = "; Q cut to " + std::to_string(q) + ": " + std::to_string(n) + " columns, two batches of " +
              std::to_string(u) + " per thread row";
    }
    // Rule 5 after the cut: the wider tile must still fit one wave. Where the cut's tiles need a
    // second, partial wave of blocks (each block walks the whole reduction: the last wave's blocks
    // take as long as the first's), the tile widens again, Q halving with it (fewer, longer thread
    // rows: more batches each, the same threads), up to 256 across, where that brings every tile
    // into the resident slots.
    if (!cut.empty() && !few) {
        const long long slots = sms * per_sm(threads);
        int b = bx;
        while (tiles(b) > slots && b < 256 && threads / b > 1) b *= 2;
        if (tiles(b) <= slots && b != bx) {
            cut += "; widened to " + std::to_string(b) + " across: " + std::to_string(tiles(bx)) + " tiles on " +
                   std::to_string(slots) + " slots, " + std::to_string(tiles(b)) + " fit one wave";
            bx = b;
            q = threads / b;
        }
    }
    Derived y = few ? wave_split(dev, tiles(bx), per_sm(bx * q), max_y(bx, q))
                    : split_y(dev, tiles(bx), block_bytes(bx * q), per_sm(bx * q), max_y(bx, q));
    if (y_pick > 0 && cut.empty())
        y = {"Y", y_pick, "one wave's least stream time with the split's tail (rules 1, 2, 5)",
             std::to_string(tiles(bx)) + " tiles x Y = " + std::to_string(tiles(bx) * y_pick) + " blocks"};
    d.params.push_back({"block_x", bx, "coalescing (rule 2: whole lines), widened by the waves (rule 5)",
                        std::to_string(bx) + " threads x " + std::to_string(load) + " B (" +
                            std::to_string(bx_line) + " read a " + std::to_string(line) + "-byte line) = " +
                            std::to_string(bx * w) + " rows per tile" + cut});
    d.params.push_back({"block_y", q, threads == resident ? "one block per SM carries its share (rules 1, 5)"
                                                          : "two blocks per SM (rules 1, 5)",
                        std::to_string(bx * q) + " threads per block, " + std::to_string(resident) +
                            " resident per SM; " + why});
    d.params.push_back(blocks_per_sm(dev, bx * q, reg_budget, 0));
    d.params.push_back(y);
}

/// The T kernels' launch bound: 256-thread blocks, two warps per scheduler of a 4-scheduler SM.
constexpr int kTThreads = 256;
/// The looping T kernel (tuned/gemv_t_loop.cuh) is compiled for 3 resident blocks of 256 threads
/// with C <= 4 columns per tile, 2 with more (__launch_bounds__(256, C <= 4 ? 3 : 2)).
constexpr int loop_blocks_per_sm(long long c) { return c <= 4 ? 3 : 2; }

/// The T kernels (kernels/tuned/gemv.cu, tuned/gemv_t_shapes.cuh, tuned/gemv_t_loop.cuh): lanes
/// along a column, warps splitting its rows, C columns per block; short columns take L < 32 lanes
/// per column, and many short tiles a resident wave of looping blocks.
void derive_t(const DeviceProfile& dev, long long m, long long n, int elem_bytes, bool aligned, Derivation& d) {
    const int w = 16 / elem_bytes;             // elements per 16-byte load
    const long long v = ceil_div(m, w);        // 16-byte vectors per column
    const long long head = aligned ? 0 : 1;    // a shifted column's peeled head: one more, partial, vector
    const int warp = dev.warp_size;
    const long long sms = dev.sm_count;
    // Rule 1: C columns each one 16-byte load, plus x: registers for two steps (the double
    // buffer), one step of (C + 1) x 16 B in flight (the next, while one is used). The kernels
    // instantiate C = 2, 4, 8.
    auto regs_t = [](int p) { return gemv_t_registers(p); };
    Derived loads = unroll(dev, "C", kTThreads, {2, 4, 8}, regs_t, [](int p) { return (p + 1) * 16; });
    // Rule 1, round trips per column: the short-column kernel's lanes walk their column in
    // ceil(v / L) passes, each a round trip of its own (the pass's C loads, then the FMAs that wait
    // for them: no double buffer), where a warp per column (the kernel below, block (32, 1)) has
    // its full steps in flight together and pays a second round trip only for a partial last step.
    // From 17 to 32 aligned vectors both fill the same lane slots (ceil(v / 16) x 16 =
    // ceil(v / 32) x 32) and the 16-lane group takes two round trips to the warp's one; up to 64,
    // three or four to the warp's one or two. So the short kernel keeps one pass (v <= 16) on
    // aligned columns; columns that start off a 16-byte boundary keep it up to its capacity
    // (the warp's kernel there is the shifted one, not compared on these shapes).
    if (v <= (aligned ? 16 : 4 * 16)) {
        // Rule 2: no lane idles where fewer would do. The short-column kernel holds up to 4 vectors
        // per lane of at most 16 lanes (v <= 64); L lanes per column, the power of two that covers
        // the column (at most 16), 32 / L columns per warp, 256 / L per pass of a block; one tile
        // per block.
        const int lanes = static_cast<int>(std::clamp<long long>(detail::pow2_ceil(v), 2, 16));
        d.params.push_back({"block_x", lanes, "lanes per short column (rule 2: no lane past the column)",
                            std::to_string(v) + " vectors of 16 B per column (at most 4 per lane of 16): " +
                                std::to_string(lanes) + " lanes cover it"});
        d.params.push_back({"block_y", kTThreads / lanes, "columns per pass", std::to_string(kTThreads) + " threads per block"});
        d.params.push_back(loads);
        d.params.push_back({"Y", 1, "no split", "each lane group reads whole columns"});
        return;
    }
    // Warps split the rows, each at least one step of 32 vectors (rule 1: a warp without a step
    // of its own only adds a barrier), at most the 256-thread block's 8; a column of fewer than
    // 32 vectors takes one warp, its lanes past the column idle.
    const int q = static_cast<int>(std::min<long long>(kTThreads / warp, detail::pow2_floor(std::max(1LL, v / warp))));
    const int threads = warp * q;
    // Rule 1 for a short walk: a block of at most two warps (or of a few columns, n <= 64: the
    // tiles are few anyway) finishes its tile within a round trip or two, so its start, barrier
    // and reduction are paid over few bytes: the most columns its registers hold (C = 8).
    const long long c_little = loads.value;  // Little's law's C (the looping kernel's)
    const bool short_walk = q <= 2 || n <= 64;
    if (short_walk) {
        loads.value = 8;
        loads.rule = "Rule 1 for a short walk: the most columns per tile";
        loads.metric = std::to_string(q) + " warps per block" + (n <= 64 ? ", " + std::to_string(n) + " columns" : "") +
                       ": a block lives a round trip or two; C = 8 spreads its fixed cost";
    }
    const int c = static_cast<int>(loads.value);
    // Rule 5, block turnover: where a one-tile block is done in at most two steps and its last
    // round trip is mostly empty (its fill, v / (steps x 32 Q), under 3/4) and there are tiles
    // for every resident warp to walk twice (the next tile's loads overlap the current one's
    // reduction only where there is a next tile), a resident wave of looping blocks replaces
    // thousands of short-lived ones. Not for one-warp blocks (no barrier, no cross-warp
    // reduction: nothing for the loop to save), nor for a whole-warp group reading one vector
    // of each column per tile (each lane's 16 B would pay a five-level reduction).
    const int loop_lanes = static_cast<int>(std::clamp<long long>(detail::pow2_ceil(v + head), 4, warp));
    const long long loop_c = std::min<long long>(c_little, loop_lanes);
    const long long resident_warps = std::min(loop_blocks_per_sm(loop_c) * kTThreads, dev.max_threads_per_sm) / warp;
    const long long warp_tiles = ceil_div(n, loop_c) / (warp / loop_lanes);
    const long long step = static_cast<long long>(warp) * q, steps = ceil_div(v, step);
    const bool loops = q >= 2 && !(loop_lanes == warp && v + head <= warp) && steps <= 2 && 4 * v < 3 * steps * step &&
                       warp_tiles >= 2 * resident_warps * sms && ceil_div(n, c) >= sms;
    if (loops) {
        d.params.push_back({"block_x", loop_lanes, "lanes per column tile of the looping kernel (rule 5: block turnover)",
                            std::to_string(v + head) + " vectors per column: " + std::to_string(loop_lanes) +
                                " lanes; a one-tile block would take " + std::to_string(steps) + " step(s) of " +
                                std::to_string(step) + " vectors, " +
                                fmt("%.0f%% filled", 100.0 * static_cast<double>(v) / (steps * step))});
        d.params.push_back({"block_y", kTThreads / loop_lanes, "lane groups per block",
                            std::to_string(kTThreads) + " threads per block, " + std::to_string(resident_warps) +
                                " resident warps per SM walk " + std::to_string(warp_tiles) + " warp tiles"});
        loads.value = loop_c;
        d.params.push_back(loads);
        d.params.push_back({"Y", 1, "no split", "every lane group walks whole columns"});
        d.params.push_back({"loop", 1, "block turnover (rule 5): a resident wave of looping blocks",
                            std::to_string(warp_tiles) + " warp tiles >= 2 x " + std::to_string(resident_warps) +
                                " warps x " + std::to_string(sms) + " SMs"});
        return;
    }
    d.params.push_back({"block_x", warp, "coalescing (rule 2: a warp along a column)",
                        std::to_string(warp) + " lanes x 16 B = " + std::to_string(16 * warp) + " B of a column per load"});
    d.params.push_back({"block_y", q, "warps splitting the rows, each a step of its own",
                        std::to_string(v) + " vectors per column: " + std::to_string(q) + " warps of " +
                            std::to_string(warp) + " lanes"});
    d.params.push_back(loads);
    const int regs = std::min(regs_t(c), dev.max_regs_per_thread);
    const Derived bps = blocks_per_sm(dev, threads, regs, 0);
    d.params.push_back(bps);
    const long long tiles = ceil_div(n, c);
    const long long groups = std::max(1, std::min(threads / c, 1024 / c));
    const long long max_y = std::min<long long>(std::max(1LL, m / (2LL * threads * w)), 8 * groups);
    d.params.push_back(split_y(dev, tiles, static_cast<double>(threads) * 2 * (c + 1) * 16,
                               std::max(1, static_cast<int>(bps.value)), max_y));
}
}  // namespace

int gemv_t_registers(int columns) { return 32 + 2 * (columns + 1) * 4; }

Derivation derive_gemv(const DeviceProfile& dev, bool trans, long long m, long long n, int elem_bytes,
                       bool vector_loads, bool white) {
    detail::check_shape("derive_gemv", elem_bytes, m, n);
    Derivation d;
    d.op = "gemv";
    d.shape = std::string(trans ? "T " : "N ") + std::to_string(m) + " x " + std::to_string(n) + " " +
              detail::precision(elem_bytes);
    if (white && trans && elem_bytes == 4 && detail::white_case(dev, m, n)) {
        white_mv(dev, n, d);
        return d;
    }
    d.params.push_back(bytes_in_flight_per_sm(dev));
    if (trans)
        derive_t(dev, m, n, elem_bytes, vector_loads, d);
    else
        derive_n(dev, m, n, elem_bytes, vector_loads, d);
    return d;
}

}  // namespace wb::derive
