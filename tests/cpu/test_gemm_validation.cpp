// Argument validation of every GEMM launcher (the five steps and the cuBLAS peer), before any GPU
// call: each bad input throws std::invalid_argument naming the function, the argument, its value
// and the rule; nothing launches (fake device pointers are never dereferenced, and these tests run
// on machines without a GPU). Zero-sized products are valid no-ops; an illegal GemmLaunch is
// rejected with a message naming the field and the legal values.
#include "catch.hpp"
#include "step_errors.hpp"

#include "gemm.hpp"
#include "launch_checks.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace {

using wb_test::error_of;

using wb::Op;

template <class T>
std::vector<wb::Step<wb::GemmArgs<T>>> all_steps() {
    return wb_test::ladder_and_peer<wb::GemmArgs<T>>();
}

/// A valid 8 x 4 x 6 product with fake device pointers (never dereferenced).
template <class T>
wb::GemmArgs<T> valid(Op op_a = Op::N, Op op_b = Op::N) {
    T* const fake = reinterpret_cast<T*>(0x1000);
    wb::GemmArgs<T> a;
    a.op_a = op_a;
    a.op_b = op_b;
    a.m = 8;
    a.n = 4;
    a.k = 6;
    a.alpha = T(1);
    a.A = fake;
    a.lda = op_a == Op::N ? 8 : 6;
    a.B = fake;
    a.ldb = op_b == Op::N ? 6 : 4;
    a.beta = T(0);
    a.C = fake;
    a.ldc = 8;
    return a;
}

template <class T, class Edit>
void expect_error(Edit edit, const std::string& message, Op op_a = Op::N, Op op_b = Op::N) {
    auto a = valid<T>(op_a, op_b);
    edit(a);
    wb_test::expect_rejected(all_steps<T>(), a, "gemm", message, sizeof(T) == 4 ? "float" : "double");
}

template <class T>
void validation_rules() {
    using A = wb::GemmArgs<T>;
    expect_error<T>([](A& a) { a.m = -1; }, "m (-1) must be >= 0");
    expect_error<T>([](A& a) { a.n = -3; }, "n (-3) must be >= 0");
    expect_error<T>([](A& a) { a.k = -2; }, "k (-2) must be >= 0");
    expect_error<T>([](A& a) { a.op_a = static_cast<Op>(7); }, "op_a (7) must be N or T");
    expect_error<T>([](A& a) { a.op_b = static_cast<Op>(9); }, "op_b (9) must be N or T");
    expect_error<T>([](A& a) { a.lda = 5; }, "lda (5) must be >= max(1, m) (8) for op_a = N");
    expect_error<T>([](A& a) { a.lda = 5; }, "lda (5) must be >= max(1, k) (6) for op_a = T", Op::T, Op::N);
    expect_error<T>([](A& a) { a.ldb = 3; }, "ldb (3) must be >= max(1, k) (6) for op_b = N");
    expect_error<T>([](A& a) { a.ldb = 3; }, "ldb (3) must be >= max(1, n) (4) for op_b = T", Op::N, Op::T);
    expect_error<T>([](A& a) { a.ldc = 7; }, "ldc (7) must be >= max(1, m) (8)");
    expect_error<T>([](A& a) { a.m = 0; a.ldc = 0; }, "ldc (0) must be >= max(1, m) (1)");
    expect_error<T>([](A& a) { a.k = 0; a.ldb = 0; }, "ldb (0) must be >= max(1, k) (1) for op_b = N");
    expect_error<T>([](A& a) { a.A = nullptr; }, "A must not be null");
    expect_error<T>([](A& a) { a.B = nullptr; }, "B must not be null");
    expect_error<T>([](A& a) { a.C = nullptr; }, "C must not be null");
}

template <class T>
void zero_sizes_are_no_ops() {
    for (const auto& step : all_steps<T>()) {
        INFO("step " << step.stage);
        // m == 0 or n == 0: BLAS's quick return, even with null pointers; no GPU call is made.
        wb::GemmArgs<T> a;
        a.m = 0;
        a.n = 5;
        a.k = 3;
        a.lda = 1;
        a.ldb = 3;
        a.ldc = 1;
        CHECK(error_of(step, a) == "(no exception)");
        a.m = 5;
        a.n = 0;
        a.lda = 5;
        a.ldc = 5;
        CHECK(error_of(step, a) == "(no exception)");
        a.m = 0;
        a.n = 0;
        a.k = 0;
        a.lda = a.ldb = a.ldc = 1;
        CHECK(error_of(step, a) == "(no exception)");
    }
}

