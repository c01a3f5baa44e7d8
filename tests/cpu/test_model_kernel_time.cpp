// test_model_kernel_time.cpp — the kernel-time engine every op's model stands on (model/kernel_time):
// each bound on its own (DRAM + one latency, the latency walk, the load/store pipe, issue), the
// walk followed round by round (the bus shared while many blocks walk, latencies once the long
// walks are left), waves over the SMs, the L2-warm case, the launch costs of a call of several
// kernels, and the arguments it rejects. Hand-computed figures on the h200 preset.
#include "catch.hpp"

#include "device_profile.hpp"
#include "model/kernel_time.hpp"
#include "model/occupancy.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

using namespace wb::model;

namespace {

wb::DeviceProfile h200() { return wb::device_preset("h200"); }

}  // namespace

TEST_CASE("kernel time: a stream of bytes is the bandwidth plus one latency plus the launch", "[cpu][model]") {
    const auto dev = h200();
    KernelWork w;
    w.blocks = 132 * 8;
    w.blocks_per_sm = 8;
    w.rounds = 2;
    w.dram_bytes = 1e9;  // 1 GB: 208 us at 4800 GB/s, far longer than 2 round trips
    const KernelTime t = kernel_time(w, dev, 0.004);
    CHECK(t.limit == KernelLimit::dram);
    CHECK(t.dram_ms == Approx(1e9 / (dev.bandwidth_gbs * 1e6) + dev.idle_latency_ns * 1e-6));
    CHECK(t.ms == Approx(0.004 + t.dram_ms));
    CHECK(t.busiest_blocks == 8);
    CHECK(t.waves == 1);
}

TEST_CASE("kernel time: few bytes in flight wait for their round trips (Little's law)", "[cpu][model]") {
    const auto dev = h200();
    KernelWork w;
    w.blocks = 132 * 8 * 3 + 1;  // three full waves and one block more: a fourth wave
    w.blocks_per_sm = 8;
    w.rounds = 100;
    w.dram_bytes = 1e6;  // the bus is idle: each round takes a latency
    const KernelTime t = kernel_time(w, dev, 0);
    CHECK(t.limit == KernelLimit::walk);
    CHECK(t.busiest_blocks == 25);
    CHECK(t.waves == 4);
    CHECK(t.walk_ms == Approx(4 * 100 * dev.idle_latency_ns * 1e-6));
    // Dependent L2 hits and chains of dependent instructions lengthen every round.
    w.l2_rounds = 100;  // one per round
    w.chain_cycles = 198;  // 0.1 us at 1980 MHz
    const KernelTime t2 = kernel_time(w, dev, 0);
    CHECK(t2.walk_ms == Approx(4 * 100 * (dev.idle_latency_ns + dev.l2_latency_ns + 100.0) * 1e-6));
    // Warm: the round trips are L2 hits.
    w.l2_rounds = 0;
    w.chain_cycles = 0;
    w.warm = true;
    CHECK(kernel_time(w, dev, 0).walk_ms == Approx(4 * 100 * dev.l2_latency_ns * 1e-6));
}

TEST_CASE("kernel time: the walk shares the bus while many blocks walk", "[cpu][model]") {
    const auto dev = h200();
    // Unequal walks: block b of 1056 walks 1056 - b rounds (longest first), 64 KB per round. While
    // most of them walk, a round moves more bytes than the bus carries in a latency; at the end
    // only the longest are left and each round takes a latency.
    KernelWork w;
    w.blocks_per_sm = 8;
    double total = 0;
    for (int b = 0; b < 1056; ++b) {
        w.walks.push_back(1056.0 - b);
        total += 1056.0 - b;
    }
    w.dram_bytes = total * 65536;
    const KernelTime t = kernel_time(w, dev, 0);
    const double latency_ms = dev.idle_latency_ns * 1e-6, bw = dev.bandwidth_gbs * 1e6;
    // Step by step: while a blocks walk, a round takes max(latency, a x 64 KB / bandwidth).
    double expect = 0;
    for (int k = 0; k < 1056; ++k) {
        const double a = 1056.0 - k;  // blocks with more than k rounds
        expect += std::max(latency_ms, a * 65536 / bw);
    }
    CHECK(t.walk_ms == Approx(expect).epsilon(1e-9));
    CHECK(t.walk_ms > t.dram_ms);  // the tail of long walks costs latencies the bytes do not show
    CHECK(t.walk_ms < 1056 * latency_ms + t.dram_ms);
    CHECK(t.busiest_blocks == 8);
}

