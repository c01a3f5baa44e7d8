// GPU correctness of every registered SYMV step (and the cuBLAS peer in both modes, as a check of
// the harness), per DESIGN's definition of done and SYMV's traps:
// - lower and upper x float and double x n = 0, 1, 2, 3, primes, 2^k +- 1, non-multiples of every
//   tile (32, 64), up to 4097; lda = n and lda > n; base pointers offset by one element; the
//   unread triangle, the padding rows and the offset prefix hold NaN (a kernel that reads them
//   fails); beta = 0.5 and 0 (y poisoned with NaN: it must not be read); alpha = 0;
// - 200+ seeded random cases (shape, lda, offset, uplo, alpha, beta, step, precision), the run's
//   seed printed; submatrices of a larger matrix at offsets that are not multiples of 32;
// - every legal launch of every step on odd shapes (the tuned step's configurations in both
//   modes, the peer's two modes);
// - bit-identical results over repeated calls for every deterministic step and launch.
// WB_TEST_SMALL (the sanitizers) keeps the sizes and counts small.
// Each result is compared with the float64 reference under compare_output's bound (grows with n).
// Run on an H200 (2026-11-23): docs/results/h200/gpu-*symv*.log.
#include "catch.hpp"

#include "launch_checks.hpp"
#include "random.hpp"
#include "symv_problem.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

using wb::Uplo;

bool small() { return std::getenv("WB_TEST_SMALL") != nullptr; }

std::vector<int> sizes() {
    std::vector<int> v = {0, 1, 2, 3, 17, 31, 32, 33, 63, 64, 65, 97, 127, 128, 129, 255, 257, 1000, 1023, 1025, 4097};
    if (small()) v.erase(std::remove_if(v.begin(), v.end(), [](int n) { return n > 257; }), v.end());
    return v;
}

template <class T> const char* prec_name() { return sizeof(T) == 4 ? "float" : "double"; }

template <class T>
wb::CheckResult run_case(const wb::SymvStep<T>& step, const wb::SymvLaunch& l, Uplo u, int n, int lda, std::size_t offset,
                         T alpha, T beta, std::uint64_t seed) {
    auto p = wb::make_symv_problem<T>(u, n, lda, seed, alpha, beta, offset);
    const auto ref = p.reference();
    return wb::check_symv(step, l, p, ref);
}

template <class T>
void check_step(const wb::SymvStep<T>& step) {
    for (Uplo u : {Uplo::Lower, Uplo::Upper})
        for (int n : sizes())
            for (int variant = 0; variant < 2; ++variant)  // 0: lda = n; 1: lda = n + 3, pointers offset by one
                for (T beta : {T(0.5), T(0)}) {
                    const std::uint64_t seed = wb::fresh_seed();
                    const int lda = std::max(1, n) + (variant ? 3 : 0);
                    const std::size_t offset = variant ? 1 : 0;
                    auto p = wb::make_symv_problem<T>(u, n, lda, seed, T(1.5), beta, offset);
                    const auto ref = p.reference();
                    const auto c = wb::check_symv(step, step.default_launch(p.args()), p, ref);
                    INFO(step.stage << " " << wb::uplo_char(u) << " " << prec_name<T>() << " n=" << n << " lda=" << lda
                                    << " offset=" << offset << " beta=" << beta << " seed=" << seed << " rel err "
                                    << c.rel_error << " tol " << c.tolerance << " " << c.first_bad);
                    CHECK(c.ok());
                }
    // alpha == 0: y = beta*y without reading A or x (BLAS), and the quick return alpha == 0, beta == 1.
    for (Uplo u : {Uplo::Lower, Uplo::Upper})
        for (T beta : {T(0.5), T(0), T(1)}) {
            const std::uint64_t seed = wb::fresh_seed();
            const auto c = run_case<T>(step, step.default_launch(wb::SymvArgs<T>{}), u, 77, 80, 1, T(0), beta, seed);
            INFO(step.stage << " alpha=0 beta=" << beta << " " << wb::uplo_char(u) << " seed=" << seed << " "
                            << c.first_bad);
            CHECK(c.ok());
        }
}

