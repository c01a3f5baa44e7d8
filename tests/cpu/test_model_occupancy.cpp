// test_model_occupancy.cpp — resident blocks per SM (White Eq. 3.7 with allocation granularity)
// and the grid metrics built on it (Eq. 3.1, 3.8-3.11: active and fragmented blocks, waves).
#include "catch.hpp"

#include "model.hpp"

#include <stdexcept>

using namespace wb::model;
using wb::device_preset;

TEST_CASE("occupancy on H100: the textbook cases", "[model][occupancy]") {
    const auto h100 = device_preset("h100-sxm");

    const auto a = occupancy(h100, 256, 32, 0);  // 8 blocks by threads and by registers
    CHECK(a.blocks_per_sm == 8);
    CHECK(a.active_threads_per_sm == 2048);
    CHECK(a.active_warps_per_sm == 64);
    CHECK(a.occupancy == Approx(1.0));
    CHECK(a.limit_threads == 8);
    CHECK(a.limit_registers == 8);
    CHECK(a.limiter == Limiter::threads);  // ties go to the earlier limit

    const auto b = occupancy(h100, 1024, 64, 0);
    CHECK(b.blocks_per_sm == 1);
    CHECK(b.limiter == Limiter::registers);
    CHECK(b.occupancy == Approx(0.5));

    const auto c = occupancy(h100, 32, 16, 0);  // tiny blocks: the 32 block slots run out
    CHECK(c.blocks_per_sm == 32);
    CHECK(c.limiter == Limiter::blocks);
    CHECK(c.occupancy == Approx(0.5));
}

TEST_CASE("occupancy applies register and shared-memory granularity", "[model][occupancy]") {
    const auto h100 = device_preset("h100-sxm");
    // 33 registers: a warp gets 33 x 32 = 1056 rounded up to 1280 (units of 256): 65536 / 1280 =
    // 51 warps = 12 blocks of 4 warps. Without granularity it would be 15.
    const auto r = occupancy(h100, 128, 33, 0);
    CHECK(r.regs_per_block == 1280 * 4);
    CHECK(r.blocks_per_sm == 12);
    CHECK(r.limiter == Limiter::registers);

    // 48 KB + the 1 KB per-block reservation = 50176 B: 233472 / 50176 = 4 blocks.
    const auto s = occupancy(h100, 256, 32, 48 * 1024);
    CHECK(s.smem_per_block == 48 * 1024 + 1024);
    CHECK(s.blocks_per_sm == 4);
    CHECK(s.limiter == Limiter::shared_memory);

    // 100 B rounds (with the reservation) to 1152 B: 202 blocks' worth, so not the limiter.
    const auto t = occupancy(h100, 256, 32, 100);
    CHECK(t.smem_per_block == 1152);
    CHECK(t.limit_shared_memory == 202);
    CHECK(t.blocks_per_sm == 8);

    // The largest block of shared memory still fits once.
    CHECK(occupancy(h100, 1024, 32, 227 * 1024).blocks_per_sm == 1);
    // 255 registers x 1024 threads cannot fit at all.
    const auto z = occupancy(h100, 1024, 255, 0);
    CHECK(z.blocks_per_sm == 0);
    CHECK(z.limiter == Limiter::registers);
    CHECK(std::string(limiter_name(z.limiter)) == "registers");
}

TEST_CASE("occupancy rejects impossible configurations", "[model][occupancy]") {
    const auto h100 = device_preset("h100-sxm");
    CHECK_THROWS_AS(occupancy(h100, 0, 32, 0), std::invalid_argument);
    CHECK_THROWS_WITH(occupancy(h100, 1025, 32, 0), Catch::Matchers::Contains("threads_per_block") && Catch::Matchers::Contains("1025"));
    CHECK_THROWS_AS(occupancy(h100, 256, 256, 0), std::invalid_argument);
    CHECK_THROWS_AS(occupancy(h100, 256, -1, 0), std::invalid_argument);
    CHECK_THROWS_AS(occupancy(h100, 256, 32, 227 * 1024 + 1), std::invalid_argument);
    CHECK_THROWS_AS(occupancy(device_preset("t10"), 1024, 16, 0), std::invalid_argument);  // 512 max
}