TEST_CASE("kernel time: a block's bare rounds cost where few blocks share an SM", "[cpu][model]") {
    const auto dev = h200();
    const double latency_ms = dev.idle_latency_ns * 1e-6, bw = dev.bandwidth_gbs * 1e6;
    // Equal blocks of 10 rounds, 2 of them bare (no bytes), in one wave of `per_sm` blocks per SM
    // and a second that starts as the first ends: while every resident block streams, a round
    // takes max(latency, a x bytes per round / bandwidth); in the last 2 rounds of a wave only
    // the blocks still streaming (none: they all end together) load.
    const auto walk = [&](int per_sm, double bytes_per_round) {
        KernelWork w;
        w.blocks_per_sm = per_sm;
        w.blocks = 2LL * per_sm * dev.sm_count;
        w.rounds = 10;
        w.bare_rounds = 2;
        w.dram_bytes = static_cast<double>(w.blocks) * 8 * bytes_per_round;
        return kernel_time(w, dev, 0).walk_ms;
    };
    for (int per_sm : {1, 6}) {
        INFO(per_sm << " blocks per SM");
        const double bytes = 32768;  // a 64 x 64 double tile per streaming round
        const double a = static_cast<double>(per_sm) * dev.sm_count;
        const double expect = 2 * (8 * std::max(latency_ms, a * bytes / bw) + 2 * latency_ms);
        CHECK(walk(per_sm, bytes) == Approx(expect).epsilon(1e-9));
    }
    // Without bare rounds the same bytes are spread over all 10 rounds: the walk is the bus's
    // time where it binds (6 per SM), and the bare rounds' latencies are what they add.
    KernelWork w;
    w.blocks_per_sm = 6;
    w.blocks = 2LL * 6 * dev.sm_count;
    w.rounds = 10;
    w.dram_bytes = static_cast<double>(w.blocks) * 8 * 32768;
    const double spread = kernel_time(w, dev, 0).walk_ms;
    CHECK(spread == Approx(w.dram_bytes / bw).epsilon(1e-9));
    w.bare_rounds = 2;
    CHECK(kernel_time(w, dev, 0).walk_ms > spread);
    w.bare_rounds = 20;  // more than a walk has: every round bare, the latencies alone
    CHECK(kernel_time(w, dev, 0).walk_ms == Approx(2 * 10 * latency_ms).epsilon(1e-9));
}

TEST_CASE("kernel time: requests of a sector each can bind at the L2's lookup rate", "[cpu][model]") {
    const auto dev = h200();
    REQUIRE(dev.l2_lookups_per_ns == 160);
    // 537 MB read (float SYMV at 16384): a request per 128-byte line and the line's crossing of
    // the L2 fabric, 8.4 M lookups: 52 us, under the bytes' 112 us; a request per 32-byte sector
    // (16.8 M) plus the lines' crossings (4.2 M): 131 us, above them.
    KernelWork w;
    w.blocks = 2048;
    w.blocks_per_sm = 3;
    w.rounds = 20;
    w.dram_bytes = 537e6;
    w.l2_requests = 2 * 537e6 / 128;
    const KernelTime lines = kernel_time(w, dev, 0);
    CHECK(lines.l2_ms == Approx(w.l2_requests / 160e6));
    CHECK(lines.limit != KernelLimit::l2_requests);
    w.l2_requests = 537e6 / 32 + 537e6 / 128;
    const KernelTime sectors = kernel_time(w, dev, 0);
    CHECK(sectors.limit == KernelLimit::l2_requests);
    CHECK(sectors.ms == Approx(sectors.l2_ms));
    CHECK(sectors.ms > 1.1 * lines.ms);
    // A card whose lookup rate is not known has no such bound.
    auto unknown = dev;
    unknown.l2_lookups_per_ns = 0;
    CHECK(kernel_time(w, unknown, 0).limit != KernelLimit::l2_requests);
    CHECK(wb::device_preset("t10").l2_lookups_per_ns == 0);
    CHECK(wb::device_preset("h100-sxm").l2_lookups_per_ns == 160);
    w.l2_requests = -1;
    CHECK_THROWS_WITH(kernel_time(w, dev, 0), Catch::Matchers::Contains("l2_requests"));
}