template <class T>
void check_all_launches(const wb::SymvStep<T>& step) {
    // Every legal SymvLaunch on shapes that are not multiples of any tile, some submatrix-like.
    struct Shape { int n, lda; std::size_t offset; };
    for (Uplo u : {Uplo::Lower, Uplo::Upper})
        for (Shape s : {Shape{129, 129, 0}, Shape{67, 70, 1}, Shape{700, 731, 33}}) {
            const std::uint64_t seed = wb::fresh_seed();
            auto p = wb::make_symv_problem<T>(u, s.n, s.lda, seed, T(1.5), T(0.5), s.offset);
            const auto ref = p.reference();
            for (const wb::SymvLaunch& l : step.legal_launches(p.args())) {
                const auto c = wb::check_symv(step, l, p, ref);
                INFO(step.stage << " " << wb::uplo_char(u) << " " << prec_name<T>() << " n=" << s.n << " lda=" << s.lda
                                << " offset=" << s.offset << " launch " << l.str() << " seed=" << seed << " rel err "
                                << c.rel_error << " " << c.first_bad);
                CHECK(c.ok());
            }
        }
}

void check_chapter(int chapter) {
    check_step(wb::step<wb::SymvArgs<float>>(chapter));
    check_step(wb::step<wb::SymvArgs<double>>(chapter));
    if (!small()) {
        check_all_launches(wb::step<wb::SymvArgs<float>>(chapter));
        check_all_launches(wb::step<wb::SymvArgs<double>>(chapter));
    }
}

/// One random case: shape, lda, offset, uplo, alpha, beta, step (peer included) from `rng`.
template <class T>
void random_case(std::mt19937_64& rng, int index, std::uint64_t run_seed) {
    std::vector<const wb::SymvStep<T>*> steps;
    for (const auto& s : wb::ladder<wb::SymvArgs<T>>()) steps.push_back(&s);
    steps.push_back(&wb::peer_step<wb::SymvArgs<T>>());
    const auto& step = *steps[rng() % steps.size()];
    const int max_n = small() ? 200 : 1500;
    const int n = static_cast<int>(rng() % (max_n + 1));
    const int lda = std::max(1, n) + static_cast<int>(rng() % 3 == 0 ? rng() % 50 : 0);
    // Offsets: none, one element, or a submatrix's base (row and column offsets, not multiples of 32).
    std::size_t offset = 0;
    switch (rng() % 3) {
        case 0: offset = 0; break;
        case 1: offset = 1; break;
        default: {
            const std::size_t r = 1 + rng() % 63;
            offset = r + r * static_cast<std::size_t>(lda);
        }
    }
    const Uplo u = rng() % 2 ? Uplo::Lower : Uplo::Upper;
    const T alphas[] = {T(1.5), T(-0.75), T(2.25), T(0)};
    const T betas[] = {T(0.5), T(0), T(-1.25), T(1)};
    const T alpha = alphas[rng() % 4 == 0 ? rng() % 4 : 0], beta = betas[rng() % 4];
    auto launches = step.legal_launches(wb::SymvArgs<T>{});
    const wb::SymvLaunch l = rng() % 2 ? launches[rng() % launches.size()] : wb::SymvLaunch{};
    const std::uint64_t seed = rng();
    // A zero launch is each launcher's default for the shape.
    const auto c = run_case<T>(step, l, u, n, lda, offset, alpha, beta, seed);
    INFO("random case " << index << " of run seed " << run_seed << ": " << step.stage << " " << prec_name<T>() << " "
                        << wb::uplo_char(u) << " n=" << n << " lda=" << lda << " offset=" << offset << " alpha=" << alpha
                        << " beta=" << beta << " launch " << l.str() << " seed=" << seed << " rel err " << c.rel_error
                        << " tol " << c.tolerance << " " << c.first_bad);
    CHECK(c.ok());
}

}  // namespace

