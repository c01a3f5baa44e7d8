// The tuned GEMV's launch rules (kernels/gemv_rules.hpp), checked without a GPU: the square powers
// of two keep the launches measured before the rules, every default launch is legal, and the
// rules' own claims hold on the shape classes of issue 14 (bytes in flight per Little's law,
// every SM busy, split limits, load kinds).
#include "catch.hpp"

#include "gemv_rules.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using wb::GemvLaunch;
using wb::GemvLoads;
using wb::GemvMachine;
using wb::GemvShape;
using wb::Op;

GemvShape shape(Op op, int m, int n, int elem, int lda = 0, int a_off = 0, int x_off = 0) {
    return GemvShape{op, m, n, lda > 0 ? lda : std::max(1, m), elem, a_off, x_off};
}

/// The table of launches the tuned step used before the rules (kernels/gemv_ladder.cpp at
/// 888e0ce), for the square sizes it was measured on.
GemvLaunch old_default(Op op, int m, int elem) {
    if (op == Op::T) return GemvLaunch{32, 8, 4, 8, 1, 4};
    const long long w = 16 / elem;
    auto tiles = [&](int bx) { return (m + bx * w - 1) / (bx * w); };
    if (tiles(8) < 17) return GemvLaunch{32, 8, 4, 8, 0, 8};
    int bx = 8;
    while (bx < 32 && tiles(2 * bx) >= 256) bx *= 2;
    const int q = (tiles(bx) < 256 ? 512 : 256) / bx;
    return GemvLaunch{bx, q, 4, q, 1, 8};
}

bool legal(const GemvShape& s, const GemvLaunch& l) {
    const bool pow2 = l.block_x > 0 && (l.block_x & (l.block_x - 1)) == 0;
    if (!pow2 || l.block_y < 1 || l.Y < 1 || (l.nb != 2 && l.nb != 4 && l.nb != 8)) return false;
    const bool element = s.op == Op::N && s.elem_bytes == 4 && wb::tuned_gemv_loads(s) == GemvLoads::kElement;
    if (l.ept != 2 && l.ept != 4 && l.ept != 8 && !(l.ept == 16 && element)) return false;
    if (s.op == Op::N) return l.block_x >= 4 && l.block_x <= 256 && l.block_x * l.block_y <= 512 &&
                              (l.block_x * l.block_y) % 32 == 0;
    if (l.loop != 0) return s.op == Op::T && l.block_x >= 4 && l.block_x * l.block_y == 256 && l.Y == 1 && l.nb <= l.block_x;
    if (l.block_x < 32) return l.block_x >= 2 && l.block_x * l.block_y == 256 && l.Y == 1;
    return l.block_x == 32 && l.block_y <= 16;
}

/// Issue 14's shape classes (as `ch05_unrolled --shapes` times them), both ops.
std::vector<GemvShape> shape_set(int elem) {
    std::vector<GemvShape> v;
    for (Op op : {Op::N, Op::T}) {
        for (int n : {1000, 3000, 5000, 10000, 12345}) v.push_back(shape(op, n, n, elem));
        for (int n : {2000, 4096, 8192}) v.push_back(shape(op, n, n, elem, n + 1));  // odd lda
        const int mn = 1 << 25;
        for (int r : {4, 10, 100, 1000, 10000}) {
            const int small = static_cast<int>(std::sqrt(static_cast<double>(mn) / r));
            v.push_back(shape(op, small * r, small, elem));  // tall
            v.push_back(shape(op, small, small * r, elem));  // wide
        }
        for (auto [m, n] : {std::pair{32, 200000}, {64, 1000000}, {8, 1000000}, {200000, 32}, {1000000, 64},
                            {1000000, 8}})
            v.push_back(shape(op, m, n, elem));
        for (int off : {1, 2, 3, 17, 33}) v.push_back(shape(op, 4000, 4000, elem, 4160, (off * elem) % 16));
    }
    return v;
}

}  // namespace

TEST_CASE("gemv rules: the square powers of two keep their measured launches", "[cpu][gemv]") {
    const GemvMachine h200;
    for (int elem : {4, 8})
        for (Op op : {Op::N, Op::T})
            for (int n : {1024, 2048, 4096, 8192, 16384}) {
                const GemvLaunch l = wb::tuned_gemv_default_launch(shape(op, n, n, elem), h200);
                const GemvLaunch o = old_default(op, n, elem);
                INFO((op == Op::N ? "N" : "T") << " n=" << n << " size " << elem << ": " << l.str() << " vs " << o.str());
                CHECK(l == o);
            }
}

