// test_model_memory.cpp — transactions of one warp request (32-byte sectors today, White's
// half-warp 32/64/128-byte transactions on the T10), global-memory partitions (White §3.1,
// Table 3.1) and shared-memory bank conflicts (§3.2).
#include "catch.hpp"

#include "model.hpp"

#include <numeric>
#include <stdexcept>
#include <vector>

using namespace wb::model;
using wb::device_preset;

TEST_CASE("sectors of a strided float warp read on Hopper", "[model][sectors]") {
    const auto h = device_preset("h200");
    CHECK(sectors_for_warp_access(h, 0, 1, 4, 32) == 4);
    CHECK(access_efficiency(h, 0, 1, 4, 32) == Approx(1.0));
    for (int s = 1; s <= 32; ++s) {
        // Thread i reads bytes 4 s i: sector floor(s i / 8); with s < 8 every sector in between
        // is hit, from s = 8 on every thread has its own.
        const long long expected = s >= 8 ? 32 : (31LL * s) / 8 + 1;
        INFO("stride " << s);
        CHECK(sectors_for_warp_access(h, 0, s, 4, 32) == expected);
        CHECK(access_efficiency(h, 0, s, 4, 32) == Approx(128.0 / (32.0 * expected)));
    }
    CHECK(access_efficiency(h, 0, 32, 4, 32) == Approx(1.0 / 8));
    CHECK(access_efficiency(h, 0, 32, 8, 32) == Approx(1.0 / 4));
}

TEST_CASE("sectors of misaligned and broadcast warp reads on Hopper", "[model][sectors]") {
    const auto h = device_preset("h100-sxm");
    for (long long off = 0; off <= 64; off += 4) {
        const long long expected = (off + 127) / 32 - off / 32 + 1;
        INFO("offset " << off);
        CHECK(sectors_for_warp_access(h, off, 1, 4, 32) == expected);
    }
    const auto w = warp_access(h, 4, 1, 4, 32);
    CHECK(w.transactions == 5);
    CHECK(w.bytes_moved == 160);
    CHECK(w.useful_bytes == 128);
    CHECK(w.efficiency == Approx(0.8));
    // Doubles: a warp reads 256 bytes, 8 sectors; 16-byte vectors: 512 bytes, 16 sectors.
    CHECK(sectors_for_warp_access(h, 0, 1, 8, 32) == 8);
    CHECK(sectors_for_warp_access(h, 0, 1, 16, 32) == 16);
    // A broadcast moves one sector for one useful element.
    const auto b = warp_access(h, 64, 0, 4, 32);
    CHECK(b.transactions == 1);
    CHECK(b.useful_bytes == 4);
    // Two warps are two requests.
    CHECK(sectors_for_warp_access(h, 0, 1, 4, 64) == 8);
    CHECK(sectors_for_warp_access(h, 0, 0, 4, 64) == 2);
}

TEST_CASE("warp_access rejects impossible requests", "[model][sectors]") {
    const auto h = device_preset("h200");
    CHECK_THROWS_WITH(warp_access(h, 2, 1, 4, 32), Catch::Matchers::Contains("start_byte") && Catch::Matchers::Contains("aligned"));
    CHECK_THROWS_AS(warp_access(h, -4, 1, 4, 32), std::invalid_argument);
    CHECK_THROWS_AS(warp_access(h, 0, -1, 4, 32), std::invalid_argument);
    CHECK_THROWS_AS(warp_access(h, 0, 1, 3, 32), std::invalid_argument);
    CHECK_THROWS_AS(warp_access(h, 0, 1, 4, 0), std::invalid_argument);
}

