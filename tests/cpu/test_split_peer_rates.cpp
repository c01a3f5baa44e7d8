// The CPU peer classes' calibration (kernels/cpu/peer_rates.hpp) at small sizes on this host: every
// class of the run is measured in each regime of its library's threading rule (the single-thread
// one at the rule's edge, the threaded one on a grid of working sets), and the calibration's sizes
// follow the LLC, never the table's powers of two.
#include "catch.hpp"
#include "small_calibration.hpp"

#include "cpu_peers.hpp"
#include "peer_rates.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

TEST_CASE("peer rates: the calibration sizes follow the last-level cache", "[cpu][split]") {
    const double MiB = 1024.0 * 1024.0;
    wb::model::CpuMachine m = wb::model::cpu_machine("t", 2, 10, 10, 10);
    m.llc_bytes = 96 * MiB;
    const auto s = wb::cpu::default_calibration_sizes(m);
    CHECK(s.ws_dram == 384 * MiB);
    CHECK(s.step == 2);
    m.llc_bytes = 0;  // unknown: 32 MiB assumed
    CHECK(wb::cpu::default_calibration_sizes(m).ws_dram == 256 * MiB);
    // the n whose call works on a working set: GEMV's matrix, SYMV's stored triangle
    CHECK(wb::cpu::gemv_n_for(64 * MiB, 4) == 4096);
    CHECK(wb::cpu::symv_n_for(32 * MiB, 4) == 4096);
    CHECK(wb::cpu::gemv_n_for(1, 8) == 8);
}

TEST_CASE("peer rates: the grid's extent follows the best rate a point reached, not a disturbed last one",
          "[cpu][split]") {
    using wb::cpu::expected_point_ms;
    // The H200 host's float GEMM class (2026-11-30): fixed cost 6.4 us; n = 219 took 0.077 ms
    // (roofline 0.0276 ms), n = 439 met disturbed calls, 6.5 ms (roofline 0.222 ms); the next
    // point, n = 877, has a roofline of 1.77 ms. From the last point alone it would be expected at
    // 51.8 ms, over the 50 ms cap; at the best rate, 2.56 ms per roofline ms, at 4.5 ms.
    const std::vector<std::pair<double, double>> points{{0.077, 0.0276}, {6.5, 0.222}};
    const double t = expected_point_ms(0.0064, points, 1.77);
    CHECK(t == Approx(0.0064 + 1.77 * (0.077 - 0.0064) / 0.0276).epsilon(1e-12));
    CHECK(t < 5.0);
    CHECK(0.0064 + (6.5 - 0.0064) * 1.77 / 0.222 > 50.0);  // the last point's rule would stop here
    // the best of the points, whichever its place; a point at the fixed cost predicts the fixed cost
    CHECK(expected_point_ms(1.0, {{3.0, 1.0}, {5.0, 4.0}}, 8.0) == Approx(1.0 + 8.0 * 1.0));
    CHECK(expected_point_ms(1.0, {{0.5, 1.0}}, 8.0) == Approx(1.0));
    CHECK(expected_point_ms(1.0, {}, 8.0) == 0.0);  // nothing timed: no bound yet
    CHECK_THROWS_AS(expected_point_ms(1.0, {{0.0, 1.0}}, 8.0), std::invalid_argument);
    CHECK_THROWS_AS(expected_point_ms(1.0, {{1.0, 1.0}}, 0.0), std::invalid_argument);
}

