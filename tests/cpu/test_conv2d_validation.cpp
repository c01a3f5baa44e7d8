// Argument validation of every convolution launcher (the five steps and every peer this build
// has), before any GPU call: each bad input throws std::invalid_argument naming the function, the
// argument, its value and the rule; nothing launches (fake device pointers are never dereferenced,
// and these tests run on machines without a GPU). Empty images are valid no-ops; an illegal
// Conv2dLaunch is rejected with a message naming the field and the legal values.
#include "catch.hpp"
#include "step_errors.hpp"

#include "conv2d.hpp"

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

}  // namespace

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
    const char* stages[] = {"naive", "shared", "pattern", "access", "tuned"};
    const auto a = valid<float>();
    for (int c = 1; c <= 5; ++c) {
        INFO("chapter " << c);
        CHECK(steps[c - 1].chapter == c);
        CHECK(steps[c - 1].stage == stages[c - 1]);
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
