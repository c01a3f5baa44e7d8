// The tuned GEMV's default launch is chapter 6's derivation (kernels/gemv_rules.hpp:
// tuned_gemv_default, derive::derive_gemv), checked without a GPU: the step's default is the
// derived launch, the derivation's kernels (short columns, the looping kernel, 512-thread N
// blocks, the split) respond to the machine as their equations say, and on chapter 6's held-out
// shapes it names chapter 5's former launch or one the H200 run measured faster.
#include "catch.hpp"

#include "derive/derivation.hpp"
#include "device_profile.hpp"
#include "gemv.hpp"
#include "gemv_rules.hpp"
#include "stages.hpp"
#include "step.hpp"

#include <algorithm>
#include <random>
#include <string>

namespace {

using wb::DeviceProfile;
using wb::GemvLaunch;
using wb::GemvShape;
using wb::Op;

GemvShape shape(Op op, int m, int n, int elem, int lda = 0) {
    return GemvShape{op, m, n, lda > 0 ? lda : std::max(1, m), elem, 0, 0};
}

DeviceProfile half_sms(DeviceProfile d) {
    d.sm_count /= 2;
    return d;
}

/// Half the card: half the SMs and half the bandwidth, so each SM's share (Little's law per SM,
/// hence C and U) stays the same and only the count of SMs changes.
DeviceProfile half_card(DeviceProfile d) {
    d.sm_count /= 2;
    d.bandwidth_gbs /= 2;
    return d;
}

DeviceProfile half_smem(DeviceProfile d) {
    d.smem_per_sm_bytes /= 2;
    d.smem_per_block_bytes = d.smem_per_sm_bytes - 1024;
    return d;
}

template <class T>
GemvLaunch step_default(const GemvShape& s) {
    wb::GemvArgs<T> a;
    a.op = s.op;
    a.m = s.m;
    a.n = s.n;
    a.lda = s.lda;
    return wb::step<wb::GemvArgs<T>>(wb::chapter_of(wb::Stage::kTuned)).default_launch(a);
}

}  // namespace

TEST_CASE("gemv derived: chapter 5's default is the derived launch", "[cpu][derive][gemv]") {
    // Without a GPU the default derives for the h200 preset (derive::default_profile).
    const DeviceProfile h200 = wb::device_preset("h200");
    std::mt19937_64 rng(45);
    std::uniform_int_distribution<int> log2(0, 20);
    for (int i = 0; i < 400; ++i) {
        const Op op = i % 2 ? Op::T : Op::N;
        const int m = std::max(1, static_cast<int>((1LL << log2(rng)) + rng() % 97));
        const int n = std::max(1, static_cast<int>((1LL << log2(rng)) + rng() % 97));
        const int elem = i % 4 < 2 ? 4 : 8;
        const GemvShape s = shape(op, m, n, elem, m + i % 3);  // aligned columns, or not
        INFO((op == Op::T ? "T " : "N ") << m << " x " << n << " lda " << s.lda << " elem " << elem);
        const GemvLaunch derived = wb::gemv_derived_launch(h200, s);
        INFO("derived " << derived.str());
        CHECK(derived == (elem == 4 ? step_default<float>(s) : step_default<double>(s)));
        CHECK(derived.Y >= 1);
    }
    // m or n of 0: a valid no-op, still a launch the step takes.
    CHECK(step_default<float>(shape(Op::N, 0, 5, 4)).block_x > 0);
    CHECK(step_default<double>(shape(Op::T, 5, 0, 8)).block_x > 0);
}

