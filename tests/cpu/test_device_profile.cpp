// test_device_profile.cpp — the named device presets (t10, h100-sxm, h200) hold the values their
// sources give (White's dissertation Ch. 2-3, NVIDIA datasheets, the reference H200 run), and
// unknown names and devices are rejected with a message that names the rule.
#include "catch.hpp"

#include "device_profile.hpp"

#include <cmath>
#include <stdexcept>

using wb::device_preset;

TEST_CASE("device_preset_names lists the three presets, each of which loads", "[model][device_profile]") {
    const auto names = wb::device_preset_names();
    REQUIRE(names == std::vector<std::string>{"t10", "h100-sxm", "h200"});
    for (const auto& n : names) {
        const auto p = device_preset(n);
        CHECK_FALSE(p.live);
        CHECK_FALSE(p.name.empty());
        CHECK(p.sm_count > 0);
        CHECK(p.max_threads_per_block <= p.max_threads_per_sm);
        CHECK(p.smem_per_block_bytes <= p.smem_per_sm_bytes);
        CHECK(p.bandwidth_gbs > 0);
        CHECK(p.latency_ns > 0);
        CHECK(p.reg_alloc_unit >= 1);
        CHECK(p.smem_alloc_unit >= 1);
    }
}

TEST_CASE("each preset names its card, and a live device's name maps to the preset it is", "[model][device_profile]") {
    for (const auto& n : wb::device_preset_names()) CHECK(device_preset(n).card == n);
    CHECK(wb::card_of_name("NVIDIA H200") == "h200");
    CHECK(wb::card_of_name("NVIDIA H200 NVL") == "h200");
    CHECK(wb::card_of_name("NVIDIA H100 80GB HBM3") == "h100-sxm");
    CHECK(wb::card_of_name("NVIDIA H100 SXM5 80GB") == "h100-sxm");
    CHECK(wb::card_of_name("NVIDIA H100 PCIe") == "");  // another card: its own memory system
    CHECK(wb::card_of_name("NVIDIA A100-SXM4-80GB") == "");
    CHECK(wb::card_of_name("") == "");
}

TEST_CASE("t10 preset matches White's Tesla T10", "[model][device_profile][white]") {
    const auto p = device_preset("t10");
    CHECK(p.sm_count == 30);
    CHECK(p.max_blocks_per_sm == 8);
    CHECK(p.max_threads_per_sm == 1024);
    CHECK(p.max_threads_per_block == 512);
    CHECK(p.regs_per_sm == 16384);
    CHECK(p.smem_per_sm_bytes == 16 * 1024);
    CHECK(p.partitions == 8);
    CHECK(p.partition_bytes == 256);
    CHECK(p.banks == 16);
    CHECK(p.transaction_threads == 16);
    CHECK(p.segment_bytes == 32);
    CHECK(p.fp32_lanes_per_sm == 8);
    // White §3.5.2: 792 MHz x 512 bit x 2 "is approximately 94GB/s" — in GiB/s.
    CHECK(p.bandwidth_gbs == Approx(101.376).epsilon(1e-9));
    CHECK(p.bandwidth_gbs * 1e9 / std::pow(2.0, 30) == Approx(94.4).margin(0.1));
    // 240 cores at 1.33 GHz, 2 flops per FMA.
    CHECK(p.fp32_peak_gflops() == Approx(30 * 8 * 2 * 1.33).epsilon(1e-9));
    // One double-precision unit per SM (compute 1.3): 30 x 2 x 1.33 GHz = 79.8 GFLOP/s.
    CHECK(p.fp64_lanes_per_sm == 1);
    CHECK(p.fp64_peak_gflops() == Approx(30 * 1 * 2 * 1.33).epsilon(1e-9));
}

TEST_CASE("Hopper presets: H100 SXM and H200 differ in L2 and bandwidth only", "[model][device_profile]") {
    const auto h100 = device_preset("h100-sxm");
    const auto h200 = device_preset("h200");
    for (const auto* p : {&h100, &h200}) {
        CHECK(p->sm_count == 132);
        CHECK(p->max_blocks_per_sm == 32);
        CHECK(p->max_threads_per_sm == 2048);
        CHECK(p->max_threads_per_block == 1024);
        CHECK(p->regs_per_sm == 65536);
        CHECK(p->smem_per_sm_bytes == 228 * 1024);
        CHECK(p->smem_per_block_bytes == 227 * 1024);
        CHECK(p->banks == 32);
        CHECK(p->partitions == 0);
        // Reference H200 run (shared/reference, 2026-11-22): "FP32 peak (128 lanes) 66.9 TFLOP/s".
        CHECK(p->fp32_peak_gflops() / 1000 == Approx(66.9).margin(0.05));
        // 64 FP64 lanes per SM (half the FP32 rate): 132 x 64 x 2 x 1.98 GHz = 33.45 TFLOP/s, the
        // datasheet's 34 TFLOP/s FP64 for H100 SXM (the FP64 tensor cores give twice that).
        CHECK(p->fp64_lanes_per_sm == 64);
        CHECK(p->fp64_peak_gflops() == Approx(132 * 64 * 2 * 1.98).epsilon(1e-9));
        CHECK(p->fp64_peak_gflops() == Approx(p->fp32_peak_gflops() / 2).epsilon(1e-12));
    }
    CHECK(h100.l2_bytes == 50LL * 1024 * 1024);
    CHECK(h200.l2_bytes == 60LL * 1024 * 1024);
    CHECK(h100.bandwidth_gbs == Approx(3350));
    // H200: datasheet 4.8 TB/s; memory clock 3201 MHz x 6016 bit x 2 = 4814 GB/s (reference run).
    CHECK(h200.bandwidth_gbs == Approx(2 * 3201e6 * 6016 / 8 / 1e9).epsilon(0.005));
}

TEST_CASE("device_preset rejects unknown names, listing the known ones", "[model][device_profile]") {
    REQUIRE_THROWS_AS(device_preset("a100"), std::invalid_argument);
    REQUIRE_THROWS_WITH(device_preset("a100"), Catch::Matchers::Contains("a100") && Catch::Matchers::Contains("t10") &&
                                                   Catch::Matchers::Contains("h100-sxm") && Catch::Matchers::Contains("h200"));
    REQUIRE_THROWS_AS(device_preset(""), std::invalid_argument);
    REQUIRE_THROWS_AS(device_preset("H200"), std::invalid_argument);  // names are exact
}

TEST_CASE("device_profile_from_device rejects devices that do not exist", "[model][device_profile]") {
    REQUIRE_THROWS_AS(wb::device_profile_from_device(-1), std::invalid_argument);
    REQUIRE_THROWS_WITH(wb::device_profile_from_device(4096), Catch::Matchers::Contains("4096"));
}
