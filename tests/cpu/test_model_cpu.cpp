// The CPU model (common/model/cpu.hpp): the roofline time from bytes and flops, the bandwidth of
// the level a working set lives in (interpolated in log(ws)), the peer classes' t0 and efficiency,
// its monotone growth with size for every op, which limit binds where, the measurement's sanity on
// this host (working sets up to 16 MiB: well under a second), and the argument rules.
#include "catch.hpp"

#include "model/cpu.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

using namespace wb::model;

TEST_CASE("CPU model: T = max(bytes / B, flops / F)", "[cpu][split]") {
    const CpuMachine m = cpu_machine("test", 8, 20.0, 400.0, 200.0);
    CHECK(predict_cpu_ms(m, {2e7, 1e3}, 4) == Approx(1.0));   // 20 MB at 20 GB/s
    CHECK(predict_cpu_ms(m, {1e3, 4e8}, 4) == Approx(1.0));   // 0.4 GFLOP at 400 GFLOP/s
    CHECK(predict_cpu_ms(m, {1e3, 4e8}, 8) == Approx(2.0));   // double: half the rate
    // GEMV is bandwidth-bound, a large GEMM compute-bound
    const CpuWork g = cpu_work_gemv(false, 4096, 4096, 4, false);
    CHECK(predict_cpu_ms(m, g, 4) == Approx(g.bytes / 20e6));
    const CpuWork mm = cpu_work_gemm(2048, 2048, 2048, 8, false);
    CHECK(predict_cpu_ms(m, mm, 8) == Approx(mm.flops / 200e6));
    CHECK(mm.flops == Approx(2.0 * 2048 * 2048 * 2048));
    CHECK(cpu_work_gemm(3, 5, 7, 4, true).bytes == Approx(4.0 * (21 + 35 + 30)));
}

TEST_CASE("CPU model: every op's time grows with its size, and with the element size", "[cpu][split]") {
    const CpuMachine m = cpu_machine("test", 4, 10.0, 100.0, 50.0);
    double last[6] = {0, 0, 0, 0, 0, 0};
    for (long long n = 16; n <= 8192; n *= 2) {
        const double t[6] = {predict_cpu_ms(m, cpu_work_gemv(false, n, n, 4, true), 4),
                             predict_cpu_ms(m, cpu_work_gemm(n, n, n, 4, false), 4),
                             predict_cpu_ms(m, cpu_work_symv(n, 8), 8),
                             predict_cpu_ms(m, cpu_work_conv2d(n, n, 5, 4), 4),
                             predict_cpu_ms(m, cpu_work_cg_iteration(n, 8), 8),
                             predict_cpu_ms(m, cpu_work_gemv(true, n, n, 8, false), 8)};
        for (int i = 0; i < 6; ++i) {
            INFO("op " << i << " n " << n);
            CHECK(t[i] > last[i]);
            last[i] = t[i];
        }
        CHECK(predict_cpu_ms(m, cpu_work_gemv(false, n, n, 8, true), 8) >
              predict_cpu_ms(m, cpu_work_gemv(false, n, n, 4, true), 4));
    }
}

TEST_CASE("CPU model: the measurement covers every working set up to the largest", "[cpu][split]") {
    // Working sets 1 ... 16 MiB: the curve's points and its DRAM figure, not their values (the
    // tests run in parallel with others, so no ratio between the figures is asserted).
    const CpuMachine m = measure_cpu_machine(2, 16, 1);
    CHECK(m.threads == 2);
    REQUIRE(m.bandwidth.size() == 5);
    const double MiB = 1024.0 * 1024.0;
    for (std::size_t i = 0; i < m.bandwidth.size(); ++i) {
        CHECK(m.bandwidth[i].ws_bytes == (1 << i) * MiB);
        CHECK(m.bandwidth[i].value > 0.1);
    }
    CHECK(m.bandwidth_gbs == m.bandwidth.back().value);
    CHECK(m.fp32_gflops > 0.1);
    CHECK(m.fp64_gflops > 0.1);
    CHECK(m.llc_bytes > 0);
    CHECK_FALSE(m.llc_source.empty());
    CHECK(to_string(m).find("2 threads") != std::string::npos);
}

