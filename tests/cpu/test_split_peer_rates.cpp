// The CPU peer classes' calibration (kernels/cpu/peer_rates.hpp) at small sizes on this host: every
// class of the run is measured (its key, t0, an efficiency point per working set it was measured
// at), and the calibration's sizes follow the LLC.
#include "catch.hpp"

#include "cpu_peers.hpp"
#include "peer_rates.hpp"

#include <string>

TEST_CASE("peer rates: the calibration sizes follow the last-level cache", "[cpu][split]") {
    const double MiB = 1024.0 * 1024.0;
    wb::model::CpuMachine m = wb::model::cpu_machine("t", 2, 10, 10, 10);
    m.llc_bytes = 96 * MiB;
    const auto s = wb::cpu::default_calibration_sizes(m);
    CHECK(s.ws_cache == 24 * MiB);
    CHECK(s.ws_dram == 384 * MiB);
    m.llc_bytes = 0;  // unknown: 32 MiB assumed
    CHECK(wb::cpu::default_calibration_sizes(m).ws_cache == 8 * MiB);
    // the n whose call works on a working set: GEMV's matrix, SYMV's stored triangle
    CHECK(wb::cpu::gemv_n_for(64 * MiB, 4) == 4096);
    CHECK(wb::cpu::symv_n_for(32 * MiB, 4) == 4096);
    CHECK(wb::cpu::gemv_n_for(1, 8) == 8);
}

TEST_CASE("peer rates: every class of the run is measured at its working sets", "[cpu][split]") {
    wb::model::CpuMachine m = wb::model::measure_cpu_machine(2, 4, 1);
    const double MiB = 1024.0 * 1024.0;
    wb::cpu::CalibrationSizes s;
    s.ws_cache = 1 * MiB;
    s.ws_dram = 4 * MiB;
    s.gemm_n = 96;
    s.conv_n = 128;
    s.vec_n = 4096;
    const auto log = wb::cpu::calibrate_peer_rates(m, {3, 9}, s);
    std::vector<std::string> keys{"conv2d FS3 float", "conv2d FS9 float", "conv2d FS3 double", "conv2d FS9 double"};
    if (wb::cpu::have_cblas())
        for (const char* k : {"gemv float", "symv float", "gemm float", "cg vectors float", "gemv double",
                              "symv double", "gemm double", "cg vectors double"})
            keys.push_back(k);
    CHECK(log.size() == keys.size());
    for (const auto& k : keys) {
        INFO(k);
        REQUIRE(m.peers.count(k) == 1);
        const auto& r = m.peers.at(k);
        CHECK(r.fixed_ms >= 0);
        const bool two_levels = k.rfind("gemv", 0) == 0 || k.rfind("symv", 0) == 0;
        REQUIRE(r.efficiency.size() == (two_levels ? 2u : 1u));
        for (const auto& p : r.efficiency) CHECK(p.value > 0);
        if (two_levels) {  // in the cache, then beyond it: about 1 MiB and 4 MiB of operands
            CHECK(r.efficiency[0].ws_bytes == Approx(1 * MiB).epsilon(0.02));
            CHECK(r.efficiency[1].ws_bytes == Approx(4 * MiB).epsilon(0.02));
        }
    }
}
