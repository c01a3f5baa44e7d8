// Argument validation of every convolution launcher (the five steps and every peer this build
// has), before any GPU call: each bad input throws std::invalid_argument naming the function, the
// argument, its value and the rule; nothing launches (fake device pointers are never dereferenced,
// and these tests run on machines without a GPU). Empty images are valid no-ops; an illegal
// Conv2dLaunch is rejected with a message naming the field and the legal values.
#include "catch.hpp"
#include "step_errors.hpp"

#include "conv2d.hpp"
#include "launch_checks.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using wb_test::error_of;

template <class T>
std::vector<wb::Step<wb::Conv2dArgs<T>>> all_steps() {
    std::vector<wb::Step<wb::Conv2dArgs<T>>> steps = wb::ladder<wb::Conv2dArgs<T>>();
    for (const auto& p : wb::conv2d_peers<T>()) steps.push_back(p);
    return steps;
}

/// A valid 6 x 8 image with a 3 x 3 filter, fake device pointers (never dereferenced); the output
/// lies far from the input.
template <class T>
wb::Conv2dArgs<T> valid() {
    wb::Conv2dArgs<T> a;
    a.rows = 6;
    a.cols = 8;
    a.fs = 3;
    a.in = reinterpret_cast<const T*>(0x10000);
    a.in_pitch = 8;
    a.filter = reinterpret_cast<const T*>(0x20000);
    a.out = reinterpret_cast<T*>(0x30000);
    a.out_pitch = 8;
    return a;
}

template <class T, class Edit>
void expect_error(Edit edit, const std::string& message) {
    auto a = valid<T>();
    edit(a);
    wb_test::expect_rejected(all_steps<T>(), a, "conv2d", message, sizeof(T) == 4 ? "float" : "double");
}

template <class T>
void validation_rules() {
    using A = wb::Conv2dArgs<T>;
    expect_error<T>([](A& a) { a.rows = -1; }, "rows (-1) must be >= 0");
    expect_error<T>([](A& a) { a.cols = -3; }, "cols (-3) must be >= 0");
    expect_error<T>([](A& a) { a.fs = 0; }, "fs (0) must be >= 1");
    expect_error<T>([](A& a) { a.fs = -5; }, "fs (-5) must be >= 1");
    expect_error<T>([](A& a) { a.fs = 4; }, "fs (4) must be odd");
    expect_error<T>([](A& a) { a.fs = 1027; }, "fs (1027) must be <= 1025");
    expect_error<T>([](A& a) { a.in_pitch = 5; }, "in_pitch (5) must be >= max(1, cols) (8)");
    expect_error<T>([](A& a) { a.out_pitch = 7; }, "out_pitch (7) must be >= max(1, cols) (8)");
    expect_error<T>([](A& a) { a.cols = 0; a.in_pitch = 0; }, "in_pitch (0) must be >= max(1, cols) (1)");
    expect_error<T>([](A& a) { a.in = nullptr; }, "in must not be null");
    expect_error<T>([](A& a) { a.filter = nullptr; }, "filter must not be null");
    expect_error<T>([](A& a) { a.out = nullptr; }, "out must not be null");
    expect_error<T>([](A& a) { a.out = const_cast<T*>(a.in); }, "out (== in) must not overlap in: in-place");
    // Overlapping without being equal: the output starts inside the input's last row.
    expect_error<T>([](A& a) { a.out = const_cast<T*>(a.in) + 5 * 8 + 2; }, "out (overlapping in) must not overlap in");
}

template <class T>
void empty_images_are_no_ops() {
    for (const auto& step : all_steps<T>()) {
        INFO("step " << step.stage);
        wb::Conv2dArgs<T> a;  // rows = cols = 0, null pointers: nothing to read or write
        CHECK(error_of(step, a) == "(no exception)");
        a.rows = 5;
        a.fs = 7;
        CHECK(error_of(step, a) == "(no exception)");
        a.rows = 0;
        a.cols = 4;
        a.in_pitch = a.out_pitch = 4;
        CHECK(error_of(step, a) == "(no exception)");
    }
}

/// `a` with the output placed after the input's last element (never dereferenced): images of
/// billions of pixels do not overlap.
template <class T>
wb::Conv2dArgs<T> apart(wb::Conv2dArgs<T> a) {
    const auto in = reinterpret_cast<std::uintptr_t>(a.in);
    a.out = reinterpret_cast<T*>(in + (static_cast<std::uintptr_t>(a.rows) * a.in_pitch + 64) * sizeof(T));
    return a;
}

