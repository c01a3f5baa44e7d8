// GPU correctness of chapter 6's derived launches (common/derive) on this device's profile: for
// random shapes of every op (GEMV N and T, GEMM, SYMV lower and upper, the convolution, CG), float
// and double, the launch each derivation gives (chapters/runner/derived_launch) runs the tuned
// step and matches the float64 reference (the harness's poisoned outputs and error bounds:
// gemv_problem, gemm_problem, symv_problem, conv2d_problem; CG: a converged solve whose true
// residual meets cg_residual_bound). The shapes are drawn from a fresh seed, printed on failure.
#include "catch.hpp"

#include "derive/derivation.hpp"
#include "derived_launch.hpp"
#include "cg_problem.hpp"
#include "conv2d_problem.hpp"
#include "gemm_problem.hpp"
#include "gemv_problem.hpp"
#include "random.hpp"
#include "symv_problem.hpp"
#include "tuned/conv2d_rules.hpp"
#include "tuned/gemm_default_rule.hpp"

#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

using wb::Op;
using wb::Uplo;

bool small_run() { return std::getenv("WB_TEST_SMALL") != nullptr; }

int draw(std::mt19937_64& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

template <class T>
void check_gemv(std::uint64_t seed) {
    const auto dev = wb::device_profile_from_device(0);
    const auto& step = wb::step<wb::GemvArgs<T>>(wb::chapter_of(wb::Stage::kTuned));
    std::mt19937_64 rng(seed);
    for (int i = 0; i < (small_run() ? 4 : 16); ++i)
        for (Op op : {Op::N, Op::T}) {
            // A mix of short and long outputs and reductions (both tiles and splits are exercised).
            const int m = i % 2 ? draw(rng, 1, 300) : draw(rng, 300, small_run() ? 600 : 6000);
            const int n = i % 4 < 2 ? draw(rng, 1, 300) : draw(rng, 300, small_run() ? 600 : 60000);
            const wb::GemvShape call{op, m, n, m + i % 3, static_cast<int>(sizeof(T)), 0, 0};
            const wb::derive::Derivation d = wb::ch06::derive_gemv_call(dev, call);
            const wb::GemvLaunch l = wb::ch06::gemv_launch_of(d, op == Op::T);
            auto p = wb::make_gemv_problem<T>(op, m, n, m + i % 3, seed + i);
            const auto ref = p.reference();
            const auto c = wb::check_gemv(step, l, p, ref);
            INFO("gemv " << wb::op_char(op) << " m=" << m << " n=" << n << " lda=" << m + i % 3 << " launch " << l.str()
                         << " seed=" << seed << " rel err " << c.rel_error << " " << c.first_bad);
            CHECK(c.ok());
        }
}

template <class T>
void check_gemm(std::uint64_t seed) {
    const auto dev = wb::device_profile_from_device(0);
    const auto& step = wb::step<wb::GemmArgs<T>>(wb::chapter_of(wb::Stage::kTuned));
    std::mt19937_64 rng(seed);
    for (int i = 0; i < (small_run() ? 2 : 8); ++i) {
        const int hi = small_run() ? 200 : 1500;
        wb::GemmShape s{Op::N, Op::N, draw(rng, 1, hi), draw(rng, 1, hi), draw(rng, 1, small_run() ? 300 : 8000)};
        if (i % 3 == 1) {  // odd leading dimensions: the copies' choices too
            s.lda = s.m + 1;
            s.ldb = s.k + 1;
        }
        auto p = wb::make_gemm_problem<T>(s, seed + i);
        const wb::GemmLaunch l = wb::ch06::derive_gemm_call<T>(dev, p.args(), true).launch;
        const auto ref = p.reference();
        const auto c = wb::check_gemm(step, l, p, ref);
        INFO("gemm " << p.shape.str() << " launch " << l.str() << " seed=" << seed << " rel err " << c.rel_error << " "
                     << c.first_bad);
        CHECK(c.ok());
    }
}

template <class T>
void check_symv(std::uint64_t seed) {
    const auto dev = wb::device_profile_from_device(0);
    const auto& step = wb::step<wb::SymvArgs<T>>(wb::chapter_of(wb::Stage::kTuned));
    std::mt19937_64 rng(seed);
    for (int i = 0; i < (small_run() ? 2 : 8); ++i)
        for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
            const int n = draw(rng, 1, small_run() ? 300 : 5000);
            const wb::derive::Derivation d = wb::ch06::derive_symv_call(dev, n, n + i % 2, sizeof(T));
            const wb::SymvLaunch l = wb::ch06::symv_launch_of(d);
            auto p = wb::make_symv_problem<T>(u, n, n + i % 2, seed + i);
            // Chapter 5's default on this device is the same derivation's launch.
            CHECK(step.default_launch(p.args()) == l);
            const auto ref = p.reference();
            const auto c = wb::check_symv(step, l, p, ref);
            INFO("symv " << (u == Uplo::Lower ? "lower" : "upper") << " n=" << n << " launch " << l.str()
                         << " seed=" << seed << " rel err " << c.rel_error << " " << c.first_bad);
            CHECK(c.ok());
        }
}

