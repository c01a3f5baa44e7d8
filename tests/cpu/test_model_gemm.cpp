// The GEMM model (common/model/gemm): bounds, tail waves, and argument rules, on the h200 preset.
#include "catch.hpp"

#include "device_profile.hpp"
#include "model.hpp"
#include "model/gemm.hpp"

namespace {

using wb::model::GemmDesign;
using wb::model::predict_gemm;

GemmDesign tuned_design() {
    GemmDesign d;
    d.stage = wb::Stage::kTuned;
    d.tile_m = d.tile_n = 128;
    d.tile_k = 8;
    d.thread_m = d.thread_n = 8;
    d.warp_m = 64;
    d.warp_n = 32;
    d.threads = 256;
    d.load_width = 4;
    d.overhead = 0.05;
    d.regs_per_thread = 128;
    d.smem_per_block = 3 * 2 * 128 * 8 * 4;
    return d;
}

GemmDesign naive_design() {
    GemmDesign d;
    d.stage = wb::Stage::kNaive;
    d.tile_m = 32;
    d.tile_n = 8;
    d.threads = 256;
    d.overhead = 1.0;
    d.regs_per_thread = 32;
    d.operands_from_l1 = true;
    return d;
}

}  // namespace

TEST_CASE("gemm model: register blocking moves the bound from loads to the FMA lanes", "[cpu][model][gemm]") {
    const auto dev = wb::device_preset("h200");
    const auto tuned = predict_gemm(tuned_design(), 4096, 4096, 4096, 4, dev);
    const auto naive = predict_gemm(naive_design(), 4096, 4096, 4096, 4, dev);
    // 8x8 results per thread with 16-byte operand loads: 16 elements in 4 instructions per 64 FMAs.
    CHECK(tuned.operand_loads_per_fma == Approx(0.25));
    CHECK(tuned.issue_fraction == Approx(1.0 / (1.0 + 1.0 / 16 + 0.05)));
    CHECK(tuned.gflops > 0.8 * tuned.peak_gflops);
    CHECK(tuned.gflops < tuned.peak_gflops);
    // One result per thread: two operand loads per FMA from L1.
    CHECK(naive.operand_loads_per_fma == Approx(2.0));
    CHECK(naive.gflops < 0.2 * naive.peak_gflops);
    CHECK(naive.limit.find("L1") != std::string::npos);
    // Double: a warp's 32 elements of A are 256 bytes, two wavefronts, and B's 8-byte broadcast
    // two more (a 64-bit load is served a half-warp per wavefront, shared address or not). The
    // H200 measured the naive DGEMM at 34.2 ms (4096^3 NN, docs/results/h200/gemm-ladder.csv):
    // 4 wavefronts per FMA predict it within 5%, 3 would be 29% fast.
    const auto naive64 = predict_gemm(naive_design(), 4096, 4096, 4096, 8, dev);
    CHECK(naive64.limit.find("4.000 per FMA") != std::string::npos);
    // op(A) = A^T from global memory: each lane its own line, 32 wavefronts, plus B's broadcast:
    // 33 against 2 (float), 34 against 4 (double) wavefronts per FMA for op(A) = A.
    GemmDesign strided = naive_design();
    strided.strided_a = true;
    const auto tn32 = predict_gemm(strided, 4096, 4096, 4096, 4, dev);
    const auto tn64 = predict_gemm(strided, 4096, 4096, 4096, 8, dev);
    CHECK(tn32.gflops == Approx(naive.gflops * 2.0 / 33.0).epsilon(0.01));
    CHECK(tn64.gflops == Approx(naive64.gflops * 4.0 / 34.0).epsilon(0.01));
    CHECK(tuned.flops == Approx(2.0 * 4096.0 * 4096.0 * 4096.0));
}

