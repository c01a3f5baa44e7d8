// test_derive.cpp — chapter 6's launch rules (common/derive): on the `t10` preset they land on
// White's derived launches (dissertation §4.5.1 Eq. 4.24 for Mv, §4.5.2 Eq. 4.41 for MM, §5.1.5
// Eq. 5.19 for convolution, with Eq. 4.14's 12800 threads); on any preset, half the SMs, half the
// shared memory or half the bandwidth moves each derived value the way its rule says.
#include "catch.hpp"

#include "derive/derivation.hpp"
#include "model.hpp"

#include <stdexcept>

using namespace wb::derive;
using wb::DeviceProfile;
using wb::device_preset;

namespace {

const long long kWhiteSizes[] = {512, 1024, 2048, 4096, 8192, 16384};  // White Eq. 4.1

DeviceProfile half_sms(DeviceProfile d) {
    d.sm_count /= 2;
    return d;
}
DeviceProfile half_smem(DeviceProfile d) {
    d.smem_per_sm_bytes /= 2;
    d.smem_per_block_bytes = d.smem_per_sm_bytes - (d.smem_per_sm_bytes > 16384 ? 1024 : 0);
    return d;
}
DeviceProfile half_bandwidth(DeviceProfile d) {
    d.bandwidth_gbs /= 2;
    return d;
}

}  // namespace

TEST_CASE("derive: Little's law and Eq. 4.14 from the profile", "[derive]") {
    // h200: 4800 GB/s x 700 ns / 132 SMs = 25454.5 B per SM.
    CHECK(bytes_in_flight_per_sm(device_preset("h200")).value == 25455);
    // White Eq. 4.14: 400 cycles / 8 x 8 partitions x 32 threads = 12800 on the T10.
    CHECK(active_threads_needed(device_preset("t10"), 4).value == wb::model::kWhiteMinActiveThreadsT10);
    // Today: Little's law over the bytes each thread keeps in flight.
    CHECK(active_threads_needed(device_preset("h200"), 16).value == 210000);
    CHECK_THROWS_AS(active_threads_needed(device_preset("h200"), 0), std::invalid_argument);
}

TEST_CASE("derive: White's Mv on the T10 (Eq. 4.24)", "[derive][white]") {
    const auto t10 = device_preset("t10");
    for (long long n : kWhiteSizes) {
        INFO("n " << n);
        const Derivation d = derive_gemv(t10, true, n, n, 4);  // White's row-major Mv is BLAS's T
        const auto eq = wb::model::white_mv_launch_eq424(n);
        CHECK(d.value("dBlk.x") == eq.dblk_x);
        CHECK(d.value("dBlk.y") == eq.dblk_y);
        CHECK(d.value("dGrd.x") == eq.dgrd_x);
        CHECK(d.value("partitions") == 8);  // every partition touched (rule 4)
        for (const Derived& p : d.params) CHECK(!p.metric.empty());
    }
}

TEST_CASE("derive: White's MM on the T10 (Eq. 4.41)", "[derive][white]") {
    const auto t10 = device_preset("t10");
    for (long long n : kWhiteSizes) {
        INFO("n " << n);
        const Derivation d = derive_gemm(t10, n, n, n, 4);
        const auto eq = wb::model::white_mm_launch_eq441(n);
        CHECK(d.value("dBlk.x") == eq.dblk_x);
        CHECK(d.value("dBlk.y") == eq.dblk_y);
        CHECK(d.value("dGrd.x") == eq.dgrd_x);
        CHECK(d.value("dGrd.y") == eq.dgrd_y);
    }
}

TEST_CASE("derive: White's convolution on the T10 (Eq. 5.19)", "[derive][white]") {
    const auto t10 = device_preset("t10");
    for (long long n : {512LL, 4096LL})
        for (int fs : {3, 5, 17, 33, 63, 129, 513}) {
            INFO("n " << n << " FS " << fs);
            const Derivation d = derive_conv2d(t10, n, n, fs, 4);
            const auto eq = wb::model::white_conv_launch_eq519(n, fs);
            CHECK(d.value("dBlk.x") == eq.dblk_x);
            CHECK(d.value("dBlk.y") == eq.dblk_y);
            CHECK(d.value("dGrd.x") == eq.dgrd_x);
            CHECK(d.value("dGrd.y") == eq.dgrd_y);
        }
    // Eq. 5.19 worked: FS = 3 -> 16 x 4; FS = 63 -> 64 x 1.
    CHECK(derive_conv2d(t10, 4096, 4096, 3, 4).launch() == "dBlk.x=16 dBlk.y=4 dGrd.x=256 dGrd.y=1024");
    CHECK(derive_conv2d(t10, 4096, 4096, 63, 4).value("dBlk.x") == 64);
}

