// Argument validation of every GEMV launcher, before any GPU call: each bad input throws
// std::invalid_argument naming the function, the argument, its value and the rule.
#include "catch.hpp"
#include "step_errors.hpp"

#include "gemv.hpp"
#include "launch_checks.hpp"

#include <stdexcept>
#include <string>

namespace {

using wb_test::error_of;

template <class T>
void check_steps() {
    // Fake, never-dereferenced device pointers: validation must reject before using them.
    T* const fake = reinterpret_cast<T*>(0x1000);
    const auto steps = wb_test::ladder_and_peer<wb::GemvArgs<T>>();
    for (const auto& step : steps) {
        INFO("step " << step.stage);
        wb::GemvArgs<T> ok{wb::Op::N, 8, 4, T(1), fake, 8, fake, T(0), fake};
        auto a = ok;
        a.m = -1;
        CHECK_THAT(error_of(step, a), Catch::Matchers::Contains("m (-1) must be >= 0"));
        a = ok;
        a.n = -3;
        CHECK_THAT(error_of(step, a), Catch::Matchers::Contains("n (-3) must be >= 0"));
        a = ok;
        a.lda = 5;
        CHECK_THAT(error_of(step, a), Catch::Matchers::Contains("lda (5) must be >= max(1, m) (8)"));
        a = ok;
        a.m = 0;
        a.lda = 0;
        CHECK_THAT(error_of(step, a), Catch::Matchers::Contains("lda (0) must be >= max(1, m) (1)"));
        a = ok;
        a.A = nullptr;
        CHECK_THAT(error_of(step, a), Catch::Matchers::Contains("A must not be null"));
        a = ok;
        a.x = nullptr;
        CHECK_THAT(error_of(step, a), Catch::Matchers::Contains("x must not be null"));
        a = ok;
        a.y = nullptr;
        CHECK_THAT(error_of(step, a), Catch::Matchers::Contains("y must not be null"));
        a = ok;
        a.op = static_cast<wb::Op>(7);
        CHECK_THAT(error_of(step, a), Catch::Matchers::Contains("op (7) must be N or T"));
        // Nothing to write is a valid no-op, even with null pointers (no GPU call is made).
        wb::GemvArgs<T> empty{wb::Op::N, 0, 5, T(1), nullptr, 1, nullptr, T(0), nullptr};
        CHECK(error_of(step, empty) == "(no exception)");
        wb::GemvArgs<T> empty_t{wb::Op::T, 5, 0, T(1), nullptr, 5, nullptr, T(0), nullptr};
        CHECK(error_of(step, empty_t) == "(no exception)");
        // BLAS's quick return: an empty reduction (n == 0 for N, m == 0 for T) leaves y alone too.
        wb::GemvArgs<T> no_k{wb::Op::N, 5, 0, T(1), nullptr, 5, nullptr, T(0.5), nullptr};
        CHECK(error_of(step, no_k) == "(no exception)");
    }
}

}  // namespace

TEST_CASE("gemv launchers reject bad arguments with messages naming them", "[cpu][gemv]") {
    check_steps<float>();
    check_steps<double>();
}