TEST_CASE("gemm model: double precision is judged against the FP64 lanes", "[cpu][model][gemm]") {
    auto dev = wb::device_preset("h200");
    dev.sgemm_clock_mhz = dev.dgemm_clock_mhz = 0;  // one clock for both (the clock's own test is below)
    const auto f = predict_gemm(tuned_design(), 4096, 4096, 4096, 4, dev);
    const auto d = predict_gemm(tuned_design(), 4096, 4096, 4096, 8, dev);
    CHECK(d.peak_gflops == Approx(f.peak_gflops * dev.fp64_lanes_per_sm / dev.fp32_lanes_per_sm));
    CHECK(d.gflops < f.gflops);
}

TEST_CASE("gemm model: a GEMM runs at the SM clock its power leaves, per precision", "[cpu][model][gemm]") {
    auto dev = wb::device_preset("h200");
    dev.sgemm_clock_mhz = dev.dgemm_clock_mhz = 0;  // not measured: the boost clock
    const auto f0 = predict_gemm(tuned_design(), 4096, 4096, 4096, 4, dev);
    const auto d0 = predict_gemm(tuned_design(), 4096, 4096, 4096, 8, dev);
    REQUIRE(d0.limit.find("FMA lanes") != std::string::npos);  // compute-bound: every bound is SM clocks
    dev.dgemm_clock_mhz = 0.75 * dev.sm_clock_mhz;               // a DGEMM at its power limit
    const auto d1 = predict_gemm(tuned_design(), 4096, 4096, 4096, 8, dev);
    CHECK(d1.peak_gflops == Approx(0.75 * d0.peak_gflops));
    CHECK(d1.ms == Approx(d0.ms / 0.75).epsilon(0.01));         // the same clocks, each 1/0.75 as long
    // The float model keeps its own clock; a measured clock above the boost clock is no faster.
    CHECK(predict_gemm(tuned_design(), 4096, 4096, 4096, 4, dev).ms == Approx(f0.ms));
    dev.dgemm_clock_mhz = 1.2 * dev.sm_clock_mhz;
    CHECK(predict_gemm(tuned_design(), 4096, 4096, 4096, 8, dev).ms == Approx(d0.ms));
}

TEST_CASE("gemm model: the main loop runs at its measured share of the counted rate", "[cpu][model][gemm]") {
    auto dev = wb::device_preset("h200");
    dev.dgemm_clock_mhz = 0;
    GemmDesign d = tuned_design();
    d.tensor_core = true;
    d.load_width = 1;
    const auto full = predict_gemm(d, 4096, 4096, 4096, 8, dev);
    REQUIRE(full.limit.find("FMA lanes") != std::string::npos);  // the tensor cores' rate binds
    d.main_share = 0.8;
    const auto measured = predict_gemm(d, 4096, 4096, 4096, 8, dev);
    const double fixed = wb::model::kLaunchOverheadUs / 1e3;
    CHECK(measured.ms - fixed == Approx((full.ms - fixed) / 0.8).epsilon(0.01));
    // A share above 1 (a call faster than counted) is no faster than the count.
    d.main_share = 1.3;
    CHECK(predict_gemm(d, 4096, 4096, 4096, 8, dev).ms == Approx(full.ms));
    // The FMA tiles: the share divides their compute bounds' time (their issue slots bind here).
    GemmDesign f = tuned_design();
    const auto f1 = predict_gemm(f, 4096, 4096, 4096, 8, dev);
    REQUIRE(f1.limit.find("DRAM") == std::string::npos);
    f.main_share = 0.5;
    CHECK(predict_gemm(f, 4096, 4096, 4096, 8, dev).ms - fixed == Approx((f1.ms - fixed) / 0.5).epsilon(0.01));
    f.main_share = 1.3;
    CHECK(predict_gemm(f, 4096, 4096, 4096, 8, dev).ms == Approx(f1.ms));
}