TEST_CASE("derive: fewer SMs or less shared memory on the T10 move White's Mv as his rules say",
          "[derive][white][monotone]") {
    const auto t10 = device_preset("t10");
    // Step 1: with half the SMs, 8192 active threads need taller blocks.
    CHECK(derive_gemv(half_sms(t10), true, 4096, 4096, 4).value("dBlk.y") >
          derive_gemv(t10, true, 4096, 4096, 4).value("dBlk.y"));
    // With half the shared memory, fewer 32 x 32 tiles are resident: taller blocks again.
    DeviceProfile small = t10;
    small.smem_per_sm_bytes = small.smem_per_block_bytes = 8192;
    CHECK(derive_gemv(small, true, 4096, 4096, 4).value("dBlk.y") >
          derive_gemv(t10, true, 4096, 4096, 4).value("dBlk.y"));
}

TEST_CASE("derive: fewer SMs on the T10 move White's MM and convolution as his Step 1 says",
          "[derive][white][monotone]") {
    const auto t10 = device_preset("t10");
    for (long long n : {1024LL, 4096LL, 16384LL}) {
        INFO("n " << n);
        // Convolution (Eq. 5.19's Step 1): 12800 active threads on half the SMs need taller blocks.
        for (int fs : {3, 17, 63}) {
            INFO("FS " << fs);
            const Derivation full = derive_conv2d(t10, n, n, fs, 4), half = derive_conv2d(half_sms(t10), n, n, fs, 4);
            CHECK(half.value("dBlk.x") == full.value("dBlk.x"));  // Step 2 reads the filter, not the SMs
            CHECK(half.value("dBlk.y") == 2 * full.value("dBlk.y"));
            // Half the shared memory: Eq. 5.7's (2 dBlk.x dBlk.y + dBlk.x) x 4 bytes still fit; nothing moves.
            CHECK(derive_conv2d(half_smem(t10), n, n, fs, 4).launch() == full.launch());
        }
        // MM: 15 SMs hold at most 7680 of its 32-register threads (16K registers each), short of
        // Eq. 4.14's 12800: White's procedure has no launch, and the rules say so and take the tiles.
        const Derivation mm = derive_gemm(half_sms(t10), n, n, n, 4);
        CHECK(mm.value("active threads") == 12800);
        CHECK(mm.value("tile_m") >= 32);
        CHECK_THROWS_AS(mm.value("dBlk.x"), std::invalid_argument);
        // Half the shared memory: n_ele x dBlk.x x 4 = 512 bytes still fit; White's launch stands.
        CHECK(derive_gemm(half_smem(t10), n, n, n, 4).launch() == derive_gemm(t10, n, n, n, 4).launch());
    }
}

TEST_CASE("derive: wave_split (KBLAS Y) fills one wave and never starts a second", "[derive][monotone]") {
    const auto h200 = device_preset("h200");
    // 19 tiles, 4 blocks per SM: 528 slots, Y = 27 (513 blocks).
    const Derived y = wave_split(h200, 19, 4, 1000);
    CHECK(y.value == 27);
    CHECK(19 * y.value <= 132 * 4);
    CHECK(19 * (y.value + 1) > 132 * 4);
    CHECK(y.metric.find("Y = 27") != std::string::npos);
    // Half the SMs: half the slots, a smaller Y.
    CHECK(wave_split(half_sms(h200), 19, 4, 1000).value == 13);
    CHECK(wave_split(h200, 19, 4, 5).value == 5);     // capped by the work per block
    CHECK(wave_split(h200, 1000, 4, 100).value == 1);  // the tiles fill the waves already
    CHECK_THROWS_AS(wave_split(h200, 0, 4, 8), std::invalid_argument);
    CHECK_THROWS_AS(wave_split(h200, 8, 0, 8), std::invalid_argument);
}

TEST_CASE("derive: loads per thread follow Little's law", "[derive][monotone]") {
    const auto h200 = device_preset("h200");
    // 512 threads x U x 16 B >= 25455 B: U = 4 (32 KB).
    CHECK(loads_per_thread(h200, 512, 16, 16).value == 4);
    CHECK(loads_per_thread(half_bandwidth(h200), 512, 16, 16).value == 2);  // half the bytes in flight
    CHECK(loads_per_thread(h200, 1024, 16, 16).value == 2);                 // twice the threads
    CHECK(loads_per_thread(h200, 64, 16, 8).value == 8);                    // capped by registers
    CHECK(loads_per_thread(h200, 64, 16, 8).metric.find("capped") != std::string::npos);
    CHECK_THROWS_AS(loads_per_thread(h200, 0, 16, 8), std::invalid_argument);
}

