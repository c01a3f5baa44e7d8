// test_derive_conv2d.cpp — chapter 6's convolution derivation over the tuned convolution's
// instantiated launches (tuned::conv2d_derive_tiles), which chapter 5's default launch is
// (tuned::conv2d_default): the picks on the h200 preset where an H200 sweep measured the best
// legal launch, rule 2's two sides of the ridge, and the direction of each rule when the device
// changes.
// Run: build-*/bin/wb_cpu_tests "[derive][conv2d]"
#include "catch.hpp"

#include "conv2d.hpp"
#include "derive/derivation.hpp"
#include "derived_launch.hpp"
#include "step.hpp"
#include "tuned/conv2d_rules.hpp"

#include <string>

using namespace wb;

namespace {

Conv2dLaunch derived(const DeviceProfile& dev, int n, int fs, int elem) {
    return tuned::conv2d_launch_of(ch06::derive_conv2d_call(dev, n, n, fs, elem));
}

}  // namespace

TEST_CASE("derive conv2d: the h200 preset derives what an H200 sweep measured best", "[cpu][derive][conv2d]") {
    // ch06_derived --op conv2d --sweep --quick on an H200 (run 38, the blocked kernel in chunks of
    // 8 taps; tests/data/h200-launches-page-conv2d-r38.csv; run 45's 4 or 5 launches with the
    // kernel class, h200-launches-page-conv2d-r45.csv, agree), 4096^2, the best legal launch: float FS 3 the streaming 128 x 32, FS 7 the compile-time 64 x 32, FS 17 the blocked
    // 64 x 64, FS 63 the filter-row 128 x 64; double FS 3 the streaming 64 x 32, FS 7 the
    // compile-time 32 x 32, FS 63 the filter-row 64 x 64.
    const DeviceProfile h200 = device_preset("h200");
    CHECK(derived(h200, 4096, 3, 4).str() == tuned::stream_shape(4, 8, 4).str());
    // FS 7 float: the card ran the compile-time 64 x 32 and 64 x 64 within 1% of each other; the
    // model, counting each tile's fixed instructions (Nsight Compute), takes the 64 x 64.
    CHECK(derived(h200, 4096, 7, 4).str() == tuned::block_shape(4, 4).str());
    CHECK(derived(h200, 4096, 17, 4).str() == tuned::block_shape(4, 4).str());
    CHECK(derived(h200, 4096, 63, 4).str() == tuned::block_shape(8, 4).str());
    CHECK(derived(h200, 4096, 3, 8).str() == tuned::stream_shape(2, 8, 4).str());
    CHECK(derived(h200, 4096, 7, 8).str() == tuned::block_shape(2, 2).str());
    CHECK(derived(h200, 4096, 63, 8).str() == tuned::block_shape(4, 4).str());
    // Double FS 17: the three launches within 5% of each other there (blocked 64 x 32 the best,
    // blocked 32 x 32 0.97 of it, chapter 4's 64 x 64 0.95); the derivation takes a blocked tile.
    CHECK(derived(h200, 4096, 17, 8).str() != tuned::block_shape(4, 4).str());
    // In float the tuned step's list holds only its own kernels at FS 17: chapter 4's generic
    // 128 x 64 ran behind the blocked kernel at every float size tried (FS 9 ... 257).
    for (const auto& l : tuned::conv2d_configs<float>(17)) CHECK(l.str() != tuned::block_shape(8, 4).str());
}

TEST_CASE("derive conv2d: chapter 5's default launch is the derivation", "[cpu][derive][conv2d]") {
    // Without a GPU the default derives for the h200 preset (derive::default_profile).
    const DeviceProfile h200 = device_preset("h200");
    for (int fs = 1; fs <= 65; fs += 2)
        for (int n : {100, 1000, 4096}) {
            Conv2dArgs<float> a;
            a.rows = a.cols = a.in_pitch = a.out_pitch = n;
            a.fs = fs;
            INFO("FS " << fs << " n " << n);
            CHECK(step<Conv2dArgs<float>>(5).default_launch(a) == derived(h200, n, fs, 4));
        }
}