TEST_CASE("gemv derived: the held-out shapes keep chapter 5's former launch or take a measured-faster one",
          "[cpu][derive][gemv]") {
    // chapter 6's --shapes set (chapters/runner/derived_shapes.cpp); the measurements are the H200
    // run in docs/results/h200/ch06-shapes-gemv.txt (medians, L2 flushed).
    const DeviceProfile h200 = wb::device_preset("h200");
    struct Case { bool t; int m, n, lda; };
    const Case cases[] = {{false, 3000, 3000, 3000},   {true, 3000, 3000, 3000},   {false, 100000, 96, 100000},
                          {true, 100000, 96, 100000},  {false, 96, 100000, 96},    {true, 96, 100000, 96},
                          {false, 5000, 5000, 5001},   {true, 5000, 5000, 5001},   {false, 4224, 4096, 4224},
                          {false, 4256, 4096, 4256},   {true, 8192, 1584, 8192},   {true, 8192, 1588, 8192},
                          {false, 1000, 30000, 1003},  {true, 30000, 1000, 30000}};
    int same = 0, faster = 0;
    for (int elem : {4, 8})
        for (const Case& c : cases) {
            const GemvShape s = shape(c.t ? Op::T : Op::N, c.m, c.n, elem, c.lda);
            const GemvLaunch now = wb::gemv_derived_launch(h200, s), before = wb::tuned_gemv_default_launch(s);
            INFO((c.t ? "T " : "N ") << c.m << " x " << c.n << " lda " << c.lda << " elem " << elem << ": derived "
                                     << now.str() << ", former default " << before.str());
            if (now == before) {
                ++same;
                continue;
            }
            ++faster;
            // N 96 x 100000: the derivation's launch ran 0.0191 ms (float) and 0.0280 ms (double)
            // against the former default's 0.0204 and 0.0289.
            const bool n96 = !c.t && c.m == 96 && c.n == 100000;
            // T 96 x 100000 (aligned, 24 and 48 vectors a column): a warp per column, 8 columns a
            // block (one round trip for the short kernel's two or three passes); the sweep's best
            // in both precisions.
            const bool t96 = c.t && c.m == 96 && c.n == 100000;
            // N 100000 x 96: after the cut of Q (96 columns), tiles widened into one wave of
            // 256-thread blocks: 128 x 2 float (196 tiles), 256 x 1 double (196 tiles) on 264
            // slots, where the former 64 x 4 took 391 and 782 tiles; the sweep's best.
            const bool tall96 = !c.t && c.m == 100000 && c.n == 96;
            // N with an odd lda (element loads): tiles of at least 16 sectors a column (128 rows of
            // float, 64 of double) where the former rule took a warp's 32. The sweeps' best there
            // were this wide: 5000^2 lda 5001 float bx=128 by=4 Y=3 (0.0364 ms, the former
            // default 0.0401) or bx=64 by=4 Y=3 (0.0365), 1000 x 30000 lda 1003 float bx=128 by=2
            // Y=33 (0.0423 against 0.0649), double bx=128 by=4 Y=16 (0.0735 against 0.1116).
            const bool odd_n = !c.t && c.lda % 2 == 1;
            REQUIRE((n96 || t96 || tall96 || odd_n));
            if (n96) CHECK(now == (elem == 4 ? GemvLaunch{8, 64, 4, 64, 44, 8} : GemvLaunch{8, 64, 4, 64, 22, 8}));
            if (t96) CHECK(now == GemvLaunch{32, 1, 8, 1, 1, 4});
            if (tall96) CHECK(now == (elem == 4 ? GemvLaunch{128, 2, 4, 2, 1, 8} : GemvLaunch{256, 1, 4, 1, 1, 8}));
            if (odd_n) CHECK(now.block_x >= 16 * 32 / elem);
        }
    CHECK(same == 18);
    CHECK(faster == 10);
}

