// GEMM speed as ratios measured in one run on one GPU (architecture §7).
// Thresholds sit well under the measured ratios so that noise cannot flip them; each cites the run
// it came from. Absolute goals (x cuBLAS over the shape set) are checked by the benchmarks
// (scripts/probes/gemm_bench.cu and the chapter binaries), not here.
//
// Measured on one NVIDIA H200 (132 SMs), 2026-11-23, scripts/probes/gemm_bench.cu at commit
// bc46bd2 (the tuned step's 128 x 128 configuration) and a7a02ad (its 128 x 256 configuration,
// the default for 4096 since a7a02ad), float, 4096^3, median of 3-15 calls, GFLOP/s:
//   NN: naive 6030, shared 8249, pattern 18924, access 30829, tuned 43225, cuBLAS 51182
//   TN: naive  498, shared 1879, pattern  6080, access 27246, tuned 41407, cuBLAS 50282
#include "catch.hpp"

#include "gemm_problem.hpp"
#include "random.hpp"
#include "stage.hpp"
#include "tuned/dgemm_tensor_core.hpp"
#include "tuned/sgemm_3xtf32.hpp"

#include <iostream>
#include <string>

namespace {

using wb::Op;

/// Timing of these compute-bound calls: each reads its 200 MB of operands ~32 times anyway, so the
/// L2 is not flushed.
wb::BenchOptions compute_bound_bench(int max_reps) {
    wb::BenchOptions bo;
    bo.warmup = 2;
    bo.min_reps = 5;
    bo.max_reps = max_reps;
    bo.max_seconds = 1.0;
    bo.flush_l2 = false;
    return bo;
}

template <class T>
double median_ms(const wb::Step<wb::GemmArgs<T>>& step, wb::GemmProblem<T>& p) {
    return wb::time_gemm(step, step.default_launch(p.args()), p, compute_bound_bench(30)).median_ms;
}

const wb::Step<wb::GemmArgs<float>>& step_of(int chapter) {
    return chapter == 0 ? wb::peer_step<wb::GemmArgs<float>>() : wb::step<wb::GemmArgs<float>>(chapter);
}

/// Speed of chapter `fast` over chapter `slow` (0: cuBLAS) on one float problem, printed after `label`.
double ratio(int fast, int slow, const wb::GemmShape& shape, float beta, const std::string& label) {
    auto p = wb::make_gemm_problem<float>(shape, wb::fresh_seed(), 1.5f, beta);
    const double s = median_ms(step_of(slow), p) / median_ms(step_of(fast), p);
    std::cout << "float " << label << ": " << step_of(fast).stage << " is " << s << "x " << step_of(slow).stage << "\n";
    return s;
}

/// Speed of chapter `fast` over chapter `slow` (0: cuBLAS) on float op_a x N at 4096^3, beta 0.
double speedup(int fast, int slow, Op op_a) {
    return ratio(fast, slow, wb::GemmShape{op_a, Op::N, 4096, 4096, 4096}, 0.f,
                 std::string(1, wb::op_char(op_a)) + "N 4096");
}

}  // namespace

TEST_CASE("perf: shared GEMM beats naive at 4096", "[perf][gemm]") {
    // The issue asks for 3x. On Hopper it is not there for NN (measured 1.37x): the L1 keeps the
    // naive kernel's reuse (a warp's A(i, p) reads are one 128-byte line, B(p, j) one broadcast),
    // and both kernels issue two L1/shared wavefronts per FMA, the unit's rate limiting both.
    // Register blocking (chapter 3) is what lifts the ceiling. TN, whose naive A reads are
    // strided, gains 3.8x.
    CHECK(speedup(2, 1, Op::N) >= 1.15);
    CHECK(speedup(2, 1, Op::T) >= 3.0);  // the 3x; measured 3.77x (H200, e7acee6)
}