TEST_CASE("CPU model: the working sets measured span 1 MiB to the largest, no two closer than 1.5x", "[cpu][split]") {
    const double MiB = 1024.0 * 1024.0;
    CHECK(bandwidth_working_sets(1 * MiB) == std::vector<double>{1 * MiB});
    CHECK(bandwidth_working_sets(256 * MiB).size() == 9);
    const auto odd = bandwidth_working_sets(300 * MiB);  // ..., 128 MiB, then 300 (256 is dropped: too close)
    CHECK(odd.back() == 300 * MiB);
    CHECK(odd[odd.size() - 2] == 128 * MiB);
    const auto near = bandwidth_working_sets(400 * MiB);  // 256 and 400 are 1.56x apart: both kept
    CHECK(near[near.size() - 2] == 256 * MiB);
    // the default largest set: 4 LLCs within [256 MiB, 1 GiB]
    CHECK(default_max_working_set(32 * MiB) == 256 * MiB);
    CHECK(default_max_working_set(105 * MiB) == 420 * MiB);
    CHECK(default_max_working_set(320 * MiB) == 1024 * MiB);
    CHECK_THROWS_WITH(bandwidth_working_sets(1000), "bandwidth_working_sets: max_ws_bytes (1000) must be >= 1 MiB");
}

TEST_CASE("CPU model: a working set reads at the bandwidth of the level it lives in", "[cpu][split]") {
    const double MiB = 1024.0 * 1024.0;
    const std::vector<WsPoint> curve{{1 * MiB, 800}, {32 * MiB, 400}, {512 * MiB, 50}};
    CHECK(interpolate_ws(curve, 0.1 * MiB) == 800);  // below the first point: its value
    CHECK(interpolate_ws(curve, 32 * MiB) == Approx(400));
    CHECK(interpolate_ws(curve, 128 * MiB) == Approx(400 - 350 * 0.5));  // half-way in log(ws) from 32 to 512
    CHECK(interpolate_ws(curve, 4096 * MiB) == 50);  // beyond the last: DRAM
    CHECK(interpolate_ws({{5.0, 7.0}}, 1e9) == 7.0);
    CHECK_THROWS_WITH(interpolate_ws({}, 1), "interpolate_ws: points must not be empty");
    CHECK_THROWS_AS(interpolate_ws({{2, 1}, {1, 1}}, 1), std::invalid_argument);
    CHECK_THROWS_AS(interpolate_ws({{0, 1}}, 1), std::invalid_argument);

    CpuMachine m = cpu_machine("t", 4, 50, 1000, 500);
    m.bandwidth = curve;
    // GEMV n = 2048 float: 16 MiB, between the first two points.
    const CpuWork g = cpu_work_gemv(false, 2048, 2048, 4, false);
    const double b = 800 + (400 - 800) * std::log(g.bytes / MiB) / std::log(32.0);
    CHECK(m.bandwidth_at(g.bytes) == Approx(b));
    CHECK(predict_cpu_ms(m, g, 4) == Approx(g.bytes / (b * 1e6)));
}

TEST_CASE("CPU model: a peer class is its t0 plus the roofline over its efficiency", "[cpu][split]") {
    const double MiB = 1024.0 * 1024.0;
    CpuMachine m = cpu_machine("t", 4, 50, 1000, 500);
    m.peers[peer_key("gemm", 8)] = {0.01, {{64 * MiB, 0.8}}};
    m.peers[peer_key("gemv", 4)] = {0.002, {{8 * MiB, 0.5}, {512 * MiB, 0.9}}};
    const CpuWork mm = cpu_work_gemm(1024, 1024, 1024, 8, false);
    CHECK(predict_peer_ms(m, "gemm double", mm, 8) == Approx(0.01 + mm.flops / 500e6 / 0.8));
    // one efficiency point: the same at every working set
    const CpuWork small = cpu_work_gemm(16, 16, 16, 8, false);
    CHECK(predict_peer_ms(m, "gemm double", small, 8) == Approx(0.01 + predict_cpu_ms(m, small, 8) / 0.8));
    // two points: interpolated in log(ws) (64 MiB lies half-way from 8 to 512 MiB)
    const CpuWork g = {64 * MiB, 1.0};
    CHECK(predict_peer_ms(m, "gemv float", g, 4) == Approx(0.002 + g.bytes / 50e6 / 0.7));
    // a class not measured: the roofline
    CHECK(predict_peer_ms(m, "symv float", g, 4) == Approx(predict_cpu_ms(m, g, 4)));
    CHECK(peer_key("gemv", 4) == "gemv float");
    CHECK(peer_key("conv2d", 8, 9) == "conv2d FS9 double");
    CHECK(peer_key("cg vectors", 8) == "cg vectors double");
}

TEST_CASE("CPU model: the host's last-level cache is found", "[cpu][split]") {
    const LlcInfo llc = host_llc();
    CHECK(llc.bytes >= 256 * 1024.0);  // every x86 host of the last decade has more
    CHECK_FALSE(llc.source.empty());
}

TEST_CASE("CPU model: argument rules", "[cpu][split]") {
    CHECK_THROWS_WITH(cpu_machine("x", 0, 1, 1, 1), "cpu_machine: threads (0) must be >= 1");
    CHECK_THROWS_WITH(cpu_machine("x", 1, 0, 1, 1), "cpu_machine: bandwidth_gbs (0) must be finite and > 0");
    CHECK_THROWS_WITH(measure_cpu_machine(-1), "measure_cpu_machine: threads (-1) must be >= 0");
    CHECK_THROWS_AS(predict_cpu_ms(CpuMachine{}, {1, 1}, 4), std::invalid_argument);
}