TEST_CASE("gemv derived: short columns take lanes that fit them", "[cpu][derive][gemv][monotone]") {
    const DeviceProfile h200 = wb::device_preset("h200");
    // The short-column kernel takes a column in one pass of L <= 16 lanes (v <= 16 vectors); past
    // that its passes are round trips of their own, and aligned columns take a warp per column
    // (one round trip per two steps). Columns off a 16-byte boundary keep the short kernel up to
    // its capacity, 4 vectors per lane of 16 (v <= 64). Longer columns take whole warps.
    int short_aligned = 0, warp_aligned = 0, short_shifted = 0;
    for (int elem : {4, 8})
        for (int m : {1, 5, 16, 33, 62, 64, 96, 100, 127, 128, 183, 256, 260}) {
            const GemvShape s = shape(Op::T, m, 50000, elem);
            const long long v = (m * elem + 15) / 16;
            const bool aligned = wb::tuned_gemv_loads(s) == wb::GemvLoads::kAligned16;
            const GemvLaunch l = wb::gemv_derived_launch(h200, s);
            INFO("T " << m << " x 50000 elem " << elem << (aligned ? " aligned: " : " shifted: ") << l.str());
            if (v <= (aligned ? 16 : 64)) {
                CHECK(l.block_x < 32);
                CHECK(l.block_x >= std::min<long long>(v, 16));  // covers the column, up to 16 lanes
                CHECK(l.block_x / 2 < std::max<long long>(2, v));  // a power of two, no wider than needed
                CHECK(l.block_x * l.block_y == 256);
                ++(aligned ? short_aligned : short_shifted);
            } else {
                CHECK(l.block_x == 32);
                if (l.loop == 0) CHECK(32LL * l.block_y <= std::max(32LL, v));  // a step per warp, at least one warp
                if (aligned && v < 64) {
                    CHECK(l.block_y == 1);  // a warp per column: its steps in one or two round trips
                    CHECK(l.nb == 8);       // a one-warp block spreads its start and reduction over 8 columns
                    ++warp_aligned;
                }
            }
        }
    CHECK(short_aligned == 3);   // float 16, 64 rows (4, 16 vectors); double 16 (8)
    CHECK(warp_aligned == 7);    // float 96, 100, 128 rows (24, 25, 32 vectors); double 62, 64, 96, 100 (31 ... 50)
    CHECK(short_shifted == 10);  // rows off a boundary: float 1, 5, 33, 62, 127, 183; double 1, 5, 33, 127
    // Neither the SMs nor the shared memory move the lanes: they follow the column alone.
    for (int m : {64, 96}) {
        const GemvShape s = shape(Op::T, m, 300000, 4);
        CHECK(wb::gemv_derived_launch(half_sms(h200), s).block_x == wb::gemv_derived_launch(h200, s).block_x);
        CHECK(wb::gemv_derived_launch(half_smem(h200), s) == wb::gemv_derived_launch(h200, s));
    }
}

TEST_CASE("gemv derived: after the cut of Q, tiles widen into one wave", "[cpu][derive][gemv][monotone]") {
    const DeviceProfile h200 = wb::device_preset("h200");
    // N 100000 x 96: 96 columns cap Q at 4 (two batches of U = 8 per thread row), the tile widens
    // to 64 across to keep 256 threads, which leaves 391 (float) or 782 (double) tiles on 264
    // slots: it widens on until one wave holds them.
    for (int elem : {4, 8}) {
        const GemvShape s = shape(Op::N, 100000, 96, elem);
        const GemvLaunch full = wb::gemv_derived_launch(h200, s);
        INFO("N 100000 x 96 elem " << elem << ": " << full.str());
        const long long slots = 132LL * 2;  // two 256-thread blocks per SM (128 registers each)
        CHECK(full.block_x * full.block_y == 256);
        CHECK(wb::tuned_gemv_tiles(s, full) <= slots);
        CHECK(wb::tuned_gemv_tiles(s, GemvLaunch{full.block_x / 2, 2 * full.block_y, 4, 2 * full.block_y, 1, 8}) > slots);
        CHECK(full.Y == 1);
        // Half the SMs, half the slots (132): float widens further (98 tiles of 256 x 4 rows fit);
        // double's widest tile still leaves 196 tiles, 1.5 waves, so it keeps the cut's 64 x 4
        // (782 tiles: many waves, the tail small), as a long output without the cut.
        const GemvLaunch half = wb::gemv_derived_launch(half_sms(h200), s);
        INFO("half the SMs: " << half.str());
        CHECK(half.block_x * half.block_y == 256);
        if (elem == 4) {
            CHECK(half.block_x == 256);
            CHECK(wb::tuned_gemv_tiles(s, half) <= slots / 2);
        } else {
            CHECK(half.block_x == 64);
            CHECK(wb::tuned_gemv_tiles(s, GemvLaunch{256, 1, 4, 1, 1, 8}) > slots / 2);
        }
        // Shared memory does not enter the rule.
        CHECK(wb::gemv_derived_launch(half_smem(h200), s) == full);
    }
    // Enough columns for Q = 8 thread rows: no cut, the tile stays a warp across (many waves).
    const GemvLaunch wide = wb::gemv_derived_launch(h200, shape(Op::N, 100000, 4096, 4));
    CHECK(wide.block_x == 32);
}