TEST_CASE("gemv rules: load kinds follow the alignment of A, lda and x", "[cpu][gemv]") {
    using wb::tuned_gemv_loads;
    CHECK(tuned_gemv_loads(shape(Op::N, 4096, 4096, 4)) == GemvLoads::kAligned16);
    CHECK(tuned_gemv_loads(shape(Op::N, 4096, 4096, 4, 4097)) == GemvLoads::kElement);
    CHECK(tuned_gemv_loads(shape(Op::N, 4096, 4096, 8, 4098)) == GemvLoads::kAligned16);  // 2 doubles per vector
    CHECK(tuned_gemv_loads(shape(Op::N, 4096, 4096, 8, 4096, 8)) == GemvLoads::kElement);
    CHECK(tuned_gemv_loads(shape(Op::N, 4000, 4000, 4, 4160, 4)) == GemvLoads::kElement);  // offset: every column
    CHECK(tuned_gemv_loads(shape(Op::N, 4096, 4096, 4, 4096, 0, 4)) == GemvLoads::kAligned16);  // N: x by element
    CHECK(tuned_gemv_loads(shape(Op::T, 4096, 4096, 4, 4096, 0, 4)) == GemvLoads::kShifted16);  // T: x by vector
    CHECK(tuned_gemv_loads(shape(Op::N, 7, 100, 4, 7)) == GemvLoads::kElement);   // m < 2W
    CHECK(tuned_gemv_loads(shape(Op::N, 8, 100, 4, 8)) == GemvLoads::kAligned16);
    CHECK(tuned_gemv_loads(shape(Op::N, 8, 100, 4, 9)) == GemvLoads::kElement);
    CHECK(tuned_gemv_loads(shape(Op::T, 3, 100, 4, 3)) == GemvLoads::kShifted16);  // T stays inside columns
}

TEST_CASE("gemv rules: every default launch is legal", "[cpu][gemv]") {
    const GemvMachine h200;
    GemvMachine small = h200;
    small.sm_count = 16;
    for (const GemvMachine& mc : {h200, small})
        for (int elem : {4, 8})
            for (Op op : {Op::N, Op::T}) {
                for (int m : {1, 2, 3, 7, 8, 17, 31, 33, 64, 65, 100, 129, 1000, 4097, 100000})
                    for (int n : {1, 2, 3, 7, 17, 64, 1000, 4097, 100000})
                        for (int pad : {0, 1}) {
                            const GemvShape s = shape(op, m, n, elem, m + pad, pad ? elem : 0);
                            const GemvLaunch l = wb::tuned_gemv_default_launch(s, mc);
                            INFO((op == Op::N ? "N" : "T") << " m=" << m << " n=" << n << " lda=" << s.lda << " size "
                                                           << elem << " SMs " << mc.sm_count << ": " << l.str());
                            CHECK(legal(s, l));
                        }
                for (const GemvShape& s : shape_set(elem)) CHECK(legal(s, wb::tuned_gemv_default_launch(s, mc)));
            }
}

TEST_CASE("gemv rules: large shapes keep Little's law in flight and every SM busy", "[cpu][gemv]") {
    const GemvMachine mc;
    const double needed = mc.bandwidth_gbs * mc.latency_ns;  // bytes the device needs outstanding
    CHECK(needed / mc.sm_count == Approx(25454.5).epsilon(0.01));
    for (int elem : {4, 8})
        for (const GemvShape& s : shape_set(elem)) {
            const GemvLaunch l = wb::tuned_gemv_default_launch(s, mc);
            const long long tiles = wb::tuned_gemv_tiles(s, l);
            const long long blocks = tiles * l.Y;
            const int threads = l.block_x * l.block_y;
            const long long resident = std::min<long long>(blocks, 1LL * mc.sm_count * (mc.max_threads_per_sm / threads));
            const double in_flight = static_cast<double>(resident) * wb::tuned_gemv_block_bytes_in_flight(s, l);
            INFO((s.op == Op::N ? "N" : "T") << " m=" << s.m << " n=" << s.n << " lda=" << s.lda << " size " << elem
                                             << ": " << l.str() << ", " << tiles << " tiles x Y " << l.Y << ", "
                                             << in_flight / 1e6 << " MB in flight");
            CHECK(in_flight >= needed);
            // Every SM has a block where the reduction is long (rule 3), give or take the cap
            // of rule 4 (8 partials per chain of the second pass: 128 blocks for one tile of 16).
            const long long reduction = s.op == Op::N ? s.n : s.m;
            if (reduction >= 100000) CHECK(blocks >= mc.sm_count * 95 / 100);
        }
}