TEST_CASE("on the t10 preset occupancy() is White's Eq. 3.7", "[model][occupancy][white]") {
    const auto t10 = device_preset("t10");
    int compared = 0;
    for (int threads : {32, 64, 128, 256, 512})
        for (int regs : {8, 10, 13, 15, 16, 32, 38})
            for (int smem : {0, 288, 1088, 2112, 4224, 8192}) {
                const auto o = occupancy(t10, threads, regs, smem);
                INFO("threads " << threads << " regs " << regs << " smem " << smem);
                CHECK(o.blocks_per_sm == white_active_blocks_per_sm(t10, threads, regs, smem));
                ++compared;
            }
    CHECK(compared == 5 * 7 * 6);
    // A worked case of Eq. 3.7: 256 threads x 16 registers, 4 KB: min(4, 4, 8, 4) = 4.
    CHECK(white_active_blocks_per_sm(t10, 256, 16, 4096) == 4);
    // 512 threads: the 1024-thread limit allows two.
    CHECK(white_active_blocks_per_sm(t10, 512, 8, 0) == 2);
}

TEST_CASE("Eq. 4.32: MM blocks active on the T10 are 1920 / dBlk.y", "[model][occupancy][white]") {
    const auto t10 = device_preset("t10");
    for (int y : {8, 16, 32, 64}) {
        // dBlk.x = 8, 32 registers per thread, SMemPerBlk = n_ele dBlk.x 4 = 512 (Eq. 4.8).
        const int per_sm = white_active_blocks_per_sm(t10, 8 * y, 32, 16 * 8 * 4);
        CHECK(30 * per_sm == 1920 / y);
        CHECK(occupancy(t10, 8 * y, 32, 512).blocks_per_sm == per_sm);
    }
}

TEST_CASE("Eq. 5.13: convolution blocks per SM are min(8, 1024 / threads)", "[model][occupancy][white]") {
    const auto t10 = device_preset("t10");
    const int shapes[][2] = {{16, 4}, {16, 8}, {32, 2}, {64, 1}, {128, 1}, {256, 1}, {256, 2}, {512, 1}};
    for (const auto& s : shapes) {
        const int x = s[0], y = s[1];
        const int smem = (2 * x * y + x) * 4;  // Eq. 5.7
        INFO("dBlk " << x << " x " << y);
        CHECK(white_active_blocks_per_sm(t10, x * y, 10, smem) == std::min(8, 1024 / (x * y)));
    }
}

TEST_CASE("grid metrics: active, fragmented and waves (Eq. 3.1, 3.8-3.11)", "[model][grid]") {
    const auto h100 = device_preset("h100-sxm");
    const auto g = grid_metrics(h100, 2000, 256, 8);  // 1056 slots
    CHECK(g.total_threads == 2000 * 256);
    CHECK(g.active_blocks == 1056);
    CHECK(g.active_threads == 1056 * 256);
    CHECK(g.full_waves == 1);
    CHECK(g.fragmented_blocks == 944);
    CHECK(g.fragmented_threads == 944 * 256);
    CHECK(g.waves == Approx(2000.0 / 1056));
    CHECK(g.tail_fill == Approx(944.0 / 1056));

    const auto small = grid_metrics(h100, 100, 256, 8);  // one partial wave
    CHECK(small.active_blocks == 100);
    CHECK(small.fragmented_blocks == 0);
    CHECK(small.waves == Approx(100.0 / 1056));
    CHECK(small.tail_fill == Approx(100.0 / 1056));

    const auto exact = grid_metrics(h100, 3 * 1056, 256, 8);
    CHECK(exact.fragmented_blocks == 0);
    CHECK(exact.full_waves == 3);
    CHECK(exact.tail_fill == Approx(1.0));

    const auto none = grid_metrics(h100, 0, 256, 8);
    CHECK(none.active_blocks == 0);
    CHECK(none.tail_fill == 0);

    CHECK_THROWS_AS(grid_metrics(h100, -1, 256, 8), std::invalid_argument);
    CHECK_THROWS_AS(grid_metrics(h100, 10, 0, 8), std::invalid_argument);
}

TEST_CASE("Eq. 4.39: fragmented MM blocks on the T10", "[model][grid][white]") {
    const auto t10 = device_preset("t10");
    for (long long n : {512LL, 1024LL, 2048LL, 4096LL, 8192LL, 16384LL})
        for (int y : {8, 16, 32}) {
            const long long blocks = (n / (8LL * y)) * (n / 16);  // Eq. 4.31b x Eq. 4.29
            const int per_sm = white_active_blocks_per_sm(t10, 8 * y, 32, 512);
            const auto g = grid_metrics(t10, blocks, 8 * y, per_sm);
            const long long eq439 = n * n / (128LL * y) - (n * n / 245760) * (1920 / y);
            INFO("n " << n << " dBlk.y " << y);
            CHECK(g.active_blocks == 1920 / y);  // Eq. 4.32 (the grid is larger)
            CHECK(g.fragmented_blocks == eq439);
        }
}