TEST_CASE("gemv derived: the looping kernel where blocks would turn over many times", "[cpu][derive][gemv][monotone]") {
    const DeviceProfile h200 = wb::device_preset("h200");
    // T 579 x 57900 float: one-tile blocks of 4 warps would take two steps, the second 13% full,
    // and 14475 tiles give every resident warp (24 per SM) more than two: the loop.
    const GemvLaunch wide = wb::gemv_derived_launch(h200, shape(Op::T, 579, 57900, 4));
    CHECK(wide.loop == 1);
    CHECK(wide == wb::tuned_gemv_default_launch(shape(Op::T, 579, 57900, 4)));  // the former rule 8's launch
    // Rule 5's count: tiles for two walks per resident warp. On half the card, fewer columns
    // suffice; a shape just below the full card's threshold loops on half of it.
    int n = 2000;
    while (wb::gemv_derived_launch(h200, shape(Op::T, 579, n, 4)).loop == 0) n += 2000;
    CHECK(wb::gemv_derived_launch(half_card(h200), shape(Op::T, 579, n - 2000, 4)).loop == 1);
    CHECK(wb::gemv_derived_launch(h200, shape(Op::T, 579, n - 2000, 4)).loop == 0);
    // Shared memory does not enter the rule (the kernel uses none for A).
    CHECK(wb::gemv_derived_launch(half_smem(h200), shape(Op::T, 579, 57900, 4)) == wide);
    // A full one-tile block (4096 rows: 8 warps, four steps each) never loops, however many tiles.
    CHECK(wb::gemv_derived_launch(h200, shape(Op::T, 4096, 1 << 20, 4)).loop == 0);
}

TEST_CASE("gemv derived: 512-thread N blocks and the split follow the SMs", "[cpu][derive][gemv][monotone]") {
    const DeviceProfile h200 = wb::device_preset("h200");
    // N 4224 rows float: 132 tiles of 32 rows, one per SM: blocks of every resident thread (512).
    const GemvLaunch one = wb::gemv_derived_launch(h200, shape(Op::N, 4224, 4096, 4));
    CHECK(one.block_x * one.block_y == 512);
    // 133 tiles do not fit one per SM: two 256-thread blocks per SM.
    const GemvLaunch two = wb::gemv_derived_launch(h200, shape(Op::N, 4256, 4096, 4));
    CHECK(two.block_x * two.block_y == 256);
    // Half the card: 132 tiles no longer fit one per SM.
    const GemvLaunch half = wb::gemv_derived_launch(half_card(h200), shape(Op::N, 4224, 4096, 4));
    CHECK(half.block_x * half.block_y == 256);
    // T's split fills the SMs with the blocks Little's law asks for: half the card, fewer per tile.
    const GemvLaunch t = wb::gemv_derived_launch(h200, shape(Op::T, 100000, 96, 4));
    CHECK(t.Y == 11);  // 24 tiles x 11 = 264 blocks: two per SM of 40 KB each, twice Little's law
    CHECK(wb::gemv_derived_launch(half_card(h200), shape(Op::T, 100000, 96, 4)).Y < t.Y);
    // Half the SMs of the same bandwidth: each SM's share of Little's law doubles, so C grows
    // (fewer, fatter tiles) and the split still fills the SMs.
    const GemvLaunch fat = wb::gemv_derived_launch(half_sms(h200), shape(Op::T, 100000, 96, 4));
    CHECK(fat.nb > t.nb);
    CHECK(wb::gemv_derived_launch(half_smem(h200), shape(Op::T, 100000, 96, 4)) == t);
    DeviceProfile slow = h200;
    slow.latency_ns /= 4;  // a quarter of Little's law: one block per SM is enough
    CHECK(wb::gemv_derived_launch(slow, shape(Op::T, 100000, 96, 4)).Y < t.Y);
}