TEST_CASE("gemm model: the op pair's measured rate slows the compute bounds, the copies add their time",
          "[cpu][model][gemm]") {
    const auto dev = wb::device_preset("h200");
    GemmDesign d = tuned_design();
    const auto nn = predict_gemm(d, 4096, 4096, 4096, 4, dev);
    REQUIRE(nn.limit.find("DRAM") == std::string::npos);  // a compute bound at 4096^3
    const double fixed = wb::model::kLaunchOverheadUs / 1e3;
    d.op_rate = 0.8;
    CHECK(predict_gemm(d, 4096, 4096, 4096, 4, dev).ms - fixed == Approx((nn.ms - fixed) / 0.8).epsilon(0.01));
    d.op_rate = 1;
    d.copies_ms = 0.25;
    CHECK(predict_gemm(d, 4096, 4096, 4096, 4, dev).ms == Approx(nn.ms + 0.25));
    // DRAM's time is the operands' bytes whatever the loop reads them with: k = 1 on a large C.
    GemmDesign e = tuned_design();
    const auto k1 = predict_gemm(e, 8192, 8192, 1, 4, dev);
    REQUIRE(k1.limit.find("DRAM") != std::string::npos);
    e.op_rate = 0.5;
    CHECK(predict_gemm(e, 8192, 8192, 1, 4, dev).ms == Approx(k1.ms));
}

TEST_CASE("gemm model: a grid smaller than one wave pays for its idle SMs", "[cpu][model][gemm]") {
    const auto dev = wb::device_preset("h200");
    // 2 x 2 blocks of 128 x 128 on 132 SMs: the waves are far below one.
    const auto small = predict_gemm(tuned_design(), 256, 256, 4096, 4, dev);
    CHECK(small.waves < 0.05);
    CHECK(small.gflops < 0.05 * small.peak_gflops);
    CHECK(small.limit.find("tail") != std::string::npos);
}

TEST_CASE("gemm model: empty products cost the launch only; bad arguments name the rule", "[cpu][model][gemm]") {
    const auto dev = wb::device_preset("h200");
    const auto e = predict_gemm(tuned_design(), 0, 100, 100, 4, dev);
    CHECK(e.ms == Approx(wb::model::kLaunchOverheadUs / 1e3));
    CHECK_THROWS_WITH(predict_gemm(tuned_design(), -1, 1, 1, 4, dev), Catch::Matchers::Contains("must be >= 0"));
    CHECK_THROWS_WITH(predict_gemm(tuned_design(), 1, 1, 1, 2, dev),
                      Catch::Matchers::Contains("elem_bytes (2) must be 4 or 8"));
    GemmDesign d = tuned_design();
    d.tile_k = 0;
    CHECK_THROWS_WITH(predict_gemm(d, 1, 1, 1, 4, dev), Catch::Matchers::Contains("must be positive"));
    d = tuned_design();
    d.smem_per_block = 1 << 20;
    CHECK_THROWS_AS(predict_gemm(d, 1, 1, 1, 4, dev), std::invalid_argument);
}

TEST_CASE("gemm model: a split k fills the SMs a small C leaves idle, and pays its partials' pass",
          "[cpu][model][gemm]") {
    const auto dev = wb::device_preset("h200");
    // 1024 x 1024 in 128 x 128 tiles: 64 blocks for 132 SMs, one wave with half the SMs idle.
    const auto one = predict_gemm(tuned_design(), 1024, 1024, 16384, 4, dev);
    GemmDesign split = tuned_design();
    split.split_k = 4;  // 256 blocks: every SM works
    const auto four = predict_gemm(split, 1024, 1024, 16384, 4, dev);
    CHECK(four.waves == Approx(4.0 * one.waves));
    CHECK(four.gflops > 1.5 * one.gflops);
    CHECK(four.limit.find("k split in 4") != std::string::npos);
    // The pass is not free: with k short, splitting loses to one wave of whole tiles.
    GemmDesign wide = tuned_design();
    wide.split_k = 16;
    const auto big_c = predict_gemm(tuned_design(), 8192, 8192, 256, 4, dev);
    const auto big_c_split = predict_gemm(wide, 8192, 8192, 256, 4, dev);
    CHECK(big_c_split.gflops < big_c.gflops);
}