TEST_CASE("T10 half-warp transactions follow White §3.3.1", "[model][sectors][white]") {
    const auto t10 = device_preset("t10");
    // 16 consecutive aligned floats: one 64-byte transaction per half-warp.
    const auto c = warp_access(t10, 0, 1, 4, 32);
    CHECK(c.transactions == 2);
    CHECK(c.t64 == 2);
    CHECK(c.bytes_moved == 128);
    CHECK(c.efficiency == Approx(1.0));
    // 8 or fewer consecutive floats: one 32-byte transaction.
    CHECK(warp_access(t10, 0, 1, 4, 8).t32 == 1);
    CHECK(warp_access(t10, 0, 1, 4, 9).t64 == 1);
    // Misaligned by one float inside a 128-byte segment: the 128-byte transaction cannot shrink.
    const auto m = warp_access(t10, 4, 1, 4, 16);
    CHECK(m.t128 == 1);
    CHECK(m.efficiency == Approx(0.5));
    // Crossing a 128-byte boundary at byte 96: two 32-byte transactions, nothing wasted.
    const auto x = warp_access(t10, 96, 1, 4, 16);
    CHECK(x.t32 == 2);
    CHECK(x.bytes_moved == 64);
    // Uncoalesced (stride of a row): 16 transactions of 32 bytes per half-warp.
    const auto u = warp_access(t10, 0, 1024, 4, 16);
    CHECK(u.t32 == 16);
    CHECK(u.efficiency == Approx(4.0 / 32));
    // 16 doubles: one 128-byte transaction.
    CHECK(warp_access(t10, 0, 1, 8, 16).t128 == 1);
    // A broadcast: one 32-byte transaction.
    CHECK(warp_access(t10, 0, 0, 4, 16).t32 == 1);
}

TEST_CASE("simulated T10 transactions reproduce White's Eq. 3.2, 3.3-3.4 and 4.7", "[model][sectors][white]") {
    const auto t10 = device_preset("t10");
    for (long long n : {512LL, 1024LL, 4096LL, 16384LL}) {
        const long long hws_mv = n / 16;  // one result per thread: n threads
        // Eq. 3.2 (dBlk.x >= 16): per half-warp and iteration, 16 rows of A (stride n) and one b.
        const auto a = warp_access(t10, 0, static_cast<int>(n), 4, 16);
        const auto b = warp_access(t10, 0, 0, 4, 16);
        CHECK(hws_mv * n * (a.t32 + b.t32) == white_mv_gld32(n, 16));
        CHECK(hws_mv * n * (a.t32 + b.t32) == white_mv_gld32(n, 32));
        // Eq. 4.7: the staged Mv reads A in coalesced half-warps of 16 floats, b in constant memory.
        const auto s = warp_access(t10, 0, 1, 4, 16);
        CHECK(n * n / 16 * s.t64 == white_mv_shared_gld(n, 16));
        CHECK(n * n / 16 * s.bytes_moved == 4 * n * n);  // White §4.6.1: "4n^2" bytes
        // Eq. 3.3-3.4 (dBlk.x >= 16): per half-warp and k, row i is a broadcast (32 B), 16
        // columns of B are consecutive (64 B); n^2 / 16 half-warps, n iterations.
        if (n <= 4096) {
            const auto row = warp_access(t10, 0, 0, 4, 16);
            const auto cols = warp_access(t10, 0, 1, 4, 16);
            CHECK(n * n / 16 * n * row.t32 == white_mm_gld32(n, 16));
            CHECK(n * n / 16 * n * cols.t64 == white_mm_gld64(n, 16));
        }
    }
}