TEST_CASE("gemv launchers reject m or n past the kernels' 32-bit indices; the largest is valid", "[cpu][gemv]") {
    constexpr int kMax = wb::launch_checks::kMaxIndexedExtent;
    STATIC_REQUIRE(kMax == 2147418111);
    float* const fake = reinterpret_cast<float*>(0x1000);
    const auto steps = wb_test::ladder_and_peer<wb::GemvArgs<float>>();
    for (wb::Op op : {wb::Op::N, wb::Op::T}) {
        for (const auto& step : steps) {
            INFO("step " << step.stage << " op " << wb::op_char(op));
            wb::GemvArgs<float> tall{op, kMax + 1, 1, 1.f, fake, kMax + 1, fake, 0.f, fake};
            CHECK_THAT(error_of(step, tall),
                       Catch::Matchers::Contains("::gemv: m (2147418112) must be <= 2147418111 (rows are indexed "
                                                 "with 32-bit ints: a block or grid stride past the last one would "
                                                 "overflow)"));
            wb::GemvArgs<float> wide{op, 1, kMax + 1, 1.f, fake, 1, fake, 0.f, fake};
            CHECK_THAT(error_of(step, wide), Catch::Matchers::Contains("n (2147418112) must be <= 2147418111 (columns"));
            wide.n = 2147483647;  // INT_MAX, and alpha == 0 (only y = beta y would run): rejected all the same
            wide.alpha = 0.f;
            CHECK_THAT(error_of(step, wide), Catch::Matchers::Contains("n (2147483647) must be <= 2147418111"));
        }
        // The largest extents pass validation (validate_gemv makes no GPU call).
        CHECK(wb::validate_gemv(wb::GemvArgs<float>{op, kMax, 1, 1.f, fake, kMax, fake, 0.f, fake}));
        CHECK(wb::validate_gemv(wb::GemvArgs<double>{op, 1, kMax, 1.0, reinterpret_cast<double*>(0x1000), 1,
                                                     reinterpret_cast<double*>(0x1000), 0.0,
                                                     reinterpret_cast<double*>(0x1000)}));
    }
}

TEST_CASE("gemv op parsing accepts N/T only", "[cpu][gemv]") {
    CHECK(wb::parse_op("N") == wb::Op::N);
    CHECK(wb::parse_op("t") == wb::Op::T);
    CHECK_THROWS_WITH(wb::parse_op("C"), Catch::Matchers::Contains("op (\"C\") must be N or T"));
}

TEST_CASE("gemv launchers reject illegal launch parameters", "[cpu][gemv]") {
    float* const fake = reinterpret_cast<float*>(0x1000);
    const wb::GemvArgs<float> a{wb::Op::N, 8, 4, 1.f, fake, 8, fake, 0.f, fake};
    CHECK_THAT(error_of(wb::step<wb::GemvArgs<float>>(1), a, wb::GemvLaunch{48}),
               Catch::Matchers::Contains("launch.block_x (48) must be a multiple of 32"));
    CHECK_THAT(error_of(wb::step<wb::GemvArgs<float>>(3), a, wb::GemvLaunch{32, 64}),
               Catch::Matchers::Contains("launch.block_y (64) must be in [1, 32]"));
    CHECK_THAT(error_of(wb::step<wb::GemvArgs<float>>(5), a, wb::GemvLaunch{32, 8, 3}),
               Catch::Matchers::Contains("launch.nb (3) must be 2, 4 or 8"));
    wb::GemvLaunch bad_split{32, 8, 4, 8, 0, 4, 0, 3};
    CHECK_THAT(error_of(wb::step<wb::GemvArgs<float>>(5), a, bad_split),
               Catch::Matchers::Contains("launch.cluster (3) must be 0 (auto), 1 (global partials) or 2"));
}

TEST_CASE("the gemv ladder lists chapters 1 to 5 in order, each with legal default launches", "[cpu][gemv]") {
    const auto& steps = wb::ladder<wb::GemvArgs<float>>();
    REQUIRE(steps.size() == 5);
    for (std::size_t i = 0; i < steps.size(); ++i) {
        CHECK(steps[i].chapter == static_cast<int>(i) + 1);
        CHECK(steps[i].stage == wb::stage_of(static_cast<int>(i) + 1).name);
        for (wb::Op op : {wb::Op::N, wb::Op::T}) {
            const wb::GemvArgs<float> a{op, 100, 100};
            const auto legal = steps[i].legal_launches(a);
            CHECK_FALSE(legal.empty());
        }
    }
    CHECK_THROWS_WITH(wb::step<wb::GemvArgs<float>>(6), Catch::Matchers::Contains("chapter (6) must be 0 (the peer) or one of this op's chapters (1, 2, 3, 4, 5)"));
}
