// GPU correctness of chapter 6's derived launches (common/derive) on this device's profile: for
// random shapes of GEMV (N and T), GEMM and SYMV (lower and upper), float and double, the launch
// each derivation gives runs the tuned step and matches the float64 reference (the harness's
// poisoned outputs and error bounds: gemv_problem, gemm_problem, symv_problem). The shapes are
// drawn from a fresh seed, printed on failure. The convolution's derived tiles and CG's vector
// launch are not launches of chapter 5's kernels (chapter 6's page says why) and are not run.
#include "catch.hpp"

#include "derive/derivation.hpp"
#include "derived_launch.hpp"
#include "gemm_problem.hpp"
#include "gemv_problem.hpp"
#include "random.hpp"
#include "symv_problem.hpp"
#include "tuned/gemm_default_rule.hpp"
#include "tuned/gemm_splitk.hpp"

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
    const std::vector<wb::GemmLaunch> configs = wb::tuned::gemm_configs<T>();
    const std::vector<wb::derive::GemmTile> tiles = wb::ch06::gemm_candidates(configs);
    std::mt19937_64 rng(seed);
    for (int i = 0; i < (small_run() ? 2 : 8); ++i) {
        const int hi = small_run() ? 200 : 1500;
        wb::GemmShape s{Op::N, Op::N, draw(rng, 1, hi), draw(rng, 1, hi), draw(rng, 1, small_run() ? 300 : 8000)};
        const wb::derive::Derivation d =
            wb::derive::derive_gemm(dev, s.m, s.n, s.k, sizeof(T), tiles, wb::tuned::splitk::kMaxSplit);
        const wb::GemmLaunch l = wb::ch06::gemm_launch_of(d, configs);
        auto p = wb::make_gemm_problem<T>(s, seed + i);
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
            const wb::derive::Derivation d = wb::derive::derive_symv(dev, n, sizeof(T));
            const wb::SymvLaunch l = wb::ch06::symv_launch_of(d);
            auto p = wb::make_symv_problem<T>(u, n, n + i % 2, seed + i);
            const auto ref = p.reference();
            const auto c = wb::check_symv(step, l, p, ref);
            INFO("symv " << (u == Uplo::Lower ? "lower" : "upper") << " n=" << n << " launch " << l.str()
                         << " seed=" << seed << " rel err " << c.rel_error << " " << c.first_bad);
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
