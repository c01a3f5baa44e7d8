// test_ch00_memory.cpp — the host-side parts of chapter 0's experiments (common/memory_lab.hpp)
// that need no GPU: the closed forms the kernels' sums are checked against, the distinct-sector
// count behind the coalescing table's footprint column, and the predictions each experiment
// prints for a preset (White's T10 and today's Hopper). Measurements are tested in
// tests/gpu/test_ch00_memory.cpp and tests/perf/test_ch00_memory.cpp.
#include "catch.hpp"

#include "device_profile.hpp"
#include "memory_lab.hpp"

#include <cmath>
#include <cstddef>
#include <random>
#include <set>
#include <stdexcept>

using namespace wb::lab;

namespace {

/// Brute force: the sum of 1 + ((start + i stride) mod 8) over i < count.
double brute_pattern_sum(long long start, long long count, long long stride) {
    double s = 0;
    for (long long i = 0; i < count; ++i) s += 1.0 + static_cast<double>((start + i * stride) % 8);
    return s;
}

/// Brute force: 32 x the number of distinct sectors floor(4 (offset + i stride) / 32).
double brute_sector_bytes(std::size_t offset, std::size_t count, int stride) {
    std::set<std::size_t> sectors;
    for (std::size_t i = 0; i < count; ++i) sectors.insert(4 * (offset + i * static_cast<std::size_t>(stride)) / 32);
    return 32.0 * static_cast<double>(sectors.size());
}

}  // namespace

TEST_CASE("ch00: pattern_sum is the closed form of the kernels' input pattern", "[ch00]") {
    std::mt19937 rng(20131122u);
    std::uniform_int_distribution<long long> start(0, 1000), count(0, 300), stride(0, 70);
    for (int k = 0; k < 200; ++k) {
        const long long a = start(rng), n = count(rng), s = stride(rng);
        INFO("start " << a << " count " << n << " stride " << s);
        CHECK(pattern_sum(a, n, s) == brute_pattern_sum(a, n, s));
    }
    CHECK(pattern_sum(0, 8, 1) == 36.0);  // 1 + 2 + ... + 8
    CHECK(pattern_sum(3, 5, 0) == 20.0);  // five times element 3 (value 4)
    CHECK_THROWS_AS(pattern_sum(-1, 4, 1), std::invalid_argument);
    CHECK_THROWS_AS(pattern_sum(0, -4, 1), std::invalid_argument);
    CHECK_THROWS_AS(pattern_sum(0, 4, -1), std::invalid_argument);
}

TEST_CASE("ch00: distinct_sector_bytes counts the sectors a strided read touches", "[ch00][coalescing]") {
    for (int stride : {1, 2, 3, 4, 7, 8, 9, 16, 32, 33})
        for (std::size_t offset : {0, 1, 7, 8, 16, 31, 64})
            for (std::size_t count : {0, 1, 2, 31, 32, 33, 1000}) {
                INFO("stride " << stride << " offset " << offset << " count " << count);
                CHECK(distinct_sector_bytes(offset, count, stride) == brute_sector_bytes(offset, count, stride));
            }
    // The coalescing table's footprint: all of it up to stride 8, half at 16, a quarter at 32.
    const std::size_t n = std::size_t{1} << 20;  // floats of a 4 MiB footprint
    CHECK(distinct_sector_bytes(0, n, 1) == 4.0 * n);
    CHECK(distinct_sector_bytes(0, n / 8, 8) == 4.0 * n);
    CHECK(distinct_sector_bytes(0, n / 16, 16) == 2.0 * n);
    CHECK(distinct_sector_bytes(0, n / 32, 32) == 1.0 * n);
    CHECK(distinct_sector_bytes(1, n, 1) == 4.0 * n + 32);  // a misaligned stream: one sector more
    CHECK_THROWS_AS(distinct_sector_bytes(0, 10, 0), std::invalid_argument);
}