TEST_CASE("perf: each GEMM step is faster than the one before at 4096", "[perf][gemm]") {
    CHECK(speedup(3, 2, Op::N) >= 1.8);   // measured 2.29x: a strip of 16 results per thread in registers
    CHECK(speedup(4, 3, Op::N) >= 1.3);   // measured 1.63x: 4 x 4 per thread, 16-byte conflict-free shared reads
    CHECK(speedup(4, 3, Op::T) >= 3.0);   // measured 4.48x: op(A) staged through shared memory, not strided
    CHECK(speedup(5, 4, Op::N) >= 1.2);   // measured 1.40x: warp tiles, 16 x 8 per thread, cp.async pipeline
    CHECK(speedup(5, 4, Op::T) >= 1.2);   // measured 1.52x
}

TEST_CASE("perf: tuned GEMM against naive and cuBLAS at 4096", "[perf][gemm]") {
    CHECK(speedup(5, 1, Op::N) >= 5.0);   // measured 7.2x
    // 0.9x cuBLAS (pedantic FP32) in NN and TN: measured 0.95x both (H200, docs/results/h200/
    // gemm-ladder.txt), so noise of a few percent cannot flip it.
    CHECK(speedup(5, 0, Op::N) >= 0.9);
    CHECK(speedup(5, 0, Op::T) >= 0.9);
}

namespace {
/// Speed of the tuned step over cuBLAS on one float shape (beta 0.5, tight leading dimensions).
double tuned_over_cublas(Op op_a, int m, int n, int k, int ld_pad = 0, int offset = 0) {
    wb::GemmShape s{op_a, Op::N, m, n, k};
    if (ld_pad > 0) {
        s.lda = s.rows_a() + ld_pad;
        s.ldb = s.rows_b() + ld_pad;
        s.ldc = m + ld_pad;
    }
    s.offset = offset;
    return ratio(5, 0, s, 0.5f, s.str());
}
}  // namespace

TEST_CASE("perf: tuned GEMM on the shapes a square benchmark never shows", "[perf][gemm]") {
    // Measured (H200, 18837ed, docs/results/h200/gemm-shapes-18837ed.txt; before the skinny
    // paths, H100 8773456: 0.32x, 0.44x, 0.28x, 0.10x, 0.57x). Thresholds well under the runs.
    CHECK(tuned_over_cublas(Op::N, 8192, 1, 8192) >= 0.85);         // 1.04x: the GEMV route
    CHECK(tuned_over_cublas(Op::N, 8192, 16, 8192) >= 1.3);         // 1.81x: 128 x 16 tiles
    CHECK(tuned_over_cublas(Op::N, 16, 8192, 8192) >= 1.0);         // 1.27x: 16 x 128 tiles, op(B) swizzled
    // The 16-wide tiles' long operand read 8 lanes per row into a swizzled stage (e7d780a; H100,
    // docs/results/h100/gemm-shapes-float-{N,T}-{7b0a442,skinny}.txt): 0.96x -> 1.27x above,
    // TN 0.82x -> 1.19x here. With one lane per row again both would fall under 1.0.
    CHECK(tuned_over_cublas(Op::T, 8192, 16, 8192) >= 1.0);         // 1.19x: 128 x 16 tiles, op(A) swizzled
    CHECK(tuned_over_cublas(Op::N, 64, 64, 1 << 20) >= 0.75);       // 0.95x: 512 slices of k
    CHECK(tuned_over_cublas(Op::N, 4000, 4000, 4000, 96, 1) >= 0.75);  // 0.88x: aligned copies
}

TEST_CASE("perf: tuned GEMM with an odd m at short k (the element epilogue)", "[perf][gemm]") {
    // ldc = m odd: C's columns are not 16-byte aligned, so the epilogue stores element by element.
    // It loaded each old value of C just before its store (beta != 0: 64 dependent DRAM round
    // trips per thread) until 21208ec; measured on one H100 (docs/results/h100/
    // gemm-rulecheck-{epie-old,fit-new}-run*.txt): 0.55x -> 0.81x and 0.50x -> 0.90x-0.92x cuBLAS.
    CHECK(tuned_over_cublas(Op::N, 9745, 589, 273) >= 0.65);
    CHECK(tuned_over_cublas(Op::N, 11389, 1550, 223) >= 0.65);
}