/// rows or cols past the kernels' 32-bit indices is rejected by every launcher (the peers share
/// the rule); the largest of each passes validation.
template <class T>
void index_limits() {
    using A = wb::Conv2dArgs<T>;
    constexpr int kMax = wb::launch_checks::kMaxIndexedExtent;
    expect_error<T>([](A& a) { a.rows = kMax + 1; a = apart(a); },
                    "rows (2147418112) must be <= 2147418111 (rows are indexed with 32-bit ints: a block or grid "
                    "stride past the last one would overflow)");
    expect_error<T>([](A& a) { a.cols = a.in_pitch = a.out_pitch = kMax + 1; a.rows = 1; a = apart(a); },
                    "cols (2147418112) must be <= 2147418111 (columns are indexed");
    A a = valid<T>();
    a.rows = kMax;
    a.cols = a.in_pitch = a.out_pitch = 1;
    CHECK(wb::validate_conv2d(apart(a)));
    a.rows = 1;
    a.cols = a.in_pitch = a.out_pitch = kMax;
    CHECK(wb::validate_conv2d(apart(a)));
}

/// The peer named `stage`, where this build has it.
template <class T>
const wb::Step<wb::Conv2dArgs<T>>* peer(const std::vector<wb::Step<wb::Conv2dArgs<T>>>& peers, const char* stage) {
    for (const auto& p : peers)
        if (p.stage == stage) return &p;
    return nullptr;
}

/// What the peers' libraries cannot take, rejected before any library or GPU call: cuDNN's int
/// tensor strides (rows x pitch), NPP's int step and cudaMemcpy2D's pitch (2^31 - 1 bytes on
/// current GPUs, that without one), cuFFT's padded sizes past the padding kernels' indices.
template <class T>
void peer_limits() {
    const auto peers = wb::conv2d_peers<T>();
    if (const auto* cudnn = peer<T>(peers, "cudnn")) {
        auto a = valid<T>();
        a.rows = 46341;  // 46341^2 = 2147488281 > INT_MAX
        a.cols = a.in_pitch = a.out_pitch = 46341;
        CHECK_THAT(error_of(*cudnn, apart(a)),
                   Catch::Matchers::Contains("cudnn::conv2d: rows x in_pitch (46341 x 46341 = 2147488281) must be <= "
                                             "2147483647 (cuDNN's tensor strides are ints)"));
        a.cols = a.in_pitch = 46340;  // 46341 x 46340 = 2147441940 fits
        CHECK_THAT(error_of(*cudnn, apart(a)),
                   Catch::Matchers::Contains("cudnn::conv2d: rows x out_pitch (46341 x 46341 = 2147488281) must be"));
    }
    const int wide = 2147483647 / static_cast<int>(sizeof(T)) + 1;  // its bytes pass 2^31 - 1
    const std::string bytes = " x " + std::to_string(sizeof(T)) + " bytes (" +
                              std::to_string(static_cast<long long>(wide) * sizeof(T)) + ") must be <= ";
    if (const auto* npp = peer<T>(peers, "npp")) {
        auto a = valid<T>();
        a.in_pitch = wide;
        CHECK_THAT(error_of(*npp, apart(a)),
                   Catch::Matchers::Contains("npp::conv2d: in_pitch (" + std::to_string(wide) + ")" + bytes));
        a = valid<T>();
        a.out_pitch = wide;
        CHECK_THAT(error_of(*npp, apart(a)),
                   Catch::Matchers::Contains("npp::conv2d: out_pitch (" + std::to_string(wide) + ")" + bytes));
    }
    if (const auto* cufft = peer<T>(peers, "cufft")) {
        auto a = valid<T>();
        a.rows = wb::launch_checks::kMaxIndexedExtent;  // valid, but rows + 1 pads past the limit
        a.cols = a.in_pitch = a.out_pitch = 1;
        CHECK_THAT(error_of(*cufft, apart(a)),
                   Catch::Matchers::Contains("cufft::conv2d: max(rows + FS/2, FS) (2147418112) padded to a transform "
                                             "size ("));
        CHECK_THAT(error_of(*cufft, apart(a)),
                   Catch::Matchers::Contains(") must be <= 2147418111 (the padding kernels index it with 32-bit ints)"));
    }
}

}  // namespace