TEST_CASE("CPU model: OpenBLAS's threading rule and the regime a call is predicted in", "[cpu][split]") {
    // The rule's edges (its interface files): GEMV threads from m n = 9216, SYMV from n = 200,
    // GEMM above m n k = 262144.
    CHECK(openblas_single_thread_gemv(95, 95));
    CHECK_FALSE(openblas_single_thread_gemv(96, 96));
    CHECK(openblas_single_thread_gemv(9215, 1));
    CHECK_FALSE(openblas_single_thread_gemv(4608, 2));
    CHECK(openblas_single_thread_symv(199));
    CHECK_FALSE(openblas_single_thread_symv(200));
    CHECK(openblas_single_thread_gemm(64, 64, 64));
    CHECK_FALSE(openblas_single_thread_gemm(65, 64, 64));
    CHECK(cpu_work_gemv(false, 64, 64, 4, false).single_thread);
    CHECK_FALSE(cpu_work_gemv(false, 128, 128, 4, false).single_thread);
    CHECK(cpu_work_symv(128, 8).single_thread);
    CHECK_FALSE(cpu_work_gemm(128, 128, 128, 8, false).single_thread);
    CHECK_FALSE(cpu_work_conv2d(8, 8, 3, 4).single_thread);  // our OpenMP convolution: always threaded
    CHECK(single_thread_key("gemv float") == "gemv float 1t");

    // A class with both regimes: a small call at the single-thread class's t0 and efficiency, a
    // larger one at the threaded class's (several microseconds of hand-off).
    CpuMachine m = cpu_machine("t", 16, 100, 1000, 500);
    m.peers["gemv float 1t"] = {0.0001, {{36e3, 0.05}}};
    m.peers["gemv float"] = {0.0035, {{1e5, 0.3}, {1e8, 0.8}}};
    const CpuWork small = cpu_work_gemv(false, 64, 64, 4, false), big = cpu_work_gemv(false, 128, 128, 4, false);
    CHECK(predict_peer_ms(m, "gemv float", small, 4) == Approx(0.0001 + predict_cpu_ms(m, small, 4) / 0.05));
    CHECK(predict_peer_ms(m, "gemv float", big, 4) == Approx(0.0035 + predict_cpu_ms(m, big, 4) / 0.3));
    // a class whose single-thread regime was not measured: its threaded class at every size
    m.peers.erase("gemv float 1t");
    CHECK(predict_peer_ms(m, "gemv float", small, 4) == Approx(0.0035 + predict_cpu_ms(m, small, 4) / 0.3));
}

TEST_CASE("CPU model: the share of a working set read from DRAM", "[cpu][split]") {
    const double MiB = 1024.0 * 1024.0, llc = 300 * MiB;
    CHECK(dram_share(llc, 1 * MiB) == 0);
    CHECK(dram_share(llc, 150 * MiB) == 0);  // half the LLC: stays there
    CHECK(dram_share(llc, 300 * MiB) == Approx(0.5));  // half-way in log(ws) from LLC/2 to 2 LLC
    CHECK(dram_share(llc, 600 * MiB) == 1);
    CHECK(dram_share(llc, 4096 * MiB) == 1);
    CHECK(dram_share(0, 1 * MiB) == 1);  // the LLC unknown: every byte from DRAM
    // monotone between
    double last = -1;
    for (double ws = 100 * MiB; ws < 700 * MiB; ws *= 1.1) {
        const double s = dram_share(llc, ws);
        CHECK(s >= last);
        last = s;
    }
}

TEST_CASE("CPU model: the bandwidth curve in the log, and the read load of the host-memory measurement", "[cpu][split]") {
    const double MiB = 1024.0 * 1024.0;
    CpuMachine m = cpu_machine("t", 2, 50, 100, 50);
    m.bandwidth = {{1 * MiB, 474.24}, {2 * MiB, 101.5}};
    CHECK(curve_to_string(m) == "read GB/s by working set: 1 MiB 474.2, 2 MiB 101.5");
    CHECK(curve_to_string(cpu_machine("u", 2, 50, 100, 50)) == "read GB/s by working set: every set 50.0");
    ReadLoad load(2, 2 * MiB);
    CHECK(load.run(0.01) > 0.1);
    CHECK_THROWS_WITH(ReadLoad(0, 2 * MiB), "ReadLoad: threads (0) must be >= 1");
    CHECK_THROWS_AS(ReadLoad(2, 1000), std::invalid_argument);
}