TEST_CASE("kernel time: the load/store pipe and issue are per-SM rates", "[cpu][model]") {
    const auto dev = h200();
    KernelWork w;
    w.blocks = 264;  // 2 per SM
    w.blocks_per_sm = 4;
    w.wavefronts = 1.98e6;  // 1 ms per block at one wavefront per clock
    const KernelTime t = kernel_time(w, dev, 0);
    CHECK(t.limit == KernelLimit::lsu);
    CHECK(t.lsu_ms == Approx(2.0));
    w.wavefronts = 0;
    w.instructions = 4 * 1.98e6;  // four schedulers: 1 ms per block
    const KernelTime i = kernel_time(w, dev, 0);
    CHECK(i.limit == KernelLimit::issue);
    CHECK(i.issue_ms == Approx(2.0));
}

TEST_CASE("kernel time: a call of several kernels pays one launch and queued starts", "[cpu][model]") {
    const auto dev = h200();
    KernelWork w;
    w.blocks = 1;
    w.rounds = 1;
    std::vector<KernelTime> parts;
    const double ms = kernels_time_ms({w, w, w}, dev, &parts);
    REQUIRE(parts.size() == 3);
    CHECK(parts[0].launch_ms == Approx(kLaunchOverheadUs * 1e-3));
    CHECK(parts[1].launch_ms == Approx(kNextKernelUs * 1e-3));
    CHECK(ms == Approx((kLaunchOverheadUs + 2 * kNextKernelUs) * 1e-3 + 3 * dev.idle_latency_ns * 1e-6));
    // An empty kernel (a queued copy) costs its start only.
    CHECK(kernel_time(KernelWork{}, dev, 0.001).ms == Approx(0.001));
}

TEST_CASE("kernel time: arguments it rejects", "[cpu][model]") {
    const auto dev = h200();
    KernelWork w;
    w.blocks = -1;
    CHECK_THROWS_WITH(kernel_time(w, dev, 0), Catch::Matchers::Contains("blocks (-1) must be >= 0"));
    w.blocks = 10;
    w.blocks_per_sm = 0;
    CHECK_THROWS_WITH(kernel_time(w, dev, 0), Catch::Matchers::Contains("blocks_per_sm (0) must be >= 1"));
    w.blocks_per_sm = 1;
    w.rounds = -1;
    CHECK_THROWS_AS(kernel_time(w, dev, 0), std::invalid_argument);
    w.rounds = 1;
    wb::DeviceProfile none = dev;
    none.sm_clock_mhz = 0;
    CHECK_THROWS_WITH(kernel_time(w, none, 0), Catch::Matchers::Contains("needs SMs, a clock and a bandwidth"));
}

TEST_CASE("device profiles: idle and L2 latencies, the FP64 tensor cores", "[cpu][model]") {
    for (const char* name : {"h100-sxm", "h200"}) {
        INFO(name);
        const auto p = wb::device_preset(name);
        // The idle latency below the loaded one (Little's law needs the loaded), the L2's below both.
        CHECK(p.idle_latency_ns > 0);
        CHECK(p.idle_latency_ns < p.latency_ns);
        CHECK(p.l2_latency_ns > 0);
        CHECK(p.l2_latency_ns < p.idle_latency_ns);
        // The FP64 tensor cores: twice the FP64 lanes' rate, within 1%.
        CHECK(p.fp64_tensor_gflops == Approx(2 * p.fp64_peak_gflops()).epsilon(0.01));
    }
    CHECK(wb::device_preset("h200").fp64_tensor_gflops == 66500);     // scripts/probes/dmma_rate.cu on an H200
    CHECK(wb::device_preset("h100-sxm").fp64_tensor_gflops == 66900);  // 132 x 256 x 1980 MHz
    CHECK(wb::device_preset("t10").fp64_tensor_gflops == 0);
    CHECK(wb::device_preset("t10").l2_latency_ns == 0);  // no L2 for global memory
}