TEST_CASE("conv2d launchers reject rows or cols past the kernels' 32-bit indices; the largest is valid",
          "[cpu][conv2d]") {
    index_limits<float>();
    index_limits<double>();
}

TEST_CASE("conv2d peers reject strides and pitches their libraries cannot take, naming the argument",
          "[cpu][conv2d]") {
    peer_limits<float>();
    peer_limits<double>();
}

TEST_CASE("conv2d launchers reject each bad argument with a message naming it", "[cpu][conv2d]") {
    validation_rules<float>();
    validation_rules<double>();
}

TEST_CASE("conv2d with an empty image is a no-op for every launcher", "[cpu][conv2d]") {
    empty_images_are_no_ops<float>();
    empty_images_are_no_ops<double>();
}

TEST_CASE("conv2d launchers reject an illegal Conv2dLaunch before anything else", "[cpu][conv2d]") {
    const auto a = valid<float>();
    auto err = [&](int chapter, const wb::Conv2dLaunch& l) {
        return error_of(wb::step<wb::Conv2dArgs<float>>(chapter), a, l);
    };
    wb::Conv2dLaunch l;
    l.block_x = 2048;
    CHECK_THAT(err(1, l), Catch::Matchers::Contains("naive::conv2d: launch.block_x (2048) must be in [1, 1024]"));
    l = {};
    l.block_y = 12;
    CHECK_THAT(err(2, l), Catch::Matchers::Contains("shared::conv2d: launch.block_y (12) must be 8 or 16"));
    l = {};
    l.thread_x = 4;  // even: lanes 4 words apart would conflict in shared memory
    CHECK_THAT(err(3, l), Catch::Matchers::Contains("pattern::conv2d: launch.thread_x (4) must be 5 or 7"));
    CHECK_THAT(error_of(wb::step<wb::Conv2dArgs<double>>(3), valid<double>(), l),
               Catch::Matchers::Contains("pattern::conv2d: launch.thread_x (4) must be 3 (the instantiated strip)"));
    l = {};
    l.tile_y = 32;
    CHECK_THAT(err(4, l), Catch::Matchers::Contains("access::conv2d: launch.tile_y (32) must be 64 or 0"));
    l = {};
    l.thread_x = 16;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::conv2d: launch.thread_x (16) must be the value of one of "
                                                    "the instantiated configurations"));
    // Fields of two configurations, each legal alone, together are not.
    const auto configs = wb::ladder<wb::Conv2dArgs<float>>()[4].legal_launches(a);
    REQUIRE(configs.size() >= 2);
    l = {};
    l.thread_y = configs[0].thread_y;
    l.tile_y = configs[1].tile_y;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("launch.tile_y (" + std::to_string(l.tile_y) + ") must be the value"));
}

TEST_CASE("conv2d ladder is registered in order, with legal default launches", "[cpu][conv2d]") {
    const auto& steps = wb::ladder<wb::Conv2dArgs<float>>();
    REQUIRE(steps.size() == 5);
    const auto a = valid<float>();
    for (int c = 1; c <= 5; ++c) {
        INFO("chapter " << c);
        CHECK(steps[c - 1].chapter == c);
        CHECK(steps[c - 1].stage == wb::stage_of(c).name);
        CHECK_FALSE(steps[c - 1].summary.empty());
        const auto legal = steps[c - 1].legal_launches(a);
        REQUIRE_FALSE(legal.empty());
        const auto d = steps[c - 1].default_launch(a);
        bool found = false;
        for (const auto& l : legal) found = found || l == d;
        INFO("default " << d.str());
        CHECK(found);
    }
    // The peer is the first one this build has (NPP where CMake found it).
    const auto peers = wb::conv2d_peers<float>();
    REQUIRE_FALSE(peers.empty());
    CHECK(wb::peer_step<wb::Conv2dArgs<float>>().stage == peers.front().stage);
    for (const auto& p : peers) {
        CHECK(p.chapter == 0);
        CHECK((p.stage == "npp" || p.stage == "cudnn" || p.stage == "cufft"));
    }
}

TEST_CASE("Conv2dLaunch::str names the fields that are set", "[cpu][conv2d]") {
    wb::Conv2dLaunch l;
    CHECK(l.str() == "default");
    l.block_x = 256;
    l.block_y = 1;
    l.tile_x = 64;
    l.tile_y = 64;
    l.thread_x = 4;
    l.thread_y = 4;
    CHECK(l.str() == "tile=64x64 thread=4x4 block=256x1");
}
