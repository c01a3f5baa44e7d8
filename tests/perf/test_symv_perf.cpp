// SYMV speed as ratios measured in one run on one GPU (architecture §7).
//
// Thresholds sit well under the ratios measured on an H200 (2026-11-23): the perf run of
// 7bdfe0e (docs/results/h200/perf-symv-conv2d-7bdfe0e.log) for the steps against each other, and
// the SYMV ladder of 4f735d4 (symv-ladder-4f735d4.csv), after the reduction pass was made
// parallel, for tuned against cuBLAS. The absolute goals (85% of the read ceiling, 1.2x
// cuBLAS default at 16384, 1.3x the atomics mode, 2x the default at 32768) are the chapter
// binaries' benchmark (chapter 5's SYMV section shows where they stand), not asserted here.
#include "catch.hpp"

#include "random.hpp"
#include "roofline.hpp"
#include "symv_problem.hpp"

#include <algorithm>
#include <iostream>
#include <memory>

namespace {

using wb::Uplo;

template <class T>
double median_ms(const wb::SymvStep<T>& step, const wb::SymvLaunch& l, wb::SymvProblem<T>& p) {
    wb::BenchOptions bo;
    bo.min_reps = 15;
    return wb::time_symv(step, l, p, bo).median_ms;
}

template <class T>
const wb::SymvStep<T>& step_of(int chapter) {
    return chapter == 0 ? wb::peer_step<wb::SymvArgs<T>>() : wb::step<wb::SymvArgs<T>>(chapter);
}

/// The problem of (uplo, n), one per type at a time: consecutive checks on one shape reuse it
/// instead of generating its random matrix again (seconds on the host at 16384 and above; the
/// first device run of this file spent most of its 200 s doing that).
template <class T>
wb::SymvProblem<T>& problem(Uplo u, int n) {
    static std::unique_ptr<wb::SymvProblem<T>> p;
    if (!p || p->uplo != u || p->n != n) {
        p.reset();  // free the previous one first (a 32768 matrix is 4 or 8 GiB)
        p = std::make_unique<wb::SymvProblem<T>>(wb::make_symv_problem<T>(u, n, n, wb::fresh_seed()));
    }
    return *p;
}

/// ms(slow) / ms(fast) on one problem; `atomics_*` selects the atomics launch of the peer or tuned.
template <class T>
double speedup(int fast_chapter, int slow_chapter, Uplo u, int n, bool atomics_fast = false, bool atomics_slow = false) {
    auto& p = problem<T>(u, n);
    const auto& fast = step_of<T>(fast_chapter);
    const auto& slow = step_of<T>(slow_chapter);
    wb::SymvLaunch lf = fast.default_launch(p.args()), ls = slow.default_launch(p.args());
    lf.atomics = atomics_fast ? 1 : 0;
    ls.atomics = atomics_slow ? 1 : 0;
    const double s = median_ms(slow, ls, p) / median_ms(fast, lf, p);
    std::cout << (sizeof(T) == 4 ? "float " : "double ") << wb::uplo_char(u) << " n=" << n << ": " << fast.stage
              << (atomics_fast ? " (atomics)" : "") << " is " << s << "x " << slow.stage
              << (atomics_slow ? " (atomics)" : "") << "\n";
    return s;
}

}  // namespace

TEST_CASE("perf: tuned SYMV is at least 3x naive at n = 8192", "[perf][symv]") {
    // Measured (perf log 7bdfe0e): float L 15.2x, U 13.8x; double 10.4-10.5x.
    for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
        CHECK(speedup<float>(5, 1, u, 8192) >= 3.0);
        CHECK(speedup<double>(5, 1, u, 8192) >= 3.0);
    }
}

TEST_CASE("perf: tuned SYMV (deterministic) keeps up with cuBLAS's default mode at n = 16384", "[perf][symv]") {
    // Measured (ladder 4f735d4): float L 1.055x, U 1.02x; double L 1.65x, U 3.18x. The issue's
    // goal, 1.2x in float, is not met: the float threshold only guards against falling behind.
    for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
        CHECK(speedup<float>(5, 0, u, 16384) >= 0.95);
        CHECK(speedup<double>(5, 0, u, 16384) >= 1.3);
    }
}

TEST_CASE("perf: tuned SYMV (deterministic) is at least 0.85x cuBLAS's atomics mode at n = 16384", "[perf][symv]") {
    // The deterministic mode pays its workspace (about 2 / nb of the triangle) and a launch.
    // Measured (ladder 4f735d4): float 0.946x, double 0.934x (0.84x and 0.87x before the parallel
    // reduction pass, perf log 7bdfe0e).
    CHECK(speedup<float>(5, 0, Uplo::Lower, 16384, false, true) >= 0.85);
    CHECK(speedup<double>(5, 0, Uplo::Lower, 16384, false, true) >= 0.85);
}