TEST_CASE("partitions of the T10 (White §3.1, Eq. 3.12-3.13)", "[model][partitions][white]") {
    const auto t10 = device_preset("t10");
    CHECK(partition_of(t10, 0) == 0);
    CHECK(partition_of(t10, 255) == 0);
    CHECK(partition_of(t10, 256) == 1);
    CHECK(partition_of(t10, 2047) == 7);
    CHECK(partition_of(t10, 2048) == 0);
    CHECK(partitions_touched(t10, {0}, 2048) == 8);
    CHECK(partitions_touched(t10, {0}, 512) == 2);
    CHECK(partitions_touched(t10, {0, 2048, 4096}, 256) == 1);  // same partition, three rows apart
    CHECK(partitions_touched(t10, {}, 256) == 0);
    CHECK(white_parts_per_block(t10, 64) == Approx(1.0));
    CHECK(white_parts_per_block(t10, 8) == Approx(0.125));
    CHECK(white_parts_per_gpu(t10, 240, 8, 0.125) == Approx(1.0));   // active >= dGrd.x
    CHECK(white_parts_per_gpu(t10, 60, 64, 0.125) == Approx(7.5));   // active < dGrd.x
    CHECK(white_parts_per_gpu(t10, 240, 512, 1.0) == Approx(8.0));   // capped
    CHECK_THROWS_AS(partition_of(device_preset("h200"), 0), std::invalid_argument);
    CHECK_THROWS_AS(partitions_touched(t10, {0}, 0), std::invalid_argument);
    CHECK_THROWS_AS(partition_camping_slowdown(t10, 0), std::invalid_argument);
    CHECK_THROWS_AS(partition_camping_slowdown(t10, 9), std::invalid_argument);
}

TEST_CASE("partition camping: Listing 3.1's blocks and Table 3.1's bandwidths", "[model][partitions][white]") {
    const auto t10 = device_preset("t10");
    // Table 3.1(b), effective bandwidth (GB/s) with 8, 4, 2, 1 partitions, one row per v.
    const double table[6][4] = {{69.4, 34.4, 17.2, 8.7}, {68.4, 34.6, 17.2, 8.7}, {69.9, 34.5, 17.2, 8.7},
                                {71.7, 34.4, 17.4, 8.7}, {69.6, 35.1, 17.7, 8.7}, {68.5, 35.4, 17.9, 8.7}};
    const int used[4] = {8, 4, 2, 1};
    for (int c = 0; c < 4; ++c) {
        // Listing 3.1: 120 blocks; offset = floor(BlkIdx / BlksPerPart) x 64 floats; rows 512 floats apart.
        const int blks_per_part = 120 / used[c];
        std::vector<long long> starts;
        for (int blk = 0; blk < 120; ++blk)
            for (int j = 0; j < 4; ++j) starts.push_back((j * 512LL + (blk / blks_per_part) * 64) * 4);
        CHECK(partitions_touched(t10, starts, 16 * 4) == used[c]);
        for (const auto& row : table) {
            const double measured = row[0] / row[c];
            INFO("partitions " << used[c] << " measured slowdown " << measured);
            CHECK(partition_camping_slowdown(t10, used[c]) == Approx(measured).epsilon(0.06));
        }
    }
}

TEST_CASE("bank conflicts: ways of a strided shared-memory access", "[model][banks]") {
    const auto h = device_preset("h100-sxm");
    const auto t10 = device_preset("t10");
    for (int s = 1; s <= 64; ++s) {
        INFO("stride " << s);
        CHECK(bank_conflict_ways_strided(h, s) == std::gcd(s, 32));
        CHECK(bank_conflict_ways_strided(t10, s) == std::gcd(s, 16));
    }
    CHECK(bank_conflict_ways_strided(h, 0) == 1);    // broadcast
    CHECK(bank_conflict_ways_strided(h, 32) == 32);  // a column of a [32][32] tile
    CHECK(bank_conflict_ways_strided(h, 33) == 1);   // the padded [32][33] tile
    CHECK(bank_conflict_ways_strided(t10, 16) == 16);  // White Fig. 3.6
    CHECK(bank_conflict_ways_strided(t10, 17) == 1);   // White Eq. 4.11's padding, dBlk.x = 16
    CHECK(bank_conflict_ways_strided(h, 1, 5) == 1);
    CHECK(bank_of(h, 37) == 5);
    CHECK(bank_of(t10, 37) == 5);
    CHECK(bank_conflict_ways(h, {0, 32, 0, 64, 1}) == 3);
    CHECK(bank_conflict_ways(h, {7, 7, 7}) == 1);
    CHECK(bank_conflict_ways(h, {}) == 0);
    CHECK_THROWS_AS(bank_conflict_ways_strided(h, -1), std::invalid_argument);
    CHECK_THROWS_AS(bank_of(h, -1), std::invalid_argument);
}