namespace {
/// Double at 4096^3 NN, beta 0.5: the tuned step's `launch` over the step `slow` (0: cuBLAS) or,
/// with `slow_launch` set, over the tuned step with that launch.
double dgemm_ratio(const wb::GemmLaunch& fast, int slow, const wb::GemmLaunch* slow_launch, const char* label) {
    auto p = wb::make_gemm_problem<double>(wb::GemmShape{Op::N, Op::N, 4096, 4096, 4096}, wb::fresh_seed(), 1.5, 0.5);
    const wb::BenchOptions bo = compute_bound_bench(20);
    const auto& tuned = wb::step<wb::GemmArgs<double>>(wb::chapter_of(wb::Stage::kTuned));
    const auto& other = slow == 0 ? wb::peer_step<wb::GemmArgs<double>>() : tuned;
    const double t_fast = wb::time_gemm(tuned, fast, p, bo).median_ms;
    const double t_slow =
        wb::time_gemm(other, slow_launch ? *slow_launch : other.default_launch(p.args()), p, bo).median_ms;
    std::cout << "double NN 4096: " << label << ": " << t_slow / t_fast << "x\n";
    return t_slow / t_fast;
}
}  // namespace

TEST_CASE("perf: tuned DGEMM on the FP64 tensor cores at 4096", "[perf][gemm]") {
    int dev = 0;
    cudaGetDevice(&dev);
    if (!wb::tuned::dgemm_tensor_core_supported(dev)) {
        WARN("no FP64 tensor cores on this device (sm_90+): nothing to measure");
        return;
    }
    wb::GemmLaunch tc;
    tc.math = 2;
    wb::GemmLaunch fma;
    fma.math = 1;
    // Measured on an H200 (docs/results/h200/perf-gemm-4096.txt): 1.00x the peer (cuBLAS DGEMM,
    // pedantic math) and 2.95x the FMA kernels. Against cuBLAS's default math mode
    // a probe measured 0.72x (43 against 60 TFLOP/s): the peer's pedantic mode runs slower.
    CHECK(dgemm_ratio(tc, 0, nullptr, "tensor cores over cuBLAS") >= 0.8);
    CHECK(dgemm_ratio(tc, 5, &fma, "tensor cores over the FMA kernels") >= 1.8);
}

TEST_CASE("perf: the 3xTF32 SGEMM passes cuBLAS's pedantic SGEMM", "[perf][gemm][3xtf32]") {
    // Chapter 5's named variant (tuned/sgemm_3xtf32.hpp) against cuBLAS pedantic FP32, both on one
    // problem: measured 1.21x / 1.22x (4096^3 NN / TN) and 1.19x-1.21x (8192^3), 1.10x-1.15x on
    // 300 x 20000 x 3000 (H200, scripts/probes/sgemm_3xtf32_probe.cu at 59576c2). A kernel that ran
    // its three products back to back on one accumulator, or split with cvt.rna, measured 0.84x and
    // 1.00x. Thresholds under the runs by the squares' run-to-run spread and more.
    int dev = 0;
    REQUIRE(cudaGetDevice(&dev) == cudaSuccess);
    if (!wb::tuned::sgemm_3xtf32_supported(dev)) {
        WARN("no TF32 tensor cores on this device");
        return;
    }
    const auto tf32 = wb::tuned::sgemm_3xtf32_step();
    auto over_cublas = [&](Op op_a, int m, int n, int k) {
        auto p = wb::make_gemm_problem<float>(wb::GemmShape{op_a, Op::N, m, n, k}, wb::fresh_seed(), 1.5f, 0.5f);
        const double s = median_ms(step_of(0), p) / median_ms(tf32, p);
        std::cout << "float " << wb::op_char(op_a) << "N " << m << "x" << n << "x" << k << ": 3xTF32 is " << s
                  << "x cuBLAS\n";
        return s;
    };
    CHECK(over_cublas(Op::N, 4096, 4096, 4096) >= 1.08);
    CHECK(over_cublas(Op::T, 4096, 4096, 4096) >= 1.08);
    CHECK(over_cublas(Op::N, 300, 20000, 3000) >= 0.98);
}