TEST_CASE("derive conv2d: rule 2 reads the ridge, rules 1-3 move with the device", "[cpu][derive][conv2d][monotone]") {
    const DeviceProfile h200 = device_preset("h200");
    // FS = 7 in float: per tile the compile-time kernel issues about 140-170 instructions besides
    // its FMAs, reads and staging (tile index, barrier, stores); 64 x 64 spreads them over twice
    // the FMAs of 64 x 32, and the model takes it. The derivation names what it compared (the
    // other candidates' predicted times).
    CHECK(derived(h200, 4096, 7, 4).tile_y == 64);
    bool model_said = false;
    for (const derive::Derived& p : ch06::derive_conv2d_call(h200, 4096, 4096, 7, 4).params)
        model_said = model_said || (p.rule.find("least predicted time") != std::string::npos &&
                                    p.metric.find("against 64x32") != std::string::npos);
    CHECK(model_said);
    // Less shared memory never gives a larger tile (rule 3): with 24 KB per SM the FS = 63 windows
    // of 128 x 64 (50 KB) and 64 x 64 (30 KB) no longer fit, 64 x 32 does. At FS = 7 the
    // compile-time kernel's two windows (its double buffer, 23.7 KB at 64 x 32) fit no block:
    // the derivation falls back on the blocked kernel (one window of a pass, 20.9 KB at 64 x 32),
    // and says why. Where nothing fits at all (8 KB) it says none fits (chapter 5's default then
    // takes the first configuration).
    DeviceProfile small = h200;
    small.smem_per_sm_bytes = 24 * 1024;
    small.smem_per_block_bytes = small.smem_per_sm_bytes - 1024;
    const Conv2dLaunch fallback = derived(small, 4096, 7, 4);
    CHECK(fallback.blocked == 1);
    CHECK(fallback.tile_y == 32);
    CHECK(derived(h200, 4096, 7, 4).blocked == 0);
    DeviceProfile tiny = h200;
    tiny.smem_per_sm_bytes = 8 * 1024;
    tiny.smem_per_block_bytes = tiny.smem_per_sm_bytes - 1024;
    CHECK_THROWS_WITH(ch06::derive_conv2d_call(tiny, 4096, 4096, 7, 4),
                      Catch::Contains("must include one that fits the registers and shared memory"));
    for (int fs : {3, 17, 63}) {
        INFO("FS " << fs);
        const derive::Derivation a = ch06::derive_conv2d_call(h200, 4096, 4096, fs, 4),
                                 b = ch06::derive_conv2d_call(small, 4096, 4096, fs, 4);
        CHECK(b.value("tile_x") * b.value("tile_y") <= a.value("tile_x") * a.value("tile_y"));
    }
}

TEST_CASE("derive conv2d: above the ridge the busiest SM's issue (rule 5) fills the SMs", "[cpu][derive][conv2d][monotone]") {
    const DeviceProfile h200 = device_preset("h200");
    // ch06_derived --op conv2d --shapes --sweep on an H200 (run 38): 777^2 FS 45 float, the
    // blocked 64 x 32 (325 blocks) ahead of the 64 x 64 (169 blocks for 132 SMs); 800^2 FS 63
    // float, the filter-row kernel's 91 blocks (taps compile-time operands) ahead of every blocked
    // tile: a grid of less than one wave is the busiest SM's blocks, not a wave's worth of slots;
    // 800^2 FS 63 double, the filter-row 64 x 64; 777^2 FS 45 double, the blocked 32 x 32.
    CHECK(tuned::conv2d_launch_of(ch06::derive_conv2d_call(h200, 777, 777, 45, 4)).str() == tuned::block_shape(4, 2).str());
    CHECK(tuned::conv2d_launch_of(ch06::derive_conv2d_call(h200, 800, 800, 63, 4)).str() == tuned::block_shape(8, 4).str());
    CHECK(tuned::conv2d_launch_of(ch06::derive_conv2d_call(h200, 800, 800, 63, 8)).str() == tuned::block_shape(4, 4).str());
    CHECK(tuned::conv2d_launch_of(ch06::derive_conv2d_call(h200, 777, 777, 45, 8)).str() == tuned::block_shape(2, 2).str());
    // Monotone in the device: fewer SMs ask for larger tiles, more SMs for smaller ones (the same
    // image fills fewer SMs sooner). Size by size whole tiles per SM jump (wave quantization), so
    // the pick may step back and forth as n grows; over the sizes, the mean tile holds the order.
    DeviceProfile half = h200;
    half.sm_count /= 2;
    DeviceProfile twice = h200;
    twice.sm_count *= 2;
    for (int fs : {21, 45}) {
        INFO("FS " << fs);
        double a_half = 0, a = 0, a_twice = 0;
        for (int n = 200; n <= 4000; n += 100) {
            const auto area = [&](const DeviceProfile& dev) {
                const derive::Derivation d = ch06::derive_conv2d_call(dev, n, n, fs, 4);
                return static_cast<double>(d.value("tile_x") * d.value("tile_y"));
            };
            a_half += area(half);
            a += area(h200);
            a_twice += area(twice);
        }
        CHECK(a_half >= a);
        CHECK(a_twice <= a);
        CHECK(a_half > a_twice);
    }
}
