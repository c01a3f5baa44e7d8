// The CPU model (common/model/cpu.hpp): the roofline time from bytes and flops, its monotone
// growth with size for every op, which limit binds where, the measurement's sanity on this host
// (a small buffer: well under a second), and the argument rules.
#include "catch.hpp"

#include "model/cpu.hpp"

#include <stdexcept>

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

TEST_CASE("CPU model: the measurement gives positive, ordered figures on this host", "[cpu][split]") {
    // A small buffer: a sanity check, not a figure (the tests run in parallel with others, so no
    // ratio between the figures is asserted).
    const CpuMachine m = measure_cpu_machine(2, 16, 1);
    CHECK(m.threads == 2);
    CHECK(m.bandwidth_gbs > 0.1);
    CHECK(m.fp32_gflops > 0.1);
    CHECK(m.fp64_gflops > 0.1);
    CHECK(to_string(m).find("2 threads") != std::string::npos);
}

TEST_CASE("CPU model: argument rules", "[cpu][split]") {
    CHECK_THROWS_WITH(cpu_machine("x", 0, 1, 1, 1), "cpu_machine: threads (0) must be >= 1");
    CHECK_THROWS_WITH(cpu_machine("x", 1, 0, 1, 1), "cpu_machine: bandwidth_gbs (0) must be finite and > 0");
    CHECK_THROWS_WITH(measure_cpu_machine(-1), "measure_cpu_machine: threads (-1) must be >= 0");
    CHECK_THROWS_AS(predict_cpu_ms(CpuMachine{}, {1, 1}, 4), std::invalid_argument);
}