TEST_CASE("symv ch01 naive matches the float64 reference", "[gpu][symv]") { check_chapter(1); }
TEST_CASE("symv ch02 shared matches the float64 reference", "[gpu][symv]") { check_chapter(2); }
TEST_CASE("symv ch03 pattern matches the float64 reference", "[gpu][symv]") { check_chapter(3); }
TEST_CASE("symv ch04 access matches the float64 reference", "[gpu][symv]") { check_chapter(4); }
TEST_CASE("symv ch05 tuned matches the float64 reference", "[gpu][symv]") { check_chapter(5); }
TEST_CASE("symv cuBLAS peer (both modes) matches the float64 reference", "[gpu][symv]") {
    check_step(wb::peer_step<wb::SymvArgs<float>>());
    check_step(wb::peer_step<wb::SymvArgs<double>>());
    if (!small()) {
        check_all_launches(wb::peer_step<wb::SymvArgs<float>>());
        check_all_launches(wb::peer_step<wb::SymvArgs<double>>());
    }
}

// The tuned step's aligned origin (kernels/tuned/symv.cu): where lda is a multiple of 256 bytes, a
// submatrix A(k:, k:) makes the step start its tiles k mod 64 (float, nb = 64), k mod 32 (float,
// nb = 32; double) rows and columns before A(0, 0). The random cases above rarely draw such an
// lda; here misalignments across the granule, both triangles, both modes and each (nb, Q) tile.
template <class T>
void check_aligned_origin() {
    const auto& step = wb::step<wb::SymvArgs<T>>(5);
    const int lda = 1024;  // 4 KB (float) or 8 KB (double): every column at the same offset in its line
    const std::vector<int> ns = small() ? std::vector<int>{1, 2, 31, 97} : std::vector<int>{1, 2, 31, 97, 700};
    const std::vector<int> ks = small() ? std::vector<int>{1, 15, 17, 31, 33, 63}
                                        : std::vector<int>{1, 2, 3, 5, 8, 13, 15, 16, 17, 24, 31, 32, 33, 40, 47, 48, 63, 65};
    for (Uplo u : {Uplo::Lower, Uplo::Upper})
        for (int n : ns)
            for (int k : ks) {
                const std::uint64_t seed = wb::fresh_seed();
                const std::size_t offset = static_cast<std::size_t>(k) + static_cast<std::size_t>(k) * lda;
                auto p = wb::make_symv_problem<T>(u, n, lda, seed, T(1.5), T(0.5), offset);
                const auto ref = p.reference();
                std::vector<wb::SymvLaunch> launches;
                for (auto [nb, q] : {std::pair{32, 4}, {64, 4}, {64, 8}})
                    for (int atomics : {0, 1}) {
                        wb::SymvLaunch l;
                        l.nb = l.block_x = nb;
                        l.block_y = q;
                        l.y_blocks = nb == 64 && q == 4 ? 2 : 8;  // Y = 2 too: other tile-to-block deals
                        l.atomics = atomics;
                        launches.push_back(l);
                    }
                for (int atomics : {0, 1}) {  // the vector layout: 16-byte loads from the aligned origin
                    wb::SymvLaunch l;
                    l.nb = 64;
                    l.block_x = 256;
                    l.y_blocks = 2;
                    l.atomics = atomics;
                    launches.push_back(l);
                }
                launches.push_back(wb::SymvLaunch{});  // the default
                for (const auto& l : launches) {
                    const auto c = wb::check_symv(step, l, p, ref);
                    INFO("tuned " << wb::uplo_char(u) << " " << prec_name<T>() << " n=" << n << " lda=" << lda
                                  << " submatrix at (" << k << ", " << k << ") launch " << l.str() << " seed=" << seed
                                  << " rel err " << c.rel_error << " " << c.first_bad);
                    CHECK(c.ok());
                }
            }
}

TEST_CASE("symv ch05 tuned on submatrices at every offset of an aligned lda (the aligned origin)", "[gpu][symv]") {
    check_aligned_origin<float>();
    check_aligned_origin<double>();
}