TEST_CASE("ch00: partition-camping predictions for the T10 and for Hopper", "[ch00][partitions][white]") {
    const auto t10 = predict_partition_camping(wb::device_preset("t10"), Scale::full);
    REQUIRE(t10.size() == 6 * 4);  // White's six v values x partitions 8, 4, 2, 1
    for (const auto& r : t10) {
        INFO("v " << r.v << " partitions " << r.partitions);
        CHECK(r.predicted_slowdown == Approx(8.0 / r.partitions));  // Table 3.1: bandwidth ~ partitions
        CHECK(std::isnan(r.ms));
        CHECK(std::isnan(r.reuse_bytes));  // known only once measured
    }
    for (const char* name : {"h100-sxm", "h200"})
        for (const auto& r : predict_partition_camping(wb::device_preset(name), Scale::full)) {
            INFO(name << " v " << r.v << " partitions " << r.partitions);
            CHECK(r.predicted_slowdown == 1.0);  // hashed channels
        }
    // White's published table is what the chapter prints beside the measurement.
    CHECK(white::kTable31Gbs[5][3] / white::kTable31Gbs[5][0] == Approx(8.7 / 68.5));
}

TEST_CASE("ch00: coalescing predictions follow the sector model", "[ch00][coalescing]") {
    const auto rows = predict_coalescing(wb::device_preset("h200"), Scale::full, 4000.0);
    REQUIRE(rows.size() == 12);  // strides 1..32 and six misaligned starts
    for (const auto& r : rows) {
        INFO("stride " << r.stride << " offset " << r.offset);
        CHECK(r.predicted_gbs == Approx(4000.0 * r.efficiency));
        CHECK(std::isnan(r.footprint_gbs));
        if (r.offset == 0) CHECK(r.efficiency == Approx(r.stride >= 8 ? 0.125 : 1.0 / r.stride));
        else if ((4 * r.offset) % 32 != 0) CHECK(r.sectors == 5);
        else CHECK(r.sectors == 4);
    }
}

TEST_CASE("ch00: bank-conflict predictions: 32 / b ways, the padded walk conflict-free", "[ch00][banks]") {
    const auto rows = predict_bank_conflicts(wb::device_preset("h200"), Scale::full);
    REQUIRE(rows.size() == 6 * 7);  // White's six v values x banks 32..1 and the padded tile
    for (const auto& r : rows) {
        INFO("v " << r.v << " banks " << r.banks << (r.padded ? " padded" : ""));
        CHECK(r.ways == (r.padded ? 1 : 32 / r.banks));
    }
    // On the T10 a half-warp of 16 threads meets 16 banks (White §3.2, Table 3.2).
    for (const auto& r : predict_bank_conflicts(wb::device_preset("t10"), Scale::full)) {
        INFO("t10 v " << r.v << " banks " << r.banks << (r.padded ? " padded" : ""));
        CHECK(r.banks <= 16);
        CHECK(r.ways == (r.padded ? 1 : 16 / r.banks));
    }
}

TEST_CASE("ch00: transfer sizes and White's T10 transfer model", "[ch00][transfers][white]") {
    const auto full = transfer_sizes(Scale::full);
    REQUIRE(full.size() == 19);
    CHECK(full.front() == 4096.0);
    CHECK(full.back() == 1024.0 * 1024 * 1024);
    CHECK(transfer_sizes(Scale::quick).size() == 15);  // every octave: room for 3 segments of 3
    CHECK(predict_transfers(Scale::full).size() == 4 * full.size());
    // §3.4.1: a 1 MB CPU-to-GPU copy costs 1 MB / 3.5 GB/s + 3.2 ms/GB x 1 MB + 0.19 ms.
    const double mb = 1024.0 * 1024;
    CHECK(white::t10_transfer_model(true).predict(mb) == Approx(mb / 3.5e6 + 3.2e-9 * mb + 0.19));
    // §3.4.2: below 1 MB GPU-to-CPU, c0 = 210 ms/GB and c1 = 0.02 ms.
    CHECK(white::t10_transfer_model(false).predict(4096) == Approx(4096 / 3.1e6 + 210e-9 * 4096 + 0.02));
    CHECK(transfer_kind(true, false) == "pinned D2H");
}