TEST_CASE("derive: GEMV on Hopper", "[derive][monotone]") {
    const auto h200 = device_preset("h200");
    const Derivation n = derive_gemv(h200, false, 579, 57900, 8);
    CHECK(n.value("block_x") >= 8);  // 8 x 16 B: one 128-byte line per row of threads, or wider
    // Short output: few tiles, so the reduction splits; half the SMs, fewer blocks per tile.
    CHECK(n.value("Y") > 1);
    // (<=: with the same bandwidth, a split that already keeps the device's Little's law in
    // flight on half the SMs needs no more blocks per tile there.)
    CHECK(derive_gemv(half_sms(h200), false, 579, 57900, 8).value("Y") <= n.value("Y"));
    // Half the bandwidth: no more loads in flight per thread.
    CHECK(derive_gemv(half_bandwidth(h200), false, 579, 57900, 8).value("U") <= n.value("U"));
    DeviceProfile fast = h200;
    fast.latency_ns /= 2;  // half Little's law: fewer loads per thread
    CHECK(derive_gemv(fast, false, 4096, 4096, 4).value("U") < derive_gemv(h200, false, 4096, 4096, 4).value("U"));
    // A long output fills the waves: no split.
    CHECK(derive_gemv(h200, true, 4096, 131072, 4).value("Y") == 1);
    CHECK(n.launch().find("bytes in flight") == std::string::npos);  // metrics are not launch fields
    CHECK_THROWS_AS(derive_gemv(h200, false, 0, 8, 4), std::invalid_argument);
    CHECK_THROWS_AS(derive_gemv(h200, false, 8, 8, 2), std::invalid_argument);
    CHECK_THROWS_AS(n.value("nb"), std::invalid_argument);
}

TEST_CASE("derive: GEMV N one wave, a split only where its bytes in flight pay its tail", "[derive][monotone]") {
    const auto h200 = device_preset("h200");
    auto tiles_x_y = [](const Derivation& d, long long m, int rows_per_thread) {
        return (m + d.value("block_x") * rows_per_thread - 1) / (d.value("block_x") * rows_per_thread) * d.value("Y");
    };
    // 1777^2 double, odd lda (element loads): one-line tiles of 16 rows give 112 blocks of 512
    // threads, whose loads alone keep the device's Little's law in flight: no split, no tail.
    const Derivation odd = derive_gemv(h200, false, 1777, 1777, 8, false);
    CHECK(odd.value("block_x") == 16);
    CHECK(odd.value("Y") == 1);
    // Twice the latency (twice Little's law): those tiles no longer keep it, a split of the
    // whole wave does, and its tail is worth paying.
    DeviceProfile slow = h200;
    slow.latency_ns *= 2;
    const Derivation odd_slow = derive_gemv(slow, false, 1777, 1777, 8, false);
    CHECK(odd_slow.value("Y") > 1);
    CHECK(odd_slow.value("block_x") * odd_slow.value("block_y") * tiles_x_y(odd_slow, 1777, 1) <= 132 * 512);
    // 5000^2 double, odd lda: 79 tiles of 64 rows leave 53 SMs idle without a split; one wave
    // of split blocks (no second, partial one) fills them.
    const Derivation big = derive_gemv(h200, false, 5000, 5000, 8, false);
    CHECK(big.value("Y") > 1);
    CHECK(big.value("block_x") * big.value("block_y") * tiles_x_y(big, 5000, 1) <= 132 * 512);
    CHECK(big.value("block_x") * big.value("block_y") * tiles_x_y(big, 5000, 1) > 132 * 512 / 2);
    // Half the SMs: no more blocks per tile.
    CHECK(derive_gemv(half_sms(h200), false, 5000, 5000, 8, false).value("Y") <= big.value("Y"));
}