TEST_CASE("gemv rules: splits only where the output is short, within their limits", "[cpu][gemv]") {
    const GemvMachine mc;
    // Skinny: one tile row; the split fills the SMs (one wave), keeps two batches per thread row
    // and at most 8 partials per chain of the second pass.
    for (int elem : {4, 8}) {
        const GemvLaunch n_wide = wb::tuned_gemv_default_launch(shape(Op::N, 32, 200000, elem), mc);
        CHECK(wb::tuned_gemv_tiles(shape(Op::N, 32, 200000, elem), n_wide) == 1);
        CHECK(n_wide.Y >= mc.sm_count * 95 / 100);  // double: 128, the cap of rule 4 for 16 vectors per tile
        CHECK(200000 / (n_wide.Y * n_wide.block_y) >= n_wide.ept);
        const GemvLaunch t_tall = wb::tuned_gemv_default_launch(shape(Op::T, 200000, 32, elem), mc);
        CHECK(t_tall.block_x == 32);
        CHECK(t_tall.nb == 8);
        CHECK(wb::tuned_gemv_tiles(shape(Op::T, 200000, 32, elem), t_tall) * t_tall.Y >= mc.sm_count);
        // Long outputs never split.
        CHECK(wb::tuned_gemv_default_launch(shape(Op::N, 1000000, 64, elem), mc).Y == 1);
        CHECK(wb::tuned_gemv_default_launch(shape(Op::T, 64, 1000000, elem), mc).Y == 1);
    }
    // Tall N: thread rows cut so each keeps two batches of U = 8 columns (32 / 2 rows: 16 each).
    const GemvLaunch tall = wb::tuned_gemv_default_launch(shape(Op::N, 1000000, 32, 4), mc);
    CHECK(tall.block_y == 2);
    CHECK(tall.block_x == 128);
    // Wide T with short columns: L lanes per column cover m (m = 32 floats: 8 vectors), in the
    // one-tile launch (rule 8 then loops with the same lanes).
    const GemvLaunch wide = wb::tuned_gemv_one_tile_launch(shape(Op::T, 32, 1000000, 4), mc);
    CHECK(wide.block_x == 8);
    CHECK(wide.block_x * wide.block_y == 256);
    CHECK(wb::tuned_gemv_short_t(Op::T, wide));
    // An explicit Y is kept.
    GemvLaunch given = tall;
    given.Y = 3;
    CHECK(wb::tuned_gemv_split(shape(Op::N, 1000000, 32, 4), given, mc) == 3);
}