TEST_CASE("peer rates: the grid of working sets and its aligned sizes", "[cpu][split]") {
    using wb::cpu::grid_working_sets;
    // start x first, then a factor `step` apart (here 4), and the last set itself where the grid stops short of
    // it by more than 1.5x
    CHECK(grid_working_sets(1, 100, 3, 4) == std::vector<double>{3, 12, 48, 100});
    CHECK(grid_working_sets(1, 60, 3, 4) == std::vector<double>{3, 12, 48});  // 48 x 1.5 > 60: not added
    CHECK(grid_working_sets(1, 2, 3, 4) == std::vector<double>{2});
    CHECK_THROWS_AS(grid_working_sets(0, 100, 3, 4), std::invalid_argument);
    CHECK_THROWS_AS(grid_working_sets(1, 100, 3, 1), std::invalid_argument);
    // multiples of 32 from 128 on; smaller n as they are
    CHECK(wb::cpu::aligned_n(130.4, 32) == 128);
    CHECK(wb::cpu::aligned_n(150, 32) == 160);
    CHECK(wb::cpu::aligned_n(50.2, 32) == 50);
    CHECK(wb::cpu::aligned_n(0.2, 32) == 1);
}

TEST_CASE("peer rates: the grid holds the LLC's bracket", "[cpu][split]") {
    using wb::cpu::llc_bracket;
    const std::vector<double> grid{3, 12, 48, 192, 768};
    // half, one and two LLCs; the inner points within sqrt(2) of them (48, 192) give way, the ends stay
    CHECK(llc_bracket(grid, 100) == std::vector<double>{3, 12, 50, 100, 200, 768});
    // only the bracket's points inside the grid's range; an end next to one stays beside it
    CHECK(llc_bracket({3, 12, 48}, 40) == std::vector<double>{3, 12, 20, 40, 48});
    CHECK(llc_bracket(grid, 0) == grid);  // the LLC unknown
    CHECK(llc_bracket({}, 100).empty());
    // the calibration's sizes carry the machine's LLC
    wb::model::CpuMachine m = wb::model::cpu_machine("t", 2, 10, 10, 10);
    m.llc_bytes = 300.0 * 1024 * 1024;
    CHECK(wb::cpu::default_calibration_sizes(m).llc_bytes == m.llc_bytes);
}

TEST_CASE("peer rates: the single-thread regime's sizes end at the rule's edge", "[cpu][split]") {
    using wb::cpu::single_thread_sizes;
    auto symv_ws = [](int n) { return wb::model::cpu_work_symv(n, 4).bytes; };
    auto symv_n = [](double ws) { return std::sqrt(2 * ws / 4); };
    // SYMV float from n = 8 (240 B): 3x, then 4x apart (n about 2x apart), then n = 199 itself
    CHECK(single_thread_sizes(8, 199, symv_ws, symv_n, 3, 4) == std::vector<int>{19, 38, 76, 152, 199});
    // GEMM float: the grid's last set (n = 55) is within 1.5x of the edge's; the edge is still the last size
    auto gemm_ws = [](int n) { return wb::model::cpu_work_gemm(n, n, n, 4, false).bytes; };
    auto gemm_n = [](double ws) { return std::sqrt(ws / 12); };
    CHECK(single_thread_sizes(8, 64, gemm_ws, gemm_n, 3, 4) == std::vector<int>{14, 28, 55, 64});
    // an edge next to the tiny call: the edge alone
    CHECK(single_thread_sizes(8, 9, symv_ws, symv_n, 3, 4) == std::vector<int>{9});
    CHECK_THROWS_AS(single_thread_sizes(8, 8, symv_ws, symv_n, 3, 4), std::invalid_argument);
    CHECK_THROWS_AS(single_thread_sizes(0, 8, symv_ws, symv_n, 3, 4), std::invalid_argument);
}