/// m, n or k past the kernels' 32-bit indices is rejected by every launcher (the peer shares the
/// rule), also where alpha == 0 leaves only C = beta C; the largest of each passes validation.
template <class T>
void index_limits() {
    using A = wb::GemmArgs<T>;
    constexpr int kMax = wb::launch_checks::kMaxIndexedExtent;
    for (auto [op_a, op_b] : {std::pair{Op::N, Op::N}, {Op::T, Op::T}}) {
        expect_error<T>([](A& a) { a.m = kMax + 1; a.lda = a.ldc = kMax + 1; },
                        "m (2147418112) must be <= 2147418111 (rows of C are indexed with 32-bit ints: a block or "
                        "grid stride past the last one would overflow)", op_a, op_b);
        expect_error<T>([](A& a) { a.n = kMax + 1; a.ldb = kMax + 1; },
                        "n (2147418112) must be <= 2147418111 (columns of C are indexed", op_a, op_b);
        expect_error<T>([](A& a) { a.k = kMax + 1; a.lda = a.ldb = kMax + 1; },
                        "k (2147418112) must be <= 2147418111 (the reduction's elements are indexed", op_a, op_b);
        expect_error<T>([](A& a) { a.n = 2147483647; a.ldb = 2147483647; a.alpha = T(0); },
                        "n (2147483647) must be <= 2147418111", op_a, op_b);
        for (int d = 0; d < 3; ++d) {
            A a = valid<T>(op_a, op_b);
            (d == 0 ? a.m : d == 1 ? a.n : a.k) = kMax;
            a.lda = a.ldb = a.ldc = kMax;
            INFO("dimension " << "mnk"[d]);
            CHECK(wb::validate_gemm(a));
        }
    }
}

}  // namespace

TEST_CASE("gemm launchers reject m, n or k past the kernels' 32-bit indices; the largest is valid", "[cpu][gemm]") {
    index_limits<float>();
    index_limits<double>();
}

TEST_CASE("gemm launchers reject each bad argument with a message naming it", "[cpu][gemm]") {
    validation_rules<float>();
    validation_rules<double>();
}

TEST_CASE("gemm with m or n zero is a no-op for every launcher", "[cpu][gemm]") {
    zero_sizes_are_no_ops<float>();
    zero_sizes_are_no_ops<double>();
}

