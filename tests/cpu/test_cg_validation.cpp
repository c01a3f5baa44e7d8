// Argument validation of every CG launcher (the five steps, the cuBLAS-composed peer and the
// cuSOLVER direct solve), before any GPU call: each bad input throws std::invalid_argument naming
// the function, the argument, its value and the rule; nothing launches (fake device pointers are
// never dereferenced, and these tests run on machines without a GPU). n == 0 is a valid no-op that
// reports "converged" after 0 iterations; an illegal CgLaunch is rejected naming the field.
#include "catch.hpp"
#include "step_errors.hpp"

#include "cg.hpp"

#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using wb_test::error_of;

template <class T>
std::vector<wb::Step<wb::CgArgs<T>>> all_steps() {
    auto steps = wb_test::ladder_and_peer<wb::CgArgs<T>>();
    steps.push_back({"cusolver", "direct", &wb::peer::cg_cholesky<T>, {}, {}});
    return steps;
}

/// A valid 8 x 8 solve with fake device pointers (never dereferenced).
template <class T>
wb::CgArgs<T> valid() {
    wb::CgArgs<T> a;
    a.n = 8;
    a.A = reinterpret_cast<const T*>(0x1000);
    a.lda = 8;
    a.b = reinterpret_cast<const T*>(0x2000);
    a.x = reinterpret_cast<T*>(0x3000);
    a.tol = 1e-6;
    a.max_iter = 100;
    return a;
}

template <class T, class Edit>
void expect_error(Edit edit, const std::string& message) {
    auto a = valid<T>();
    edit(a);
    for (const auto& step : all_steps<T>()) {
        const std::string e = error_of(step, a);
        const std::string fn = step.stage == "cusolver" ? "cusolver::cg_cholesky: " : step.stage + "::cg: ";
        INFO("step " << step.stage << " " << (sizeof(T) == 4 ? "float" : "double") << ": " << e);
        CHECK_THAT(e, Catch::Matchers::Contains(message));
        CHECK_THAT(e, Catch::Matchers::StartsWith(fn));
    }
}

template <class T>
void validation_rules() {
    using A = wb::CgArgs<T>;
    expect_error<T>([](A& a) { a.n = -1; }, "n (-1) must be >= 0");
    expect_error<T>([](A& a) { a.lda = 5; }, "lda (5) must be >= max(1, n) (8)");
    expect_error<T>([](A& a) { a.n = 0; a.lda = 0; }, "lda (0) must be >= max(1, n) (1)");
    expect_error<T>([](A& a) { a.max_iter = -1; }, "max_iter (-1) must be >= 0");
    expect_error<T>([](A& a) { a.tol = -1; }, "tol (-1) must be finite and >= 0");
    expect_error<T>([](A& a) { a.tol = NAN; }, "must be finite and >= 0");
    expect_error<T>([](A& a) { a.tol = INFINITY; }, "must be finite and >= 0");
    expect_error<T>([](A& a) { a.A = nullptr; }, "A must not be null when n > 0");
    expect_error<T>([](A& a) { a.b = nullptr; }, "b must not be null when n > 0");
    expect_error<T>([](A& a) { a.x = nullptr; }, "x must not be null when n > 0");
    expect_error<T>([](A& a) { a.x = reinterpret_cast<T*>(0x2000); }, "x must not be the same array as b");
}

template <class T>
void empty_is_converged() {
    for (const auto& step : all_steps<T>()) {
        INFO("step " << step.stage);
        wb::CgArgs<T> a;  // n == 0, null pointers: nothing to solve, no GPU call
        wb::CgResult r{7, 3.0, wb::CgStatus::Breakdown};
        a.result = &r;
        CHECK(error_of(step, a) == "(no exception)");
        CHECK(r.iterations == 0);
        CHECK(r.residual == 0);
        CHECK(r.status == wb::CgStatus::Converged);
        a.result = nullptr;  // a null result is allowed
        CHECK(error_of(step, a) == "(no exception)");
    }
}

}  // namespace

TEST_CASE("cg launchers reject each bad argument with a message naming it", "[cpu][cg]") {
    validation_rules<float>();
    validation_rules<double>();
}