TEST_CASE("peer rates: every class of the run is measured in each of its regimes", "[cpu][split]") {
    wb::model::CpuMachine m = wb::model::measure_cpu_machine(2, 4, 1);
    const wb::cpu::CalibrationSizes s = wb::test::small_calibration_sizes();
    const auto log = wb::cpu::calibrate_peer_rates(m, {3, 9}, s);
    std::vector<std::string> keys{"conv2d FS3 float", "conv2d FS9 float", "conv2d FS3 double", "conv2d FS9 double"};
    std::vector<std::string> blas;  // the classes with a single-thread regime
    if (wb::cpu::have_cblas())
        for (const char* k : {"gemv float", "symv float", "gemm float", "cg iteration float", "gemv double", "symv double",
                              "gemm double", "cg iteration double"})
            blas.push_back(k);
    for (const auto& k : blas) keys.push_back(k);
    if (wb::cpu::have_cblas())  // threaded only: CG's vector calls, the hybrid GEMM's CPU share
        for (const char* k : {"cg vectors float", "cg vectors double", "gemm share float", "gemm share double"})
            keys.push_back(k);
    // one line per regime, per precision the CG iteration's sequence over its calls alone, and per
    // precision the host's drift over the calibration (each class's middle point timed again)
    const std::size_t over = wb::cpu::have_cblas() ? 2 : 0, drift = 2;
    CHECK(log.size() == keys.size() + blas.size() + over + drift);
    std::size_t over_lines = 0, drift_lines = 0;
    for (const auto& l : log) {
        over_lines += l.find(": the sequence over its calls timed alone") != std::string::npos;
        if (l.find("timed again at the end of their calibration") != std::string::npos) {
            ++drift_lines;
            CHECK(l.find("conv2d FS9") != std::string::npos);  // every class is timed again
            CHECK(l.find("median |ratio - 1|") != std::string::npos);
        }
    }
    CHECK(over_lines == over);
    CHECK(drift_lines == drift);
    for (const auto& k : keys) {
        INFO(k);
        REQUIRE(m.peers.count(k) == 1);
        const auto& r = m.peers.at(k);
        CHECK(r.fixed_ms > 0);
        // the threaded regime's grid: several working sets, increasing, none beyond the largest
        REQUIRE(r.efficiency.size() >= 2);
        for (std::size_t i = 0; i < r.efficiency.size(); ++i) {
            CHECK(r.efficiency[i].value > 0);
            CHECK(r.efficiency[i].ws_bytes <= s.ws_dram * 1.1);  // 4 MiB, its n rounded to a multiple of 32
            if (i > 0) CHECK(r.efficiency[i].ws_bytes > r.efficiency[i - 1].ws_bytes);
        }
    }
    for (const auto& k : blas) {  // the single-thread regime: a grid of points up to the rule's edge
        INFO(k);
        const std::string k1 = wb::model::single_thread_key(k);
        REQUIRE(m.peers.count(k1) == 1);
        const auto& r1 = m.peers.at(k1);
        REQUIRE(r1.efficiency.size() >= 3);
        for (std::size_t i = 0; i < r1.efficiency.size(); ++i) {
            CHECK(r1.efficiency[i].value > 0);
            if (i > 0) CHECK(r1.efficiency[i].ws_bytes > r1.efficiency[i - 1].ws_bytes);
        }
        const std::size_t e = k.find("float") != std::string::npos ? 4 : 8;
        const double ws = k.rfind("gemv", 0) == 0   ? wb::model::cpu_work_gemv(false, 95, 95, e, false).bytes
                          : k.rfind("symv", 0) == 0 ? wb::model::cpu_work_symv(199, e).bytes
                          : k.rfind("cg", 0) == 0   ? wb::model::cpu_work_cg_iteration(199, e).bytes
                                                    : wb::model::cpu_work_gemm(64, 64, 64, e, false).bytes;
        CHECK(r1.efficiency.back().ws_bytes == ws);
        // Both regimes measured a fixed cost. Which is larger is a timing, not checked here: on a
        // shared 2-core CI machine a preempted tiny call read 1.3 ms against the pool's 0.005 ms
        // (the chapter's run on the GPU machine prints both).
        CHECK(r1.fixed_ms > 0);
        CHECK(std::isfinite(r1.fixed_ms));
    }
}