TEST_CASE("gemv rules: N with columns not 16-byte aligned reads elements, a warp per column", "[cpu][gemv]") {
    const GemvMachine mc;
    // Rule 1: a warp's load covers 32 consecutive rows of one column (block_x >= 32); rule 2:
    // two batches of U = 64 / size(T) element loads, 128 bytes per thread; the tiles (32 rows)
    // are as many as the aligned float path's (8 x 4 rows), so the split rule sees the same.
    for (int elem : {4, 8})
        for (const GemvShape& s : {shape(Op::N, 5000, 5000, elem, 5001), shape(Op::N, 4000, 4000, elem, 4160, 4),
                                   shape(Op::N, 12345, 12345, elem), shape(Op::N, 579, 57900, elem, 579, 4),
                                   shape(Op::N, 18320, 1832, elem, 18321), shape(Op::N, 58, 580000, elem, 58, 4)}) {
            const GemvLaunch l = wb::tuned_gemv_default_launch(s, mc);
            INFO("m=" << s.m << " n=" << s.n << " lda=" << s.lda << " size " << elem << ": " << l.str());
            REQUIRE(wb::tuned_gemv_loads(s) == GemvLoads::kElement);
            CHECK(l.block_x >= 32);
            CHECK(l.ept == 64 / elem);
            CHECK(wb::tuned_gemv_block_bytes_in_flight(s, l) == Approx(l.block_x * l.block_y * 128.0));
            CHECK(l.block_x * l.block_y >= 256);
        }
    // The same square, aligned and not: the same tiles (157 of 32 rows, float), no split.
    const GemvLaunch odd = wb::tuned_gemv_default_launch(shape(Op::N, 5000, 5000, 4, 5001), mc);
    const GemvLaunch even = wb::tuned_gemv_default_launch(shape(Op::N, 5000, 5000, 4, 5000), mc);
    CHECK(wb::tuned_gemv_tiles(shape(Op::N, 5000, 5000, 4, 5001), odd) ==
          wb::tuned_gemv_tiles(shape(Op::N, 5000, 5000, 4, 5000), even));
    CHECK(odd.Y == 1);
    CHECK(odd.block_x * odd.block_y == 256);  // 157 tiles: two blocks per SM hold them all (rule 7)
}

TEST_CASE("gemv rules: a long N output runs in one wave where a tile width gets it there", "[cpu][gemv]") {
    // Rule 7: 512 threads per SM (128 registers each); tiles widen up to 64 threads across until
    // every block is resident at once. Shapes of the first run's wave-tail misses (287 tiles on
    // 264 slots, 157 on 132) and the squares that are not powers of two.
    const GemvMachine mc;
    for (int elem : {4, 8})
        for (const GemvShape& s : {shape(Op::N, 18320, 1832, elem), shape(Op::N, 5000, 5000, elem),
                                   shape(Op::N, 6000, 6000, elem), shape(Op::N, 10000, 10000, elem),
                                   shape(Op::N, 11584, 2896, elem), shape(Op::N, 12345, 12345, elem),
                                   shape(Op::N, 3000, 3000, elem)}) {
            const GemvLaunch l = wb::tuned_gemv_default_launch(s, mc);
            const long long tiles = wb::tuned_gemv_tiles(s, l);
            const int threads = l.block_x * l.block_y;
            INFO("m=" << s.m << " n=" << s.n << " size " << elem << ": " << l.str() << ", " << tiles << " tiles");
            CHECK(l.Y == 1);
            CHECK(tiles <= 1LL * mc.sm_count * (512 / threads));
            CHECK(l.block_x <= 64);
        }
    // Where no width gets there (many waves), the tiles stay narrow: 183000 x 183 float keeps
    // block_x 32 (1430 tiles, 5.4 waves), as before the rule; 57900 x 579 double too (905).
    CHECK(wb::tuned_gemv_default_launch(shape(Op::N, 183000, 183, 4), mc).block_x == 32);
    CHECK(wb::tuned_gemv_default_launch(shape(Op::N, 57900, 579, 8), mc).block_x == 32);
}

