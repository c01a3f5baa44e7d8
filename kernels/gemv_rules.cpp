/// \file gemv_rules.cpp
/// \brief The tuned GEMV's launch rules (see gemv_rules.hpp for the rules in words).
#include "gemv_rules.hpp"

#include "derive/derivation.hpp"

#include "launch_checks.hpp"
#include "launch_limits.hpp"

#include <algorithm>
#include <cmath>

namespace wb {
namespace {

long long cdiv(long long a, long long b) { return (a + b - 1) / b; }

/// Largest power of two <= v (1 for v < 1).
int pow2_floor(long long v) {
    int p = 1;
    while (2LL * p <= v) p *= 2;
    return p;
}

/// Smallest power of two >= v (1 for v < 1).
int pow2_ceil(long long v) {
    int p = 1;
    while (p < v) p *= 2;
    return p;
}

/// N: columns per batch (GemvLaunch::ept), two batches in flight (rule 2): 8 16-byte loads, or
/// 64 / size(T) element loads (the same 64 registers for A and x of both batches).
int unroll_n(GemvLoads loads, int elem_bytes) { return loads == GemvLoads::kElement ? 64 / elem_bytes : 8; }
/// N: the narrowest tile a warp reads coalesced: 8 threads x 16 bytes, or, for element loads, 32
/// threads on one column (a warp's load instruction covers 32 consecutive rows, rule 1).
int min_block_x(GemvLoads loads) { return loads == GemvLoads::kElement ? 32 : 8; }
/// N: registers per thread of the tuned N kernels (two batches of A and x held: ptxas gives
/// 107-128), so an SM holds 512 of their threads.
constexpr int kNRegsPerThread = 128;
constexpr int kShortTLanes = 16;    ///< T, short columns: at most 16 lanes per column
constexpr int kShortTVectors = 64;  ///< T: short columns have at most 64 vectors (4 per lane of 16)
constexpr int kLoopC = 4;            // T, looping kernel: columns per tile
constexpr int kLoopWarpsPerSm = 24;  // T, looping kernel: resident warps per SM (256-thread blocks, 3 per SM)
constexpr int kLoopMinTiles = 2;     // T, looping kernel: tiles per resident warp at least

}  // namespace

GemvLoads tuned_gemv_loads(const GemvShape& s) {
    const int w = 16 / s.elem_bytes;
    const bool a_ok = s.a_offset_bytes % 16 == 0 && s.lda % w == 0;
    const bool x_ok = s.op == Op::N || s.x_offset_bytes % 16 == 0;  // N reads x one element per column
    if (a_ok && x_ok && (s.op == Op::T || s.m >= 2 * w)) return GemvLoads::kAligned16;
    return s.op == Op::T ? GemvLoads::kShifted16 : GemvLoads::kElement;
}

int tuned_gemv_rows_per_load(const GemvShape& s) {
    return tuned_gemv_loads(s) == GemvLoads::kElement ? 1 : 16 / s.elem_bytes;
}

long long tuned_gemv_tiles(const GemvShape& s, const GemvLaunch& l) {
    if (s.op == Op::N) return cdiv(s.m, static_cast<long long>(l.block_x) * tuned_gemv_rows_per_load(s));
    if (tuned_gemv_loop_t(s.op, l)) return cdiv(s.n, l.nb);
    if (tuned_gemv_short_t(s.op, l)) return cdiv(s.n, static_cast<long long>(l.nb) * l.block_y);
    return cdiv(s.n, l.nb);
}

double tuned_gemv_block_bytes_in_flight(const GemvShape& s, const GemvLaunch& l) {
    const double threads = static_cast<double>(l.block_x) * l.block_y;
    const double load = tuned_gemv_loads(s) == GemvLoads::kElement ? s.elem_bytes : 16.0;
    if (s.op == Op::N) return threads * 2.0 * std::max(1, l.ept) * load;
    if (tuned_gemv_loop_t(s.op, l)) return threads * (l.nb + 1) * load;
    if (tuned_gemv_short_t(s.op, l)) return threads * l.nb * load;
    return threads * 2.0 * (l.nb + 1) * load;
}

int tuned_gemv_split(const GemvShape& s, const GemvLaunch& l, const GemvMachine& mc) {
    if (l.Y > 0) return l.Y;
    if (tuned_gemv_short_t(s.op, l) || tuned_gemv_loop_t(s.op, l) || s.m <= 0 || s.n <= 0) return 1;
    const long long tiles = tuned_gemv_tiles(s, l);
    if (tiles >= mc.sm_count) return 1;  // rule 3: every SM has a tile already
    const int w = tuned_gemv_rows_per_load(s);
    const int threads = l.block_x * l.block_y;
    // Rule 4: enough reduction per block for the double-buffered loop, and a short second pass.
    long long max_y;
    int groups;  // thread groups of split_finish: min(threads, 1024 elements of scratch) / vectors per tile
    if (s.op == Op::N) {
        max_y = s.n / (1LL * std::max(1, l.ept) * l.block_y);
        const int vectors = l.block_x;  // W-vectors of partials per tile
        groups = std::max(1, std::min(threads / vectors, (1024 / w) / vectors));
    } else {
        max_y = s.m / (2LL * 32 * l.block_y * w);
        groups = std::max(1, std::min(threads / l.nb, 1024 / l.nb));
    }
    max_y = std::min<long long>(max_y, 8LL * groups);
    if (max_y <= 1) return 1;
    const double per_block = tuned_gemv_block_bytes_in_flight(s, l);
    // Rule 3: between an eighth of the SMs and all of them, split only where it pays: where the
    // tiles' SMs cannot pull the bandwidth, or their blocks cannot keep Little's law in flight.
    if (8 * tiles >= mc.sm_count) {
        const double bytes = static_cast<double>(s.m) * s.n * s.elem_bytes;
        const double t_whole = bytes / (static_cast<double>(tiles) * mc.sm_bandwidth_gbs * 1e3);  // us
        const double t_split = bytes / (mc.bandwidth_gbs * 1e3) + mc.split_cost_us;
        const bool enough_in_flight = static_cast<double>(tiles) * per_block >= mc.bandwidth_gbs * mc.latency_ns;
        if (t_whole <= t_split && enough_in_flight) return 1;
    }
    // Rules 2 and 5: one wave of blocks, each SM with twice Little's law in flight.
    const long long per_sm = std::max<long long>(
        1, static_cast<long long>(std::ceil(2.0 * mc.bytes_in_flight_per_sm() / std::max(1.0, per_block))));
    // Resident blocks per SM: by threads, and for N by registers (kNRegsPerThread: a 512-thread
    // block of the N kernels is alone on its SM).
    long long resident = std::max(1, mc.max_threads_per_sm / std::max(1, threads));
    if (s.op == Op::N) resident = std::min<long long>(resident, std::max(1, mc.regs_per_sm / (kNRegsPerThread * threads)));
    long long y = cdiv(static_cast<long long>(mc.sm_count) * std::min(per_sm, resident), tiles);
    // Never a second wave: where the rounded-up Y would put blocks beyond the resident slots (a
    // 512-thread N block is alone on its SM), Y rounds down. The blocks of a split are all equally
    // long, so one block past the wave doubles the time while an idle SM costs only its share:
    // 579 x 57900 N, 19 tiles on 132 SMs, Y = 7 (133 blocks) ran at 0.81x cuBLAS and Y = 6 at
    // 1.10x in one run (H100; \ref notes_gemv). The tile width then makes
    // the rounding cheap (tuned_gemv_one_tile_launch: 10 tiles x 13 = 130 blocks, 1.11x).
    const long long slots = static_cast<long long>(mc.sm_count) * resident;
    if (tiles * y > slots) y = std::max<long long>(1, slots / tiles);
    return static_cast<int>(std::clamp<long long>(y, 1, max_y));
}

GemvSplit gemv_split_reduction(int k, int Y, int step) {
    // Y x k_per_block <= k + Y step - 1, so the loop ends by Y = (kMaxInt32 - k) / step at the latest.
    for (long long y0 = Y;; --y0) {
        const long long kpb = cdiv(cdiv(k, y0), step) * step;
        const long long y = cdiv(k, kpb);
        if (y * kpb <= kMaxInt32) return {static_cast<int>(kpb), static_cast<int>(y)};
    }
}

int tuned_gemv_n_max_split(int n, int Q) {
    return static_cast<int>(std::max<long long>(1, std::min<long long>(n / Q, ((1LL << 31) - n) / Q)));
}

GemvLaunch tuned_gemv_t_loop_launch(const GemvShape& s) {
    // L lanes cover a column's vectors (a head adds one partial vector where columns are not
    // aligned): the power of two >= them, 4 ... 32.
    const int w = 16 / s.elem_bytes;
    const long long vectors = cdiv(s.m, w) + (tuned_gemv_loads(s) == GemvLoads::kAligned16 ? 0 : 1);
    const int lanes = std::clamp(pow2_ceil(vectors), 4, 32);
    GemvLaunch l{lanes, 256 / lanes, kLoopC, 256 / lanes, 1, 4};
    l.loop = 1;
    return l;
}

bool tuned_gemv_t_loops(const GemvShape& s, const GemvMachine& mc) {
    if (s.op != Op::T || s.m <= 0 || s.n <= 0) return false;
    const GemvLaunch loop = tuned_gemv_t_loop_launch(s);
    // Every resident warp gets kLoopMinTiles tiles at least (a warp walks 32 / L tiles at once).
    const long long warp_tiles = cdiv(s.n, kLoopC) / (32 / loop.block_x);
    if (warp_tiles < static_cast<long long>(kLoopMinTiles) * kLoopWarpsPerSm * mc.sm_count) return false;
    const int w = 16 / s.elem_bytes;
    const long long vectors = cdiv(s.m, w);
    // Not where the group is a whole warp that reads at most one vector of each column per tile
    // (double 58 and 64 rows: 0.78x and 0.56x cuBLAS looping, 1.03x and 0.82x with one tile per
    // block; H200). Not explained yet; the suspect: each lane's 16 bytes per column
    // then pay a five-level reduction.
    if (loop.block_x == 32 && vectors + (tuned_gemv_loads(s) == GemvLoads::kAligned16 ? 0 : 1) <= 32) return false;
    const GemvLaunch one = tuned_gemv_one_tile_launch(s, mc);
    // Short columns (rule 6's lanes) keep one tile per block: once the short kernel loaded
    // beta * y before its loads of A, one tile beat the loop on every such shape but one (H200,
    // perf [gemv]: float 16, 32, 64, 183 rows 1.24-1.82x cuBLAS against 1.15-1.46x
    // looping; double 16, 32 rows 1.10x, 1.06x against 0.88x, 0.93x; float 58 rows 1.38x against
    // 1.46x).
    if (tuned_gemv_short_t(s.op, one)) return false;
    // (a): a one-tile block of at most two steps, filled under 3/4.
    const long long step = 32LL * one.block_y;
    const long long steps = cdiv(vectors, step);
    return one.Y == 1 && steps <= 2 && 4 * vectors < 3 * steps * step;
}

GemvLaunch tuned_gemv_default_launch(const GemvShape& s, const GemvMachine& mc) {
    return tuned_gemv_t_loops(s, mc) ? tuned_gemv_t_loop_launch(s) : tuned_gemv_one_tile_launch(s, mc);
}

GemvLaunch tuned_gemv_one_tile_launch(const GemvShape& s, const GemvMachine& mc) {
    const int w = tuned_gemv_rows_per_load(s);
    GemvLaunch l;
    if (s.op == Op::N) {
        const GemvLoads loads = tuned_gemv_loads(s);
        auto tiles = [&](int bx) { return cdiv(s.m, static_cast<long long>(bx) * w); };
        const int bx_min = min_block_x(loads);
        int bx, threads;
        if (8 * tiles(bx_min) >= mc.sm_count) {
            // Long output, rule 7: every tile resident at once where a tile of at most 64
            // threads across gets there: the narrowest coalesced tile (8 x W rows, or a warp of
            // 32 rows for element loads) that gives at most one wave of 256-thread blocks;
            // beyond that (many waves, a small tail), widened while a wave's worth remains.
            // Blocks of 512 threads (Q thread rows walking one narrow band of neighbouring
            // columns together) where one per SM holds every tile, 256 otherwise.
            const long long per_sm_256 = std::max(1, mc.regs_per_sm / (kNRegsPerThread * 256));
            const long long wave = mc.sm_count * per_sm_256;  // resident 256-thread blocks
            bx = bx_min;
            while (bx < 64 && tiles(bx) > wave) bx *= 2;
            if (tiles(bx) > wave) {
                bx = bx_min;
                while (bx < 32 && tiles(2 * bx) >= wave) bx *= 2;
            }
            threads = tiles(bx) <= mc.sm_count ? 512 : 256;
            if (threads == 512) {
                // The reduction will be split over Y blocks per tile, at most one wave of them
                // (rule 5): widen the tile (up to 4x, a block still 512 threads) while that makes
                // more blocks, i.e. while tiles x Y gets closer to the SMs (579 rows of element
                // loads: 19 tiles x 6 = 114 blocks at 32 rows, 10 x 13 = 130 at 64 rows).
                // Only where the narrow tile's launch splits already (a wider tile must not turn
                // an unsplit launch into a split one: rule 3 decides that).
                auto split = [&](int b) {
                    const GemvLaunch probe{b, 512 / b, 4, 512 / b, 0, unroll_n(loads, s.elem_bytes)};
                    return tuned_gemv_split(s, probe, mc);
                };
                const int y0 = split(bx);
                long long most = tiles(bx) * y0;
                for (int b = 2 * bx, last = std::min(256, 4 * bx); y0 > 1 && b <= last; b *= 2) {
                    const int y = split(b);
                    if (y > 1 && tiles(b) * y > most) {
                        most = tiles(b) * y;
                        bx = b;
                    }
                }
            }
        } else {
            // Short output: one tile row of threads covers it (at most 16 x W rows, or a warp
            // of element loads, so that a few tiles can still share the SMs), the reduction is
            // split (rule 3).
            bx = std::clamp(pow2_ceil(cdiv(s.m, w)), 4, std::max(16, bx_min));
            threads = 256;
        }
        // Rule 5 with element loads: a batch of element loads carries half the bytes of an
        // aligned one, and the finish caps Y at 8 per thread group. Where that cap leaves fewer
        // blocks than SMs (float 58 x 580000: 2 tiles x 64 = 128 blocks of 256 threads, 16 KB
        // per batch each: 0.83x), blocks take 512 threads: twice the groups, twice the bytes.
        if (loads == GemvLoads::kElement && threads == 256 && 8 * tiles(bx) < mc.sm_count) {
            const int u0 = unroll_n(loads, s.elem_bytes);
            GemvLaunch probe{bx, threads / bx, 4, threads / bx, 0, u0};
            if (tiles(bx) * tuned_gemv_split(s, probe, mc) < mc.sm_count) threads = 512;
        }
        int q = threads / bx;
        // Rule 6: every thread row keeps two batches of U columns (the second may be the guarded
        // last one, at least U - 1 columns), so the next batch loads while one is multiplied.
        const int u = unroll_n(loads, s.elem_bytes);
        const int q_max = pow2_floor(std::max<long long>(1, s.n / (2 * u - 1)));
        if (q > q_max) {
            q = q_max;
            bx = std::min(256, threads / q);
        }
        l = GemvLaunch{bx, q, 4, q, 0, u};
    } else {
        const long long vectors = cdiv(s.m, w);
        if (vectors <= kShortTVectors) {
            // Short reduction: L lanes per column (the power of two that covers m, at most 16:
            // then up to 4 vectors per lane), 256 / L columns per pass of a block, C = 4
            // columns per thread.
            const int lanes = std::clamp(pow2_ceil(vectors), 2, kShortTLanes);
            l = GemvLaunch{lanes, 256 / lanes, 4, 256 / lanes, 1, 4};
        } else {
            // Warps split the rows (one step of 32 x W rows each at least), C columns per block:
            // 8 where the columns are few (tall T: fewer tiles re-read x) or the warps are.
            const int q = std::clamp(pow2_floor(vectors / 32), 1, 8);
            const int c = (s.n <= 64 || q <= 2) ? 8 : 4;
            l = GemvLaunch{32, q, c, q, 0, 4};
        }
    }
    l.Y = tuned_gemv_split(s, l, mc);
    return l;
}

std::vector<GemvLaunch> tuned_gemv_launches(const GemvShape& s, const GemvMachine& mc) {
    std::vector<GemvLaunch> v;
    auto add = [&](const GemvLaunch& l) {
        if (std::find(v.begin(), v.end(), l) == v.end()) v.push_back(l);
    };
    const int w = tuned_gemv_rows_per_load(s);
    const long long sms = std::max(1, mc.sm_count);
    // The splits of one block shape: none, the default rule's, one wave (each with global partials too).
    // `reg_slots_per_sm`: the blocks per SM the registers allow, where they bound more tightly
    // than the threads (T: derive::gemv_t_registers, the derivation's one-wave Y); 0: none.
    auto splits = [&](GemvLaunch l, long long tiles, long long slots_per_sm, long long y_max,
                      long long reg_slots_per_sm = 0) {
        GemvLaunch probe = l;
        probe.Y = 0;
        const long long rule = tuned_gemv_split(s, probe, mc);
        auto wave_of = [&](long long per_sm) {
            return tiles < sms * per_sm ? std::clamp<long long>(sms * per_sm / std::max(1LL, tiles), 1, std::max(1LL, y_max))
                                        : 1;
        };
        const long long wave = wave_of(slots_per_sm);
        const long long reg_wave = reg_slots_per_sm > 0 ? wave_of(reg_slots_per_sm) : 1;
        for (long long y : {1LL, rule, wave, reg_wave}) {
            l.Y = static_cast<int>(y);
            l.cluster = 0;
            add(l);
        }
        if (rule > 1) {  // the rule's split also through global partials (the automatic choice may be a cluster)
            l.Y = static_cast<int>(rule);
            l.cluster = 1;
            add(l);
        }
    };
    if (s.op == Op::N) {
        const GemvLoads loads = tuned_gemv_loads(s);
        const long long rows = cdiv(std::max(1, s.m), w);  // vectors of the output
        const int line = loads == GemvLoads::kElement ? 128 / s.elem_bytes : 8;  // a 128-byte line's threads
        const int bx_lo = std::clamp(pow2_ceil(rows), 4, line);
        std::vector<int> unrolls = {2, 4, 8};
        if (loads == GemvLoads::kElement && s.elem_bytes == 4) unrolls.push_back(16);
        // No wider than the output, a line, or the width rule 6 gives where it cuts Q (the
        // fewest thread rows: two batches of the largest U per row) asks for.
        const int q_min = pow2_floor(std::max<long long>(1, s.n / (2LL * unrolls.back() - 1)));
        const int bx_hi = std::min(256, std::max({pow2_ceil(rows), line, 512 / std::min(512, q_min)}));
        for (int bx = bx_lo; bx <= bx_hi; bx *= 2)
            for (int threads : {256, 512}) {
                if (bx > threads) continue;
                const int q = threads / bx;
                const long long tiles = cdiv(std::max(1, s.m), static_cast<long long>(bx) * w);
                const long long per_sm = std::max(1, mc.regs_per_sm / (kNRegsPerThread * threads));
                for (int u : unrolls)
                    splits(GemvLaunch{bx, q, 4, q, 0, u}, tiles, per_sm, std::max(1, s.n) / (static_cast<long long>(u) * q));
            }
    } else {
        for (int q : {1, 2, 4, 8, 16})
            for (int nb : {2, 4, 8}) {
                const long long tiles = cdiv(std::max(1, s.n), nb);
                const long long per_sm = std::max(1, mc.max_threads_per_sm / (32 * q));
                const long long reg_per_sm = std::max(1, mc.regs_per_sm / (32 * q * derive::gemv_t_registers(nb)));
                splits(GemvLaunch{32, q, nb, q, 0, 4}, tiles, per_sm,
                       std::max(1, s.m) / (2LL * 32 * q * (16 / s.elem_bytes)), std::min(per_sm, reg_per_sm));
            }
        // Short columns: L lanes per column, 256 / L columns per pass, no split.
        for (int lanes : {2, 4, 8, 16})
            for (int nb : {2, 4, 8}) add(GemvLaunch{lanes, 256 / lanes, nb, 256 / lanes, 1, 4});
        // Looping blocks (rule 8): L lanes per tile of nb <= L columns, automatic, cached or streaming.
        for (int lanes : {4, 8, 16, 32})
            for (int nb : {2, 4, 8})
                for (int c : {0, 1, 2})
                    if (nb <= lanes) add(GemvLaunch{lanes, 256 / lanes, nb, 256 / lanes, 1, 4, c, 0, 1});
    }
    // The former rule's launch, and the cache policies at the default's block (chapter 6's
    // derivation: element loads and shifted columns take two).
    add(tuned_gemv_default_launch(s, mc));
    const GemvLaunch d = tuned_gemv_default(s);
    add(d);
    const bool two = tuned_gemv_loads(s) != GemvLoads::kAligned16 || tuned_gemv_loop_t(s.op, d);
    for (int c = 1; c <= (two ? 2 : 4); ++c) {
        GemvLaunch l = d;
        l.cache = c;
        add(l);
    }
    return v;
}

GemvLaunch check_tuned_gemv_launch(Op op, const GemvLaunch& in, const char* fn) {
    using launch_checks::require_launch;
    GemvLaunch l = in;
    if (l.block_x > 0) {  // an explicit launch: check every field (block_x 0: derived from the shape)
        if (l.block_y <= 0) l.block_y = 8;
        if (l.nb <= 0) l.nb = 4;
        if (l.ept <= 0) l.ept = 4;
        if (op == Op::N)
            require_launch(l.block_x >= 4 && l.block_x <= 256 && (l.block_x & (l.block_x - 1)) == 0, fn, "block_x",
                           l.block_x, "a power of two in [4, 256] (N)");
        else
            require_launch(l.block_x >= 2 && l.block_x <= 32 && (l.block_x & (l.block_x - 1)) == 0, fn, "block_x",
                           l.block_x, "32 (T: one warp per row stripe) or 2, 4, 8, 16 (T: lanes per short column)");
        if (tuned_gemv_loop_t(op, l)) {
            require_launch(l.block_x >= 4, fn, "block_x", l.block_x, "4, 8, 16 or 32 (looping T: lanes per column tile)");
            require_launch(l.block_x * l.block_y == 256, fn, "block_y", l.block_y, "256 / block_x (looping T: 256 threads)");
            require_launch(l.nb <= l.block_x, fn, "nb", l.nb, "<= block_x (looping T: lane c writes column c)");
            require_launch(l.Y <= 1, fn, "Y", l.Y, "0 or 1 (looping T: no split)");
        } else if (tuned_gemv_short_t(op, l))
            require_launch(l.block_x * l.block_y == 256, fn, "block_y", l.block_y,
                           "256 / block_x (T with lanes per column: 256 threads)");
        else
            require_launch(l.block_y >= 1 && l.block_x * l.block_y <= 512 && (l.block_x * l.block_y) % 32 == 0, fn,
                           "block_y", l.block_y, ">= 1 with block_x * block_y a multiple of 32 and <= 512");
    }
    require_launch(l.nb <= 0 || l.nb == 2 || l.nb == 4 || l.nb == 8, fn, "nb", l.nb, "2, 4 or 8 (T: columns per block)");
    require_launch(l.ept <= 0 || l.ept == 2 || l.ept == 4 || l.ept == 8 || l.ept == 16, fn, "ept", l.ept,
                   "2, 4, 8 or 16 (N: unroll U; 16 only for float element loads)");
    require_launch(l.cache >= 0 && l.cache <= 4, fn, "cache", l.cache,
                   "0 (auto), 1 (cached loads of A), 2 (streaming), 3 (L2 evict-first policy) or 4 "
                   "(streaming, 256-byte L2 fetches)");
    require_launch(l.Y >= 0, fn, "Y", l.Y, ">= 0 (0: derived)");
    require_launch(l.cluster >= 0 && l.cluster <= 2, fn, "cluster", l.cluster,
                   "0 (auto), 1 (global partials) or 2 (thread-block cluster)");
    require_launch(l.loop == 0 || l.loop == 1, fn, "loop", l.loop, "0 (one tile per block) or 1 (looping T)");
    require_launch(l.loop == 0 || op == Op::T, fn, "loop", l.loop, "0 for op N (the looping kernel is T's)");
    require_launch(l.loop == 0 || l.block_x > 0, fn, "loop", l.loop,
                   "1 only with an explicit launch (block_x > 0); block_x 0 derives it (rule 8)");
    return l;
}

void check_tuned_gemv_ept(const GemvShape& s, const GemvLaunch& l, const char* fn) {
    launch_checks::require_launch(
        l.ept != 16 || (s.op == Op::N && tuned_gemv_loads(s) == GemvLoads::kElement && s.elem_bytes == 4), fn, "ept",
        l.ept, "2, 4 or 8 (16 only for float N with element loads: columns not 16-byte aligned)");
}

}  // namespace wb
