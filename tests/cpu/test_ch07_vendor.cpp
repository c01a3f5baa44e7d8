// Chapter 7's GEMM beside the vendor's host-memory GEMM (chapters/ch07_split/split_vendor.hpp): the
// better of each side, the verdict lines per precision, on hand-made rows; the timing's argument rules.
#include "catch.hpp"

#include "split_measure.hpp"
#include "split_vendor.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace {

using wb::ch07::VendorRow;

VendorRow row(std::size_t elem, int n, double gpu, double hybrid, double xt, double xt_cpu) {
    VendorRow r;
    r.c = wb::ch07::Case{"gemm", n, elem, 0};
    r.gpu_ms = gpu;
    r.hybrid_ms = hybrid;
    r.xt_ms = xt;
    r.xt_cpu_ms = xt_cpu;
    r.cpu_ratio = std::isnan(hybrid) ? NAN : 0.05;
    return r;
}

}  // namespace

TEST_CASE("chapter 7 vendor: the better of ours and of cuBLASXt's, NaN only where neither ran", "[cpu][ch07]") {
    CHECK(wb::ch07::ours_best_ms(row(4, 64, 0.03, NAN, 0.2, NAN)) == 0.03);
    CHECK(wb::ch07::ours_best_ms(row(4, 2048, 1.3, 1.2, 1.5, 1.4)) == 1.2);
    CHECK(wb::ch07::vendor_best_ms(row(4, 2048, 1.3, 1.2, 1.5, 1.4)) == 1.4);
    CHECK(wb::ch07::vendor_best_ms(row(4, 2048, 1.3, 1.2, 1.1, NAN)) == 1.1);
    CHECK(std::isnan(wb::ch07::ours_best_ms(row(8, 16, NAN, NAN, 0.1, NAN))));
}

TEST_CASE("chapter 7 vendor: one line per precision, the median of ours over the vendor's", "[cpu][ch07]") {
    const std::vector<VendorRow> rows{
        row(4, 64, 0.03, NAN, 0.06, NAN),   // 0.5, ours faster
        row(4, 1024, 0.3, 0.35, 0.4, 0.5),  // 0.75, ours faster; the CPU share slower
        row(4, 4096, 6.0, 5.0, 4.0, 3.0),   // 5 / 3, the vendor faster; its CPU share faster
        row(8, 128, NAN, NAN, 0.1, NAN),    // ours not timed: left out
        row(8, 256, 0.2, NAN, 0.1, NAN),    // 2.0
        row(8, 512, 0.4, 0.3, 0.2, 0.25),   // 1.5; the CPU share slower
    };
    const std::vector<std::string> lines = wb::ch07::vendor_lines(rows);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] ==
          "float, n = 64 ... 4096: ours (the better of GPU+comm and the hybrid) over cuBLASXt's better, median 0.750 over 3 "
          "sizes; ours faster at 2 of 3; cuBLASXt's CPU share faster than its GPU alone at 1 of 2");
    CHECK(lines[1] ==
          "double, n = 256 ... 512: ours (the better of GPU+comm and the hybrid) over cuBLASXt's better, median 1.750 over 2 "
          "sizes; ours faster at 0 of 2; cuBLASXt's CPU share faster than its GPU alone at 0 of 1");
    CHECK(wb::ch07::vendor_lines({row(8, 128, NAN, NAN, 0.1, NAN)}).empty());
    // no size with a CPU share: the line says nothing of it
    CHECK(wb::ch07::vendor_lines({row(4, 16, 0.02, NAN, 1.0, NAN)}) ==
          std::vector<std::string>{"float, n = 16 ... 16: ours (the better of GPU+comm and the hybrid) over cuBLASXt's "
                                   "better, median 0.020 over 1 size; ours faster at 1 of 1"});
}

TEST_CASE("chapter 7 vendor: measure_vendor_gemm refuses what it cannot time, before any call", "[cpu][ch07]") {
    using wb::ch07::Case;
    const std::vector<Case> gemm{{"gemm", 64, 4, 0}, {"gemm", 128, 4, 0}};
    CHECK(wb::ch07::measure_vendor_gemm({}, {}, {}, {}).empty());
    CHECK_THROWS_WITH(wb::ch07::measure_vendor_gemm(gemm, {0}, {1, 1}, {0, 0}),
                      "ch07 measure_vendor_gemm: gpu_parts (1), chunks (2) and pieces (2) must have one entry per case (2)");
    CHECK_THROWS_WITH(wb::ch07::measure_vendor_gemm({{"gemv", 64, 4, 0}}, {0}, {1}, {0}),
                      "ch07 measure_vendor_gemm: cases must be GEMMs of one precision (gemv, 4-byte elements)");
    CHECK_THROWS_WITH(wb::ch07::measure_vendor_gemm({{"gemm", 64, 4, 0}, {"gemm", 64, 8, 0}}, {0, 0}, {1, 1}, {0, 0}),
                      "ch07 measure_vendor_gemm: cases must be GEMMs of one precision (gemm, 8-byte elements)");
}