TEST_CASE("derive: GEMM tiles from reuse, split k from the waves", "[derive][monotone]") {
    const auto h200 = device_preset("h200");
    const Derivation big = derive_gemm(h200, 4096, 4096, 4096, 4);
    // Rule 2 over the powers of two: among times within the estimate's resolution, the most
    // reuse (the larger thread tiles of the larger blocks).
    CHECK(big.value("tile_m") * big.value("tile_n") >= 128 * 128);
    CHECK(big.value("split_k") == 1);
    // Rule 5: C of 1024 x 1024 leaves slots idle, so k splits; half the SMs, a smaller split.
    const Derivation skinny = derive_gemm(h200, 1024, 1024, 16384, 4);
    CHECK(skinny.value("split_k") > 1);
    CHECK(derive_gemm(half_sms(h200), 1024, 1024, 16384, 4).value("split_k") < skinny.value("split_k"));
    // Less shared memory: never a larger tile.
    DeviceProfile tiny = h200;
    tiny.smem_per_sm_bytes = 16384;
    tiny.smem_per_block_bytes = 16384;
    const Derivation t = derive_gemm(tiny, 4096, 4096, 4096, 4);
    CHECK(t.value("tile_m") * t.value("tile_n") < big.value("tile_m") * big.value("tile_n"));
}

TEST_CASE("derive: convolution tiles from Little's law and the halo", "[derive][monotone]") {
    const auto h200 = device_preset("h200");
    const Derivation small = derive_conv2d(h200, 4096, 4096, 3, 4);
    CHECK(small.value("block_x") == 32);
    CHECK(small.value("thread_x") == 1);  // FS = 3: a 32-wide tile has a halo of 1.06
    // A large filter widens the tile (the halo), up to 8 outputs across.
    CHECK(derive_conv2d(h200, 4096, 4096, 63, 4).value("thread_x") == 8);
    // Half the bandwidth: no more outputs per thread.
    CHECK(derive_conv2d(half_bandwidth(h200), 4096, 4096, 3, 4).value("thread_y") <= small.value("thread_y"));
    DeviceProfile slow = h200;
    slow.latency_ns *= 4;
    CHECK(derive_conv2d(slow, 4096, 4096, 3, 4).value("thread_y") > small.value("thread_y"));
    // Half the shared memory: no taller tile for FS = 63.
    CHECK(derive_conv2d(half_smem(h200), 4096, 4096, 63, 4).value("tile_y") <=
          derive_conv2d(h200, 4096, 4096, 63, 4).value("tile_y"));
    CHECK_THROWS_AS(derive_conv2d(h200, 64, 64, 4, 4), std::invalid_argument);
}

TEST_CASE("derive: SYMV in KBLAS's order nb, Q, Y", "[derive][monotone]") {
    const auto h200 = device_preset("h200");
    const Derivation d = derive_symv(h200, 16384, 4);
    CHECK(d.value("nb") == 64);
    CHECK(d.value("Q") == 4);
    CHECK(d.launch() == "nb=64 Q=4 loads=16 Y=" + std::to_string(d.value("Y")));
    CHECK(derive_symv(h200, 16384, 4, false).value("loads") == 4);  // columns not 16-byte aligned
    // Shared memory for one 64 x 65 float tile taken away: the 32 tile.
    DeviceProfile small = h200;
    small.smem_per_sm_bytes = small.smem_per_block_bytes = 16384;
    CHECK(derive_symv(small, 16384, 4).value("nb") == 32);
    // Y balances each block's fill and drain against the tail: not n's (up to the longest
    // column's tiles), the slots' (fewer SMs, fewer pieces) and the latency's (longer, fewer).
    CHECK(derive_symv(h200, 4096, 4).value("Y") == d.value("Y"));
    CHECK(derive_symv(h200, 200, 4, true, 0, false).value("Y") == 4);  // 4 tiles in the longest column
    CHECK(derive_symv(half_sms(h200), 4096, 4).value("Y") < derive_symv(h200, 4096, 4).value("Y"));
    DeviceProfile slow = h200;
    slow.latency_ns *= 4;
    CHECK(derive_symv(slow, 16384, 4).value("Y") < d.value("Y"));
    // The row panels before the tiles where they are one wave: the tiles' parameters are not set.
    CHECK(derive_symv(h200, 1000, 4).value("panel rows") == 8);
    CHECK(derive_symv(h200, 1000, 4).launch() == "panel rows=8");
    CHECK(derive_symv(h200, 16384, 4).value("panel rows") == 0);
}

TEST_CASE("derive: CG's vector kernels take one wave", "[derive][monotone]") {
    const auto h200 = device_preset("h200");
    const Derivation d = derive_cg(h200, 1 << 22, 4);
    CHECK(d.value("vec.grid") == 132 * 8);  // 256-thread blocks, 8 per SM: one wave
    CHECK(derive_cg(half_sms(h200), 1 << 22, 4).value("vec.grid") == 66 * 8);
    CHECK(derive_cg(h200, 2048, 4).value("vec.grid") < d.value("vec.grid"));  // never more blocks than work
    CHECK(d.value("mv.nb") == derive_symv(h200, 1 << 22, 4).value("nb"));
}