TEST_CASE("cg's cuSOLVER solve rejects an lda whose pitch cudaMemcpy2D cannot take, naming it", "[cpu][cg]") {
    if (!wb::peer::have_cusolver()) return;  // built without cuSOLVER: the peer only says so
    auto check = [](auto a) {
        using T = std::remove_const_t<std::remove_pointer_t<decltype(a.A)>>;
        a.lda = 2147483647 / static_cast<int>(sizeof(T)) + 1;  // its bytes pass 2^31 - 1
        const wb::Step<wb::CgArgs<T>> step{"cusolver", "direct", &wb::peer::cg_cholesky<T>, {}, {}};
        CHECK_THAT(error_of(step, a), Catch::Matchers::Contains(
                                          "cusolver::cg_cholesky: lda (" + std::to_string(a.lda) + ") x " +
                                          std::to_string(sizeof(T)) + " bytes (2147483648) must be <= "));
        CHECK_THAT(error_of(step, a), Catch::Matchers::Contains("(cudaMemcpy2D's largest pitch: A is copied with it)"));
    };
    check(valid<float>());
    check(valid<double>());
}

TEST_CASE("cg with n zero converges at once for every launcher", "[cpu][cg]") {
    empty_is_converged<float>();
    empty_is_converged<double>();
}

TEST_CASE("cg launchers reject an illegal CgLaunch before anything else", "[cpu][cg]") {
    const auto a = valid<float>();
    auto err = [&](int chapter, const wb::CgLaunch& l) { return error_of(wb::step<wb::CgArgs<float>>(chapter), a, l); };
    wb::CgLaunch l;
    l.block = 100;
    for (int ch = 2; ch <= 5; ++ch) {
        const std::string fn = std::string(wb::step<wb::CgArgs<float>>(ch).stage) + "::cg: ";
        CHECK_THAT(err(ch, l), Catch::Matchers::Contains(fn + "launch.block (100) must be a multiple of 32 in [64, 1024]"));
    }
    l.block = 32;
    CHECK_THAT(err(3, l), Catch::Matchers::Contains("launch.block (32) must be a multiple of 32 in [64, 1024]"));
    l.block = 96;
    CHECK_THAT(err(2, l), Catch::Matchers::Contains("shared::cg: launch.block (96) must be a power of two"));
    l = {};
    l.check_every = 65;
    CHECK_THAT(err(3, l), Catch::Matchers::Contains("pattern::cg: launch.check_every (65) must be in [1, 64]"));
    CHECK_THAT(err(4, l), Catch::Matchers::Contains("access::cg: launch.check_every (65) must be in [1, 64]"));
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::cg: launch.check_every (65) must be in [1, 64]"));
    l = {};
    l.schedule = 3;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::cg: launch.schedule (3) must be -1 (default), 0"));
    l.schedule = 2;
    l.block = 128;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::cg: launch.block (128) must be 256 with schedule 2"));
}

TEST_CASE("cg steps: every legal launch passes the launch checks, and the ladder is complete", "[cpu][cg]") {
    REQUIRE(wb::ladder<wb::CgArgs<float>>().size() == 5);
    REQUIRE(wb::ladder<wb::CgArgs<double>>().size() == 5);
    auto a = valid<float>();
    a.n = -1;  // every launch must get past its launch checks to the argument check
    for (const auto& s : wb::ladder<wb::CgArgs<float>>()) {
        CHECK(s.default_launch(a) == s.default_launch(a));
        for (const auto& l : s.legal_launches(a)) {
            INFO(s.stage << " " << l.str());
            CHECK_THAT(error_of(s, a, l), Catch::Matchers::Contains("n (-1) must be >= 0"));
        }
    }
}

TEST_CASE("CgLaunch::str names the fields that are set", "[cpu][cg]") {
    CHECK(wb::CgLaunch{}.str() == "default");
    wb::CgLaunch l;
    l.block = 256;
    l.check_every = 8;
    l.schedule = 1;
    CHECK(l.str() == "block=256 check=8 graph");
    l.schedule = 2;
    CHECK(l.str() == "block=256 check=8 persistent");
    l.schedule = 0;
    CHECK(l.str() == "block=256 check=8 stream");
    CHECK(std::string(wb::cg_status_name(wb::CgStatus::Breakdown)) == "breakdown");
}