TEST_CASE("gemm launchers reject an illegal GemmLaunch before anything else", "[cpu][gemm]") {
    // Checked before validation and before any GPU call: the arguments may be valid or not.
    const auto a = valid<float>();
    auto err = [&](int chapter, const wb::GemmLaunch& l) { return error_of(wb::step<wb::GemmArgs<float>>(chapter), a, l); };
    wb::GemmLaunch l;
    l.block_x = 2048;
    CHECK_THAT(err(1, l), Catch::Matchers::Contains("naive::gemm: launch.block_x (2048) must be in [1, 1024]"));
    l = {};
    l.tile_m = 24;
    CHECK_THAT(err(2, l), Catch::Matchers::Contains("shared::gemm: launch.tile_m (24) must be 16 or 32"));
    l = {};
    l.thread_n = 12;
    CHECK_THAT(err(3, l), Catch::Matchers::Contains("pattern::gemm: launch.thread_n (12) must be 8 or 16"));
    l = {};
    l.tile_k = 32;
    CHECK_THAT(err(4, l), Catch::Matchers::Contains("access::gemm: launch.tile_k (32) must be 16 or 0"));
    l = {};
    l.tile_m = 96;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::gemm: launch.tile_m (96) must be the value of one of the "
                                                    "instantiated configurations"));
    l = {};
    l.split_k = 1025;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::gemm: launch.split_k (1025) must be 0"));
    l.split_k = -1;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::gemm: launch.split_k (-1) must be 0"));
    l.split_k = 0;
    l.pack_a = 3;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::gemm: launch.pack_a (3) must be 0 (the default rule"));
    l.pack_a = -1;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::gemm: launch.pack_a (-1) must be 0"));
    l.pack_a = 0;
    l.pack_b = 3;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::gemm: launch.pack_b (3) must be 0 (the default rule"));
    l.pack_b = -1;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::gemm: launch.pack_b (-1) must be 0"));
    l.pack_b = 0;
    l.align = 3;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::gemm: launch.align (3) must be 0 (the default rule"));
    l.align = 0;
    l.gemv = 3;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::gemm: launch.gemv (3) must be 0 (the default rule"));
    l.gemv = 2;  // C has more than one row and column: no GEMV
    REQUIRE(a.m > 1);
    REQUIRE(a.n > 1);
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::gemm: launch.gemv (2) must be 2 only where C is one column"));
    {
        auto one = a;  // n == 1: a GEMV, but not with a tile named beside it
        one.n = 1;
        wb::GemmLaunch g;
        g.gemv = 2;
        g.split_k = 4;
        CHECK_THAT(error_of(wb::step<wb::GemmArgs<float>>(5), one, g),
                   Catch::Matchers::Contains("tuned::gemm: launch.gemv (2) must be 2 alone"));
    }
    l.gemv = 0;
    // Fields of two different configurations, each legal alone, together are not.
    const auto configs = wb::ladder<wb::GemmArgs<float>>()[4].legal_launches(a);
    REQUIRE(configs.size() >= 2);
    l = {};
    l.tile_m = configs[0].tile_m;
    l.tile_n = configs.back().tile_n;
    if (configs[0].tile_n != configs.back().tile_n)
        CHECK_THAT(err(5, l), Catch::Matchers::Contains("launch.tile_n (" + std::to_string(l.tile_n) +
                                                        ") must be the value of one of the instantiated configurations, "
                                                        "with the fields set before it"));
}

TEST_CASE("gemm ladder is registered in order, with its legal launches", "[cpu][gemm]") {
    const auto& steps = wb::ladder<wb::GemmArgs<float>>();
    REQUIRE(steps.size() == 5);
    const auto a = valid<float>();
    for (int c = 1; c <= 5; ++c) {
        INFO("chapter " << c);
        CHECK(steps[c - 1].chapter == c);
        CHECK(steps[c - 1].stage == wb::stage_of(c).name);
        CHECK_FALSE(steps[c - 1].summary.empty());
        CHECK_FALSE(steps[c - 1].legal_launches(a).empty());
    }
    CHECK(wb::peer_step<wb::GemmArgs<double>>().stage == "cublas");
    CHECK(wb::peer_step<wb::GemmArgs<double>>().chapter == 0);
    // Every default launch (except the tuned step's, which reads the device's SM count) is legal.
    for (int c = 1; c <= 4; ++c) {
        const auto legal = steps[c - 1].legal_launches(a);
        const auto d = steps[c - 1].default_launch(a);
        bool found = false;
        for (const auto& l : legal) found = found || l == d;
        INFO("chapter " << c << " default " << d.str());
        CHECK(found);
    }
}

TEST_CASE("GemmLaunch::str names the fields that are set", "[cpu][gemm]") {
    wb::GemmLaunch l;
    CHECK(l.str() == "default");
    l.block_x = 256;
    l.block_y = 1;
    l.tile_m = 128;
    l.tile_n = 256;
    l.tile_k = 16;
    l.thread_m = 16;
    l.thread_n = 8;
    l.warp_m = 128;
    l.warp_n = 32;
    l.stages = 3;
    CHECK(l.str() == "tile=128x256x16 thread=16x8 warp=128x32 stages=3 block=256x1");
    l.split_k = 1;  // no split: not printed
    CHECK(l.str() == "tile=128x256x16 thread=16x8 warp=128x32 stages=3 block=256x1");
    l.split_k = 4;
    CHECK(l.str() == "tile=128x256x16 thread=16x8 warp=128x32 stages=3 block=256x1 split=4");
    l.pack_a = 1;  // A read transposed: not printed
    CHECK(l.str() == "tile=128x256x16 thread=16x8 warp=128x32 stages=3 block=256x1 split=4");
    l.pack_a = 2;
    CHECK(l.str() == "tile=128x256x16 thread=16x8 warp=128x32 stages=3 block=256x1 split=4 pack A");
    l.align = 2;
    CHECK(l.str() == "tile=128x256x16 thread=16x8 warp=128x32 stages=3 block=256x1 split=4 pack A aligned copies");
    wb::GemmLaunch g;
    g.gemv = 2;
    CHECK(g.str() == "as GEMV");
}