TEST_CASE("gemv rules: split N launches of few tiles", "[cpu][gemv]") {
    // Rule 5: Y = ceil(SMs x resident / tiles) where that stays in one wave of resident blocks,
    // otherwise rounded down; a 512-thread tile widens while that gives more blocks. 579 x 57900
    // (element loads): 19 tiles of 32 rows x 7 = 133 blocks would leave one block in a second wave
    // (0.81x cuBLAS on an H100) -> 10 tiles of 64 rows x 13 = 130 blocks (1.11x, same run:
    // docs/results/h100/gemv-launches-a906840.txt).
    const GemvMachine mc;
    for (int elem : {4, 8}) {
        const GemvShape s = shape(Op::N, 579, 57900, elem, 579);
        const GemvLaunch l = wb::tuned_gemv_default_launch(s, mc);
        INFO("579 x 57900 size " << elem << ": " << l.str());
        CHECK(l.block_x * l.block_y == 512);
        CHECK(l.block_x == 64);
        CHECK(l.Y == 13);
        CHECK(wb::tuned_gemv_tiles(s, l) * l.Y == 130);
    }
    // Never more blocks than resident slots, over every split N and T launch of the shape set
    // and a sweep of short outputs (m = 1 ... 4000 rows of element and aligned loads, n = 10^5).
    for (int elem : {4, 8}) {
        std::vector<GemvShape> v = shape_set(elem);
        for (int m = 1; m <= 4000; m = m * 3 / 2 + 1) {
            v.push_back(shape(Op::N, m, 100000, elem, m));
            v.push_back(shape(Op::N, m, 100000, elem));
        }
        for (const GemvShape& s : v) {
            const GemvLaunch l = wb::tuned_gemv_one_tile_launch(s, mc);
            if (l.Y <= 1 || s.op != Op::N) continue;
            const int threads = l.block_x * l.block_y;
            const long long resident = std::min(mc.max_threads_per_sm / threads, mc.regs_per_sm / (128 * threads));
            INFO("N " << s.m << " x " << s.n << " lda " << s.lda << " size " << elem << ": " << l.str());
            CHECK(wb::tuned_gemv_tiles(s, l) * l.Y <= mc.sm_count * std::max<long long>(1, resident));
        }
    }
    // Element loads whose split the finish caps below one block per SM take 512-thread blocks:
    // float 58 x 580000 (2 tiles of 32 rows): 2 x 64 = 128 blocks of 256 threads before, now
    // 2 x 66 = 132 of 512 (64 KB in flight each). 183 x 183000 float keeps 256 threads (6 x 44).
    const GemvLaunch thin = wb::tuned_gemv_default_launch(shape(Op::N, 58, 580000, 4, 58), mc);
    CHECK(thin.block_x * thin.block_y == 512);
    CHECK(wb::tuned_gemv_tiles(shape(Op::N, 58, 580000, 4, 58), thin) * thin.Y == mc.sm_count);
    const GemvLaunch wider = wb::tuned_gemv_default_launch(shape(Op::N, 183, 183000, 4, 183), mc);
    CHECK(wider.block_x * wider.block_y == 256);
    CHECK(wider.Y == 44);
    // Aligned shapes keep their launches (double 58 x 580000: 2 tiles x 66 of 256 threads).
    const GemvLaunch al = wb::tuned_gemv_default_launch(shape(Op::N, 58, 580000, 8), mc);
    CHECK(al.block_x * al.block_y == 256);
    CHECK(al.Y == 66);
}

TEST_CASE("gemv rules: rule 8 loops T only at its classes and leaves every other launch as it was",
          "[cpu][gemv]") {
    const GemvMachine mc;
    // The shapes rule 8 is for: wide T of a few hundred rows (odd lda = m; lanes a whole warp)
    // whose one-tile launch is not the short-column kernel.
    for (auto [m, n, elem] : {std::tuple{579, 57900, 4}, {579, 57900, 8}, {183, 183000, 8}}) {
        const GemvShape s = shape(Op::T, m, n, elem);
        CHECK(wb::tuned_gemv_t_loops(s, mc));
        const GemvLaunch l = wb::tuned_gemv_default_launch(s, mc);
        CHECK(l.loop == 1);
        CHECK(l.block_x == 32);
        CHECK(l.block_x * l.block_y == 256);
        CHECK(l.nb == 4);
    }
    // Short columns keep the one-tile launch of the short-column kernel (L lanes per column).
    for (auto [m, n, elem] : {std::tuple{16, 1000000, 8}, {32, 200000, 8}, {16, 1000000, 4}, {32, 200000, 4},
                              {64, 1000000, 4}, {58, 580000, 4}, {183, 183000, 4}}) {
        const GemvShape s = shape(Op::T, m, n, elem);
        const GemvLaunch l = wb::tuned_gemv_default_launch(s, mc);
        INFO(m << " x " << n << " elem " << elem << ": " << l.str());
        CHECK(!wb::tuned_gemv_t_loops(s, mc));
        CHECK(l.loop == 0);
        CHECK(wb::tuned_gemv_short_t(Op::T, l));
        CHECK(l == wb::tuned_gemv_one_tile_launch(s, mc));
    }
    // Every other shape of the set (both precisions, N and T) keeps the launch it had before
    // rule 8 (the third run's), field by field; N never loops.
    int kept = 0;
    for (int elem : {4, 8})
        for (const GemvShape& s : shape_set(elem)) {
            const bool wide = s.m == 579 && s.n == 57900, mid = s.m == 183 && s.n == 183000 && elem == 8;
            const bool target = s.op == Op::T && (wide || mid);
            const GemvLaunch d = wb::tuned_gemv_default_launch(s, mc);
            INFO("op " << wb::op_char(s.op) << " " << s.m << " x " << s.n << " lda " << s.lda << " elem " << elem
                       << ": " << d.str());
            CHECK(d.loop == (target ? 1 : 0));
            if (!target) {
                CHECK(d == wb::tuned_gemv_one_tile_launch(s, mc));
                ++kept;
            }
        }
    CHECK(kept > 50);
    // Float 1832 x 18320 (89% fill) keeps one tile; double 58 and 64 rows (a whole warp of lanes,
    // one vector each per column) too.
    CHECK(!wb::tuned_gemv_t_loops(shape(Op::T, 1832, 18320, 4), mc));
    CHECK(!wb::tuned_gemv_t_loops(shape(Op::T, 58, 580000, 8), mc));
    CHECK(!wb::tuned_gemv_t_loops(shape(Op::T, 64, 1000000, 8), mc));
    // Small n never loops (fewer than two tiles per resident warp).
    CHECK(!wb::tuned_gemv_t_loops(shape(Op::T, 579, 5000, 8), mc));
}

