// test_ch00_memory.cpp — chapter 0's effects as ratios measured in one run on the GPU (architecture §7):
// copy bandwidth against the theoretical one, 32-way bank conflicts against conflict-free and the
// +1 padding fix, stride-32 reads against stride-1, and the transfer model's fit error. The
// thresholds are the (issue 3) and sit well inside what the models predict: copies reach
// 89% of theoretical on the reference H200 (shared/reference/h200-ceilings-2026-11-22.txt:
// 4292 / 4814 GB/s); 32-way conflicts are predicted 32x (asserted >= 4x); stride 32 is predicted
// 8x slower per useful byte (asserted >= 4x). Each case prints what it measured.
#include "catch.hpp"
#include "live_device.hpp"

#include "ceilings.hpp"
#include "device_profile.hpp"
#include "memory_lab.hpp"

#include <algorithm>
#include <cuda_runtime_api.h>
#include <iostream>
#include <sstream>

namespace {

using namespace wb::lab;

using wb::test::live_device;

}  // namespace

TEST_CASE("ch00 perf: copy and read bandwidth within 50-105% of theoretical and FMA near peak", "[perf][ch00]") {
    const wb::Ceilings& c = wb::measured_ceilings();
    std::cout << "theoretical " << c.theoretical_gbs << " GB/s, memcpy " << c.copy_memcpy_gbs << ", copy kernel "
              << c.copy_kernel_gbs << ", read " << c.read_gbs << " GB/s; FP32 peak " << c.fp32_peak_gflops
              << ", FMA " << c.fp32_fma_gflops << " GFLOP/s; FP64 peak " << c.fp64_peak_gflops << ", FP64 FMA "
              << c.fp64_fma_gflops << " GFLOP/s\n";
    for (const auto& r : measured_ceiling_rows()) {
        INFO(r.what << " " << r.shape);
        CHECK(r.verified);
    }
    CHECK(c.copy_gbs >= 0.50 * c.theoretical_gbs);
    CHECK(c.copy_gbs <= 1.05 * c.theoretical_gbs);
    CHECK(c.read_gbs >= 0.50 * c.theoretical_gbs);
    CHECK(c.read_gbs <= 1.05 * c.theoretical_gbs);
    // Reference H200: 60.8 of 66.9 TFLOP/s (91%) with 8 chains; the clock may sag under load.
    CHECK(c.fp32_fma_gflops >= 0.60 * c.fp32_peak_gflops);
    CHECK(c.fp32_fma_gflops <= 1.05 * c.fp32_peak_gflops);
    // FP64 chains on the FP64 CUDA cores (64 lanes per SM on Hopper); a looser floor than FP32:
    // the clock sags more under FP64 load. Not yet measured on the reference H200 at this commit.
    CHECK(c.fp64_fma_gflops >= 0.50 * c.fp64_peak_gflops);
    CHECK(c.fp64_fma_gflops <= 1.05 * c.fp64_peak_gflops);
}

TEST_CASE("ch00 perf: 32-way bank conflicts are at least 4x slower and padding restores conflict-free speed", "[perf][ch00]") {
    const auto rows = run_bank_conflicts(live_device(), Scale::quick);
    const int v = rows.back().v;  // the largest v: the longest runs
    double free_ms = 0, conflict_ms = 0, padded_ms = 0;
    for (const auto& r : rows) {
        if (r.v != v) continue;
        CHECK(r.verified);
        if (!r.padded && r.banks == 32) free_ms = r.ms;
        if (!r.padded && r.banks == 1) conflict_ms = r.ms;
        if (r.padded) padded_ms = r.ms;
    }
    std::cout << "banks, v = " << v << ": conflict-free " << free_ms << " ms, 32-way " << conflict_ms << " ms ("
              << conflict_ms / free_ms << "x), padded " << padded_ms << " ms (" << padded_ms / free_ms << "x)\n";
    REQUIRE(free_ms > 0);
    CHECK(conflict_ms >= 4.0 * free_ms);
    CHECK(padded_ms <= 1.10 * free_ms);
    CHECK(padded_ms >= 0.90 * free_ms);
}

TEST_CASE("ch00 perf: stride-32 warp reads are at least 4x slower per useful byte than stride 1", "[perf][ch00]") {
    const wb::Ceilings& c = wb::measured_ceilings();
    const auto rows = run_coalescing(live_device(), Scale::quick, c.read_gbs);
    double s1 = 0, s32 = 0;
    for (const auto& r : rows) {
        CHECK(r.verified);
        if (r.offset == 0 && r.stride == 1) s1 = r.useful_gbs;
        if (r.offset == 0 && r.stride == 32) s32 = r.useful_gbs;
    }
    std::cout << "coalescing: stride 1 " << s1 << " GB/s, stride 32 " << s32 << " GB/s useful (" << s1 / s32
              << "x; the sector model predicts 8x)\n";
    REQUIRE(s32 > 0);
    CHECK(s1 >= 4.0 * s32);
}

TEST_CASE("ch00 perf: partition-camping rows measure DRAM, never the L2 (none beats the read ceiling)", "[perf][ch00]") {
    // The full scale, as the chapter runs it. A first version let the L2 serve rereads: one
    // partition reached 5065 GB/s at v = 16384 on the H200, 113% of its 4488 GB/s read ceiling
    // (docs/results/h200, commit e1634d1). Each block now cycles through rows of its own, an
    // address returning only after ~2 GiB of other reads; rows must stay under the ceiling
    // (3% for noise; the 8-partition rows reached 91% of it in that run).
    const wb::Ceilings& c = wb::measured_ceilings();
    const auto rows = run_partition_camping(live_device(), Scale::full);
    double most = 0;
    for (const auto& r : rows) {
        INFO("v " << r.v << " partitions " << r.partitions << ": " << r.gbs << " GB/s, read ceiling " << c.read_gbs);
        CHECK(r.verified);
        CHECK(r.gbs <= 1.03 * c.read_gbs);
        most = std::max(most, r.gbs);
    }
    std::cout << "partitions: fastest row " << most << " GB/s, read ceiling " << c.read_gbs << " GB/s\n";
}

TEST_CASE("ch00 perf: White's transfer model fits the measured copies within 10% on average", "[perf][ch00]") {
    // Every octave from 4 KB to 64 MB (15 sizes, so up to 3 segments of >= 3 points), each the
    // median of 3 passes of a median of several copies (run_transfers).
    const auto rows = run_transfers(Scale::quick);
    for (bool pinned : {false, true})
        for (bool h2d : {true, false}) {
            const wb::TransferModel m = fit_transfers(rows, pinned, h2d);
            std::ostringstream pts;  // the measured points with the fit's error, for a failure's reader
            for (const auto& p : m.points())
                pts << "  " << wb::format_bytes(p.bytes) << ": " << p.ms * 1e3 << " us, " << p.bytes / (p.ms * 1e6)
                    << " GB/s, fit " << 100.0 * (m.predict(p.bytes) - p.ms) / p.ms << "%\n";
            std::cout << transfer_kind(pinned, h2d) << ": " << m.to_string();
            INFO(transfer_kind(pinned, h2d) << "\n" << m.to_string() << pts.str());
            CHECK(m.points().size() == transfer_sizes(Scale::quick).size());
            CHECK(m.avg_error_pct() < 10.0);
        }
}