TEST_CASE("perf: each SYMV step is at least as fast as the one before where its mechanism applies",
          "[perf][symv]") {
    // Measured (perf log 7bdfe0e; the model's predictions on the h200 preset in parentheses:
    // ./workbook run ch05 -- --op symv --device-preset h200): shared 3.51x naive at 8192 float;
    // pattern 1.39x shared (float L) and 1.53x (double U) at 32768; access 3.02x pattern at 16384;
    // tuned 2.41x access at 4096, 1.10x (float) and 1.05x (double) at 32768.
    // ch02 vs ch01: the mirror read coalesced through shared memory (model: about 8x at 8192).
    CHECK(speedup<float>(2, 1, Uplo::Lower, 8192) >= 1.5);
    // ch03 vs ch02: the triangle read once instead of twice. At n <= 16384 the model predicts
    // parity (Nath §5.4: one wave of blocks, the longest block row of nt tiles sets the time, as
    // every block row does in chapter 2), so the ratio is asserted where the bytes set the time
    // (model at 32768: float 1.29x, double 1.87x).
    CHECK(speedup<float>(3, 2, Uplo::Lower, 32768) >= 1.0);
    CHECK(speedup<double>(3, 2, Uplo::Upper, 32768) >= 1.3);
    // ch04 vs ch03: vertical traversal with register prefetch on 64-wide tiles (model at 16384:
    // float 1.95x).
    CHECK(speedup<float>(4, 3, Uplo::Lower, 16384) >= 1.3);
    // ch05 vs ch04: Y blocks per column cut the triangle's longest walk (model at 4096: float 4.2x);
    // at 32768 both are bandwidth-bound (model: parity).
    CHECK(speedup<float>(5, 4, Uplo::Lower, 4096) >= 1.5);
    CHECK(speedup<float>(5, 4, Uplo::Lower, 32768) >= 0.95);
    CHECK(speedup<double>(5, 4, Uplo::Lower, 32768) >= 0.95);
}

/// ms of the (32, 4) tile launch (Y = 8: the tiles and the reduction pass, the launch the rule picked
/// at n = 1024 before rule 0) over ms of the default, which rule 0 makes the row-panel layout of
/// 8 rows per block.
template <class T>
double panels_over_tiles(Uplo u, int n) {
    auto& p = problem<T>(u, n);
    const auto& tuned = wb::step<wb::SymvArgs<T>>(5);
    const wb::SymvLaunch panels = tuned.default_launch(p.args());
    REQUIRE(panels.block_x == 1024);  // rule 0 picked the row panels (n / 8 blocks <= one wave)
    REQUIRE(panels.nb == 8);
    wb::SymvLaunch tiles;
    tiles.nb = tiles.block_x = 32;
    tiles.block_y = 4;
    tiles.y_blocks = 8;
    const double s = median_ms(tuned, tiles, p) / median_ms(tuned, panels, p);
    std::cout << (sizeof(T) == 4 ? "float " : "double ") << wb::uplo_char(u) << " n=" << n << ": row panels of "
              << panels.nb << " are " << s << "x the (32, 4) tiles\n";
    return s;
}

TEST_CASE("perf: where rule 0 picks the row-panel layout, it beats the tiles it replaces", "[perf][symv]") {
    // Measured on an H200 at n = 1024 (symv-small-probe-u8.txt, before the rule): 1.30x (double) to
    // 1.56x (float); the perf run of e7acee6: 1.23x-1.47x.
    for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
        CHECK(panels_over_tiles<float>(u, 1024) >= 1.15);
        CHECK(panels_over_tiles<double>(u, 1024) >= 1.1);
    }
}

TEST_CASE("perf: tuned SYMV on submatrices of a 16384 matrix (KBLAS Fig. 11-12)", "[perf][symv]") {
    // A(k:, k:) of a 16384 x 16384 lower matrix (lda = 16384, n = 16384 - k) at offsets k that are
    // and are not multiples of 32. Prints GB/s per offset for tuned and cuBLAS; asserts that the
    // worst offset keeps 75% of the aligned rate (measured, perf log 7bdfe0e: offset 33 at 0.944):
    // scalar loads of whole columns keep each warp's reads within 2 sectors of the aligned count
    // whatever the offset.
    const int N = 16384;
    const auto& tuned = wb::step<wb::SymvArgs<float>>(5);
    const auto& peer = wb::peer_step<wb::SymvArgs<float>>();
    double aligned = 0, worst = 1e30;
    int worst_k = -1;
    for (int k : {0, 1, 2, 15, 16, 17, 31, 32, 33, 63}) {  // the chapter sweeps 1 ... 64
        const std::size_t offset = static_cast<std::size_t>(k) + static_cast<std::size_t>(k) * N;
        auto p = wb::make_symv_problem<float>(Uplo::Lower, N - k, N, wb::fresh_seed(), 1.5f, 0.5f, offset);
        const double t = wb::roofline::gbs(p.useful_bytes(), median_ms(tuned, tuned.default_launch(p.args()), p));
        const double c = wb::roofline::gbs(p.useful_bytes(), median_ms(peer, peer.default_launch(p.args()), p));
        std::cout << "submatrix offset " << k << ": tuned " << t << " GB/s, cuBLAS " << c << " GB/s\n";
        if (k == 0) aligned = t;
        else if (t < worst) {
            worst = t;
            worst_k = k;
        }
    }
    std::cout << "worst offset " << worst_k << ": " << worst / aligned << " of the aligned rate\n";
    CHECK(worst >= 0.75 * aligned);
}