TEST_CASE("gemv split reductions and the tuned N column stride stay within 32-bit indices", "[cpu][gemv]") {
    constexpr long long kIntMax = 2147483647LL;
    constexpr int kMax = 2147418111;  // launch_checks::kMaxIndexedExtent: the largest m, n validate_gemv takes
    // Where nothing overflows, the split is the launchers' formula: whole steps, then the Y that leaves.
    for (auto [k, y, step] : {std::tuple{1000, 3, 32}, {4096, 64, 128}, {1, 1, 32}, {1 << 30, 132, 1024},
                              {kMax, 8, 32}, {kMax, 1, 2048}}) {
        const wb::GemvSplit sp = wb::gemv_split_reduction(k, y, step);
        const long long kpb = ((k + y - 1LL) / y + step - 1) / step * step;
        INFO("k " << k << " Y " << y << " step " << step);
        CHECK(sp.k_per_block == kpb);
        CHECK(sp.Y == (k + kpb - 1) / kpb);
    }
    // k near the limit: the last block's end, Y x k_per_block, would pass INT_MAX (the default T
    // launch of float kMax x 8 takes Y = 132 steps of 1024 rows; explicit Y of thousands); Y is
    // lowered just enough, and the slices still cover k in whole steps.
    for (auto [k, y, step] : {std::tuple{kMax, 132, 1024}, {kMax, 8000, 32}, {kMax, 65535, 2048}, {kMax, 4000, 2048},
                              {kMax - 100000, 30000, 1024}}) {
        const long long kpb0 = ((k + y - 1LL) / y + step - 1) / step * step;
        INFO("k " << k << " Y " << y << " step " << step);
        const wb::GemvSplit sp = wb::gemv_split_reduction(k, y, step);
        CHECK(static_cast<long long>(sp.Y) * sp.k_per_block <= kIntMax);
        CHECK(static_cast<long long>(sp.Y) * sp.k_per_block >= k);
        CHECK(static_cast<long long>(sp.Y - 1) * sp.k_per_block < k);
        CHECK(sp.k_per_block % step == 0);
        CHECK(sp.Y <= y);
        if (y == 132) {
            CHECK((k + kpb0 - 1) / kpb0 * kpb0 > kIntMax);  // the case that needed it
            CHECK(sp.Y == 127);                              // the largest Y that fits
        }
    }
    // Tuned N: at most n / Q blocks (at least 1), and Q Y + n - 1 within an int.
    CHECK(wb::tuned_gemv_n_max_split(1000, 8) == 125);
    CHECK(wb::tuned_gemv_n_max_split(3, 8) == 1);
    CHECK(wb::tuned_gemv_n_max_split(1 << 30, 1) == (1 << 30));
    for (int q : {1, 8, 64, 128})
        for (int n : {1 << 30, (1 << 30) + 1, 2000000000, kMax}) {
            const int y = wb::tuned_gemv_n_max_split(n, q);
            INFO("n " << n << " Q " << q);
            CHECK(y >= 512);
            CHECK(static_cast<long long>(q) * y + n - 1 <= kIntMax);
        }
}