TEST_CASE("peer rates: SYMV's grid on a matrix of its own per size where asked", "[cpu][split]") {
    // Every array the calibration asks for goes through the allocator: with symv_own_arrays each
    // SYMV size's n x n matrix is one more request of n^2 elements, made once per size (float,
    // then double), and SYMV's grid is measured as before; without it no request of that kind.
    if (!wb::cpu::have_cblas()) {  // the SYMV class is not measured without CBLAS
        WARN("no CBLAS: SYMV's grid not measured");
        return;
    }
    const double MiB = 1024.0 * 1024.0;
    wb::cpu::CalibrationSizes s;
    s.ws_dram = 1 * MiB;
    s.vec_max_n = 512;
    s.max_call_s = 1;
    s.disturbed_retries = 0;  // a class timed again would ask for the shared arrays again
    auto run = [&](bool own, std::vector<std::size_t>& asked) {
        wb::model::CpuMachine m = wb::model::measure_cpu_machine(2, 4, 1);
        s.symv_own_arrays = own;
        const wb::cpu::HostAlloc count = [&asked](std::size_t bytes) {
            asked.push_back(bytes);
            auto drop = [](void* p) { delete[] static_cast<unsigned char*>(p); };
            return std::shared_ptr<void>(new unsigned char[bytes], drop);
        };
        wb::cpu::calibrate_peer_rates(m, {}, s, count);
        return m;
    };
    std::vector<std::size_t> shared, own;
    const wb::model::CpuMachine a = run(false, shared), b = run(true, own);
    REQUIRE(b.peers.count("symv float") == 1);
    REQUIRE(b.peers.count("symv double") == 1);
    // The SYMV grid's sizes: threaded from n = 200, each point's working set its stored triangle.
    std::size_t squares = 0;
    for (const char* key : {"symv float", "symv double"}) {
        INFO(key);
        const auto& grid = b.peers.at(key).efficiency;
        CHECK(grid.size() == a.peers.at(key).efficiency.size());
        const std::size_t e = std::string(key).find("float") != std::string::npos ? 4 : 8;
        for (const auto& p : grid) {
            CHECK(p.value > 0);
            const int n = wb::cpu::symv_n_for(p.ws_bytes, e);
            // one request of about n^2 elements and the BLAS tail (the grid's n is a multiple of 32
            // near symv_n_for's)
            const auto it = std::find_if(own.begin(), own.end(), [&](std::size_t bytes) {
                const std::size_t tail = wb::cpu::kBlasTailBytes;  // a whole number of floats and doubles
                if (bytes < tail) return false;
                const double k = std::sqrt(static_cast<double>(bytes - tail) / static_cast<double>(e));
                const std::size_t ik = static_cast<std::size_t>(std::lround(k));
                return std::abs(k - n) <= 32 && bytes - tail == ik * ik * e;
            });
            CHECK(it != own.end());
        }
        squares += grid.size();
    }
    // The requests beyond the shared arrays' (the same in both runs): SYMV's own, each size once
    // (a matrix made per call would repeat its size), at least every grid point's and the threaded
    // t0 call's (n = 200) in each precision, each n^2 elements of 4 or 8 bytes and the BLAS tail.
    std::multiset<std::size_t> extra(own.begin(), own.end());
    for (std::size_t b : shared) {
        const auto it = extra.find(b);
        REQUIRE(it != extra.end());  // every shared request is still made
        extra.erase(it);
    }
    CHECK(extra.size() >= squares + 2);
    for (std::size_t b : extra) {
        INFO(b << " bytes");
        CHECK(extra.count(b) == 1);
        const auto square_of = [b](std::size_t e) {  // b = n^2 e + the tail for a whole n
            const std::size_t tail = wb::cpu::kBlasTailBytes;  // a whole number of floats and doubles
            if (b < tail) return false;
            const auto n = static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(b - tail) / e)));
            return n * n * e == b - tail;
        };
        CHECK((square_of(4) || square_of(8)));
    }
}

