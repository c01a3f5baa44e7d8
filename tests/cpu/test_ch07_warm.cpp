// test_ch07_warm.cpp — copies of data the host's threads just read (split_warm.hpp): the run's line
// read back, the extra time of a copy, and the GEMM hybrid's GPU side priced with it.
#include "catch.hpp"
#include "ch07_run_files.hpp"

#include "split_cases.hpp"
#include "split_replay.hpp"
#include "split_warm.hpp"

#include <string>

namespace {
constexpr double kMiB = 1024.0 * 1024.0;

wb::ch07::WarmCopies flat(double warm, double cold) {
    wb::ch07::WarmCopies w;
    for (double b : wb::ch07::warm_copy_sizes()) {
        w.warm_gbs.push_back({b, warm});
        w.cold_gbs.push_back({b, cold});
    }
    return w;
}

}  // namespace

TEST_CASE("ch07 warm copies: the line read back, the extra time of a copy", "[cpu][ch07]") {
    wb::ch07::WarmCopies w;
    for (double b : wb::ch07::warm_copy_sizes()) {
        w.warm_gbs.push_back({b, b < 100 * kMiB ? 25.0 : 50.0});
        w.cold_gbs.push_back({b, 50.0});
    }
    const wb::ch07::WarmCopies r = wb::ch07::warm_copies_of_line("  " + wb::ch07::warm_copies_line(w));
    REQUIRE(r.measured());
    REQUIRE(r.warm_gbs.size() == 4);
    for (std::size_t k = 0; k < 4; ++k) {
        CHECK(r.warm_gbs[k].ws_bytes == Approx(w.warm_gbs[k].ws_bytes));
        CHECK(r.warm_gbs[k].value == Approx(w.warm_gbs[k].value));
        CHECK(r.cold_gbs[k].value == Approx(50.0));
    }
    CHECK_FALSE(wb::ch07::warm_copies_of_line("link H2D: Tx 55 GB/s").measured());
    // 16 MiB at 25 against 50 GB/s: 16 MiB / 50 GB/s more
    const double b16 = 16 * kMiB;
    CHECK(wb::ch07::warm_copy_extra_ms(w, b16) == Approx(b16 / 25e6 - b16 / 50e6));
    // beyond the largest size the nearest point's rates: as fast as cold, nothing extra
    CHECK(wb::ch07::warm_copy_extra_ms(w, 1024 * kMiB) == Approx(0.0).margin(1e-12));
    // between 64 and 256 MiB the warm rate is interpolated in log(size): 25 -> 50, 37.5 at 128 MiB
    CHECK(wb::ch07::warm_copy_extra_ms(w, 128 * kMiB) == Approx(128 * kMiB / 37.5e6 - 128 * kMiB / 50e6));
    // a warm copy faster than cold (noise) costs nothing extra; nothing measured or no bytes: 0
    CHECK(wb::ch07::warm_copy_extra_ms(flat(60, 50), b16) == 0.0);
    CHECK(wb::ch07::warm_copy_extra_ms(wb::ch07::WarmCopies{}, b16) == 0.0);
    CHECK(wb::ch07::warm_copy_extra_ms(w, 0) == 0.0);
    CHECK_THROWS_WITH(wb::ch07::measure_warm_copies(0), Catch::Contains("threads (0) and rounds (7) must be >= 1"));
}

TEST_CASE("ch07 warm copies: the GEMM hybrid's GPU side pays A's warm copy where a CPU share runs", "[cpu][ch07][replay]") {
    const char* stem = "h200-ch07-1222890";
    const std::string line = "  " + wb::ch07::warm_copies_line(flat(25, 50));
    const std::string flag =
        "  hybrid GEMM: A's copy priced at the rate of data the host's threads just read (its CPU share reads A while A is "
        "copied; --cold-a: the link's rate)";
    const auto [before, measured_only] = wb::test::ch07_machines_with_lines(stem, "Where each call runs", line);
    const wb::ch07::Machines after = wb::test::ch07_machines_with_lines(stem, "Where each call runs", line + "\n" + flag).second;
    CHECK_FALSE(before.warm_gemm_a);
    CHECK_FALSE(before.warm.measured());
    CHECK(measured_only.warm.measured());
    CHECK_FALSE(measured_only.warm_gemm_a);
    CHECK(after.warm_gemm_a);
    for (int n : {1024, 2048}) {
        INFO("gemm float " << n);
        const wb::ch07::Case c{"gemm", n, 4};
        const double A = static_cast<double>(n) * n * 4, extra = A / 25e6 - A / 50e6;
        const auto p0 = wb::ch07::predict_case(c, before), p1 = wb::ch07::predict_case(c, after);
        // the line alone moves nothing; the all-GPU call and the CPU copy nothing
        CHECK(wb::ch07::predict_case(c, measured_only).split.hybrid_ms == p0.split.hybrid_ms);
        CHECK(p1.split.gpu_ms == p0.split.gpu_ms);
        CHECK(p1.split.cpu_ms == p0.split.cpu_ms);
        // the GPU side at a share in (0, 1) is dearer by A's extra: the hybrid slower, its share lower
        REQUIRE(p0.has_hybrid_share());
        CHECK(p1.split.hybrid_ms > p0.split.hybrid_ms);
        CHECK(p1.split.hybrid_ms < p0.split.hybrid_ms + extra + 1e-9);
        CHECK(p1.split.gpu_share <= p0.split.gpu_share);
    }
    for (const wb::ch07::Case& other : {wb::ch07::Case{"gemv", 8192, 4}, wb::ch07::Case{"conv2d", 2048, 4, 9}}) {
        INFO(other.op);
        CHECK(wb::ch07::predict_case(other, after).split.hybrid_ms == wb::ch07::predict_case(other, before).split.hybrid_ms);
    }
}