/// Both sides of the tuned step's L2 plan (tuned::symv_l2_plan): the largest n whose stored
/// triangle fits in this device's L2 (A's loads keep the normal priority) and the next n (A's
/// loads evict-first), each in both triangles and with the submatrix variant. The policies are
/// cache hints, so the results must not change; this checks that both kernels' paths stay correct.
template <class T>
void check_l2_plan_sides() {
    const long long l2 = wb::launch_checks::l2_bytes();  // what the tuned step's launch reads
    long long fit = 1;
    while ((fit + 1) * (fit + 2) / 2 * static_cast<long long>(sizeof(T)) <= l2) ++fit;
    const auto& step = wb::step<wb::SymvArgs<T>>(5);
    for (long long n : {fit, fit + 1})
        for (Uplo u : {Uplo::Lower, Uplo::Upper})
            for (int variant = 0; variant < 2; ++variant) {
                const int nn = static_cast<int>(n), lda = nn + (variant ? 3 : 0);
                const std::size_t offset = variant ? 1 : 0;
                const std::uint64_t seed = wb::fresh_seed();
                auto p = wb::make_symv_problem<T>(u, nn, lda, seed, T(1.5), T(0.5), offset);
                const auto ref = p.reference();
                const wb::SymvLaunch l = step.default_launch(p.args());
                const int nt = (nn + l.nb - 1) / l.nb + 1;  // an aligned origin adds at most one tile
                CHECK(wb::tuned::symv_l2_plan(n, nt, l.y_blocks, sizeof(T), l2).stream_a == (n > fit));
                const auto c = wb::check_symv(step, l, p, ref);
                INFO("tuned " << wb::uplo_char(u) << " " << prec_name<T>() << " n=" << n << " lda=" << lda
                              << " offset=" << offset << " L2 " << l2 << " bytes, stream A " << (n > fit) << " seed="
                              << seed << " rel err " << c.rel_error << " " << c.first_bad);
                CHECK(c.ok());
            }
}

TEST_CASE("symv ch05 tuned on both sides of its L2 plan (triangle fits the L2 / does not)", "[gpu][symv]") {
    if (small()) return;  // the sanitizers' runs keep n <= 257
    check_l2_plan_sides<float>();
    check_l2_plan_sides<double>();
}

TEST_CASE("symv: 200+ seeded random cases over every step, shape, offset and mode", "[gpu][symv]") {
    const std::uint64_t run_seed = wb::fresh_seed();
    std::cout << "symv random cases: run seed " << run_seed << " (WB_SEED=" << run_seed << " repeats them)\n";
    std::mt19937_64 rng(run_seed);
    const int cases = small() ? 24 : 240;
    for (int i = 0; i < cases; ++i) {
        if (i % 2 == 0) random_case<float>(rng, i, run_seed);
        else random_case<double>(rng, i, run_seed);
    }
}

TEST_CASE("symv: deterministic steps give bit-identical results on repeated calls", "[gpu][symv]") {
    const int n = small() ? 131 : 3001;
    auto same_on_repeat = [&](const auto& step, const wb::SymvLaunch& l, auto& p, const std::string& what) {
        p.y.upload(p.hy);
        step.launch(p.args(), l, nullptr);
        const auto first = p.y.download();
        for (int rep = 0; rep < 3; ++rep) {
            p.y.upload(p.hy);
            step.launch(p.args(), l, nullptr);
            INFO(what << " launch " << l.str() << " repetition " << rep << " seed " << p.seed);
            CHECK(p.y.download() == first);
        }
    };
    for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
        auto pf = wb::make_symv_problem<float>(u, n, n + 1, wb::fresh_seed());
        auto pd = wb::make_symv_problem<double>(u, n, n, wb::fresh_seed());
        for (const auto& step : wb::ladder<wb::SymvArgs<float>>())
            for (const auto& l : step.legal_launches(pf.args()))
                if (l.atomics == 0) same_on_repeat(step, l, pf, step.stage + " float " + wb::uplo_char(u));
        for (const auto& step : wb::ladder<wb::SymvArgs<double>>())
            same_on_repeat(step, step.default_launch(pd.args()), pd, step.stage + " double " + wb::uplo_char(u));
        // Small n: the tuned default is the row-panel layout (rule 0), in double too.
        auto ps = wb::make_symv_problem<double>(u, small() ? 97 : 1000, small() ? 100 : 1003, wb::fresh_seed());
        const auto& tuned_d = wb::step<wb::SymvArgs<double>>(5);
        same_on_repeat(tuned_d, tuned_d.default_launch(ps.args()), ps, std::string("tuned double small n ") + wb::uplo_char(u));
        // The peer's default mode is reproducible too (cuBLAS without atomics).
        const auto& peer = wb::peer_step<wb::SymvArgs<float>>();
        same_on_repeat(peer, peer.default_launch(pf.args()), pf, std::string("cublas float ") + wb::uplo_char(u));
    }
}