TEST_CASE("calibrate_peer_classes measures the classes asked for and leaves the others", "[cpu][split]") {
    wb::model::CpuMachine m = wb::model::measure_cpu_machine(2, 4, 1);
    const wb::cpu::CalibrationSizes s = wb::test::small_calibration_sizes();
    // a poisoned entry of the class asked for, and one of a class not asked for
    const wb::model::PeerRate poison{-1.0, {{1.0, -1.0}}};
    m.peers["conv2d FS3 double"] = poison;
    m.peers["conv2d FS9 double"] = poison;
    m.peers["gemv double"] = poison;
    const auto want = [](const std::string& k) { return k == "conv2d FS3 double"; };
    const auto log = wb::cpu::calibrate_peer_classes(m, 8, {3}, s, want);
    REQUIRE(log.size() == 1);  // one regime, no drift line
    CHECK(log[0].rfind("conv2d FS3 double: t0 ", 0) == 0);
    const wb::model::PeerRate& r = m.peers.at("conv2d FS3 double");
    CHECK(r.fixed_ms > 0);
    REQUIRE_FALSE(r.efficiency.empty());
    for (const auto& p : r.efficiency) CHECK(p.value > 0);
    CHECK(m.peers.at("conv2d FS9 double").fixed_ms == -1.0);
    CHECK(m.peers.at("gemv double").fixed_ms == -1.0);
    CHECK(m.peers.count("conv2d FS3 float") == 0);
    if (wb::cpu::have_cblas()) {  // a BLAS class: both regimes, nothing of the other classes
        const auto gv = wb::cpu::calibrate_peer_classes(m, 8, {}, s, [](const std::string& k) { return k == "gemv double"; });
        REQUIRE(gv.size() == 2);
        CHECK(gv[0].rfind("gemv double 1t: t0 ", 0) == 0);
        CHECK(gv[1].rfind("gemv double: t0 ", 0) == 0);
        CHECK(m.peers.at("gemv double").fixed_ms > 0);
        CHECK(m.peers.count("symv double") == 0);
    }
    CHECK_THROWS_WITH(wb::cpu::calibrate_peer_classes(m, 2, {3}, s, want),
                      Catch::Contains("elem (2) must be 4 (float) or 8 (double)"));
    CHECK_THROWS_WITH(wb::cpu::calibrate_peer_classes(m, 4, {3}, s, {}), Catch::Contains("want must name the classes"));
}

TEST_CASE("peer rates: a calibration leaves no disturbed class unless its log says so", "[cpu][split]") {
    // On this busy build machine calls do meet preempted threads: whatever the calibration met,
    // every class it keeps is clean by disturbed_classes' t0 and e rules, or a "still disturbed"
    // line names it, and every class timed again was named first ("disturbed (...): timed again").
    wb::model::CpuMachine m = wb::model::measure_cpu_machine(2, 4, 1);
    wb::cpu::CalibrationSizes s = wb::test::small_calibration_sizes();
    s.disturbed_retries = 2;
    const auto log = wb::cpu::calibrate_peer_rates(m, {3}, s);
    std::vector<std::string> keys;
    for (const auto& [key, rate] : m.peers)
        if (key.size() < 3 || key.compare(key.size() - 3, 3, " 1t") != 0) keys.push_back(key);
    REQUIRE(keys.size() >= 2);
    std::string still, retimed;
    for (const auto& l : log) {
        if (l.rfind("still disturbed", 0) == 0) still += l;
        if (l.rfind("disturbed (", 0) == 0) {
            retimed += l;
            CHECK(l.find("): timed again (") != std::string::npos);
        }
    }
    for (const std::string& k : wb::cpu::disturbed_classes(m.peers, keys, {})) {
        INFO(k);
        CHECK(still.find(k) != std::string::npos);
        CHECK(retimed.find(k) != std::string::npos);
    }
}