template <class T>
void check_conv2d(std::uint64_t seed) {
    const auto dev = wb::device_profile_from_device(0);
    const auto& step = wb::step<wb::Conv2dArgs<T>>(wb::chapter_of(wb::Stage::kTuned));
    std::mt19937_64 rng(seed);
    for (int i = 0; i < (small_run() ? 2 : 8); ++i) {
        // Odd draws: small filters on images up to 1500^2; even: filters up to 65 on up to 400^2
        // (the float64 reference is rows x cols x FS^2 products).
        const int hi = small_run() ? 200 : i % 2 ? 1500 : 400;
        wb::Conv2dShape s{draw(rng, 1, hi), draw(rng, 1, hi), 2 * draw(rng, 0, i % 2 ? 3 : 32) + 1};
        const auto configs = wb::tuned::conv2d_configs<T>(s.fs);
        const wb::derive::Derivation d =
            wb::derive::derive_conv2d(dev, s.rows, s.cols, s.fs, sizeof(T), wb::tuned::conv2d_derive_tiles(configs));
        const wb::Conv2dLaunch l = wb::ch06::conv2d_launch_of(d);
        auto p = wb::make_conv2d_problem<T>(s, seed + i);
        const auto ref = p.reference();
        const auto c = wb::check_conv2d(step, l, p, ref);
        INFO("conv2d " << s.str() << " launch " << l.str() << " seed=" << seed << " rel err " << c.rel_error << " "
                       << c.first_bad);
        CHECK(c.ok());
    }
}

template <class T>
void check_cg(std::uint64_t seed) {
    const auto dev = wb::device_profile_from_device(0);
    const auto& step = wb::step<wb::CgArgs<T>>(wb::chapter_of(wb::Stage::kTuned));
    std::mt19937_64 rng(seed);
    for (int i = 0; i < (small_run() ? 1 : 4); ++i) {
        const int n = draw(rng, 1, small_run() ? 300 : 3000);
        const wb::CgLaunch l = wb::ch06::cg_launch_of(wb::derive::derive_cg(dev, n, sizeof(T)));
        auto p = wb::make_cg_problem<T>(n, n + i % 2, 100.0, sizeof(T) == 4 ? 1e-5 : 1e-10, 10 * n + 200, seed + i);
        const wb::CgCheck c = wb::check_cg(step, l, p);
        INFO("cg n=" << n << " launch " << l.str() << " seed=" << seed << " residual " << c.rel_error << " tol "
                     << c.tolerance << " " << c.first_bad);
        CHECK(c.ok());
    }
}

}  // namespace

TEST_CASE("derived launches: GEMV", "[gpu][derive][gemv]") {
    const std::uint64_t seed = wb::fresh_seed();
    check_gemv<float>(seed);
    check_gemv<double>(seed);
}

TEST_CASE("derived launches: GEMM", "[gpu][derive][gemm]") {
    const std::uint64_t seed = wb::fresh_seed();
    check_gemm<float>(seed);
    check_gemm<double>(seed);
}

TEST_CASE("derived launches: SYMV", "[gpu][derive][symv]") {
    const std::uint64_t seed = wb::fresh_seed();
    check_symv<float>(seed);
    check_symv<double>(seed);
}

TEST_CASE("derived launches: convolution", "[gpu][derive][conv2d]") {
    const std::uint64_t seed = wb::fresh_seed();
    check_conv2d<float>(seed);
    check_conv2d<double>(seed);
}

TEST_CASE("derived launches: CG", "[gpu][derive][cg]") {
    const std::uint64_t seed = wb::fresh_seed();
    check_cg<float>(seed);
    check_cg<double>(seed);
}
