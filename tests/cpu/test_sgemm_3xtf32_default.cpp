// The 3xTF32 SGEMM's default launch (tuned::sgemm_3xtf32_default, a host function: no GPU) and its
// arguments' validation before any GPU call. The launch: of each tile with 1 ... 64 slices of k,
// the fewest waves of blocks times a block's padded work at the tile's rate (per SM clock), a
// split paying its partials at a share of the DRAM bandwidth. Checked on the classes that decide
// it: large squares (tile 0, whole), a C only a few tiles tall (tile 1, less padding of m), a C of
// a few tiles with long k (split until the resident blocks are filled), and k too short to split;
// and on the machine: the h200 preset's, the one a build without a GPU predicts for, and a
// slower memory, which may only split less.
#include "catch.hpp"
#include "step_errors.hpp"

#include "device_profile.hpp"

#include "tuned/gemm_default_rule.hpp"
#include "tuned/gemm_splitk.hpp"
#include "tuned/sgemm_3xtf32.hpp"

#include <stdexcept>
#include <string>

namespace {

using wb::tuned::sgemm_3xtf32_default;

const wb::tuned::tc::Machine kH200 = wb::tuned::tc::machine(wb::device_preset("h200"));

}  // namespace

TEST_CASE("3xTF32 default launch: the tile and split by waves of padded work", "[cpu][gemm][3xtf32]") {
    for (int s : {2048, 4096, 8192}) {
        const auto d = sgemm_3xtf32_default(s, s, s, kH200);
        INFO("square " << s);
        CHECK(d.tile == 0);
        CHECK(d.split == 1);
    }
    // m = 300: tile 0 pads to 384 rows (1.28x), tile 1 to 320 (1.07x); measured 1.10-1.15x
    // against tile 0's 0.95-0.98x of the peer (H200).
    CHECK(sgemm_3xtf32_default(300, 20000, 3000, kH200).tile == 1);
    // Four tiles of C with k = 65536: split until the 264 resident blocks are about full.
    const auto longk = sgemm_3xtf32_default(256, 256, 65536, kH200);
    CHECK(longk.split >= 16);
    CHECK(longk.split <= 64);
    // A large C with a very long k: any split's partials would pass the 512 MiB workspace cap.
    CHECK(static_cast<double>(sgemm_3xtf32_default(4096, 4096, 1 << 20, kH200).split) * 4096 * 4096 * 4 <=
          wb::tuned::kMaxWorkspaceBytes);
    // k of one tile: nothing to split.
    CHECK(sgemm_3xtf32_default(64, 64, 32, kH200).split == 1);
    // Every pick is a launch the kernel runs as asked: its slices are the split.
    for (int m : {1, 17, 300, 1000, 4097})
        for (int n : {1, 33, 1000, 20000})
            for (int k : {1, 31, 1000, 65536}) {
                const auto d = sgemm_3xtf32_default(m, n, k, kH200);
                INFO(m << " x " << n << " x " << k << ": tile " << d.tile << " split " << d.split);
                CHECK(d.tile >= 0);
                CHECK(d.tile < wb::tuned::kSgemm3xTf32TileCount);
                CHECK(d.split >= 1);
                const int bk = wb::tuned::kSgemm3xTf32Tiles[d.tile].tile_k;
                CHECK(wb::tuned::splitk::slice_k(k, d.split, bk).second == d.split);
            }
}

TEST_CASE("3xTF32 default launch: read off the machine", "[cpu][gemm][3xtf32]") {
    // The preset is the H200 the launch was measured on: 132 SMs, 1980 MHz, 4.9 TB/s.
    CHECK(kH200.sms == 132);
    CHECK(kH200.sm_hz == Approx(1.98e9).epsilon(0.01));
    CHECK(kH200.dram_bytes_per_second == Approx(4.9e12).epsilon(0.03));
    // An eighth of the bandwidth makes the partials' round trip dearer: never more slices, and fewer
    // where the round trip is a large share (a C of 16 tiles, k = 16384).
    wb::tuned::tc::Machine slow = kH200;
    slow.dram_bytes_per_second /= 8;
    int fewer = 0;
    for (int s : {256, 512, 1024})
        for (int k : {4096, 16384, 65536}) {
            const auto fast_pick = sgemm_3xtf32_default(s, s, k, kH200), slow_pick = sgemm_3xtf32_default(s, s, k, slow);
            INFO(s << " x " << s << " x " << k);
            CHECK(slow_pick.split <= fast_pick.split);
            fewer += slow_pick.split < fast_pick.split;
        }
    CHECK(fewer > 0);
}

TEST_CASE("3xTF32 sgemm: bad arguments rejected by name before any GPU call", "[cpu][gemm][3xtf32]") {
    using Catch::Matchers::Contains;
    float* const fake = reinterpret_cast<float*>(0x1000);  // never dereferenced
    wb::GemmArgs<float> a;
    a.m = 8;
    a.n = 4;
    a.k = 6;
    a.A = a.B = fake;
    a.C = fake;
    a.lda = 8;
    a.ldb = 6;
    a.ldc = 8;
    CHECK_THROWS_WITH(wb::tuned::sgemm_3xtf32(a, nullptr, 0, 2), Contains("tile (2)"));
    CHECK_THROWS_WITH(wb::tuned::sgemm_3xtf32(a, nullptr, 0, -2), Contains("tile (-2)"));
    const auto step = wb::tuned::sgemm_3xtf32_step();
    wb::GemmLaunch l;
    l.split_k = 2000;
    CHECK_THAT(wb_test::error_of(step, a, l), Contains("split_k (2000)"));
    l = {};
    l.tile_m = 96;
    l.tile_n = 64;
    CHECK_THAT(wb_test::error_of(step, a, l), Contains("96 x 64"));
    a.ldc = 7;
    CHECK_THAT(wb_test::error_of(step, a), Contains("ldc (7)"));
    a.ldc = 8;
    a.m = -1;
    CHECK_THAT(wb_test::error_of(step, a), Contains("m (-1)"));
}
