// Convolution speed as ratios measured in one run on one GPU (architecture §7).
// Measured on an H200 (2026-11-23): docs/results/h200/perf-conv2d-30e101d.log, the current
// kernels; the thresholds of the steps against each other sit well under its ratios. The two the
// issue states are its goals, both met there: shared 2.99x naive at FS = 7 on 4096^2 (goal 2x;
// 1.20x before the shared step's rewrite, perf-symv-conv2d-7bdfe0e.log), tuned 9.61x NPP at FS = 7
// on 8192^2 (goal 2x).
// The absolute goals (% of the copy ceiling at FS = 3, % of the roofline bound at FS = 5 ... 31)
// belong to the chapter binaries' benchmarks; this file prints the tuned step's GFLOP/s for them.
#include "catch.hpp"

#include "conv2d_problem.hpp"
#include "random.hpp"
#include "roofline.hpp"

#include <iostream>
#include <string>

namespace {

double median_ms(const wb::Step<wb::Conv2dArgs<float>>& step, wb::Conv2dProblem<float>& p) {
    wb::BenchOptions bo;  // L2 flushed before every call (memory-bound at small FS)
    bo.warmup = 2;
    bo.min_reps = 5;
    bo.max_reps = 30;
    bo.max_seconds = 1.0;
    return wb::time_conv2d(step, step.default_launch(p.args()), p, bo).median_ms;
}

const wb::Step<wb::Conv2dArgs<float>>* find_peer(const std::string& name) {
    static const auto peers = wb::conv2d_peers<float>();
    for (const auto& p : peers)
        if (p.stage == name) return &p;
    return nullptr;
}

/// Speed of `fast` over `slow` (chapters 1-5, or a peer by name) on a float n x n image.
double speedup(const wb::Step<wb::Conv2dArgs<float>>& fast, const wb::Step<wb::Conv2dArgs<float>>& slow, int n,
               int fs) {
    auto p = wb::make_conv2d_problem<float>(wb::Conv2dShape{n, n, fs}, wb::fresh_seed());
    const double tf = median_ms(fast, p), ts = median_ms(slow, p);
    std::cout << "float n=" << n << " FS=" << fs << ": " << fast.stage << " is " << ts / tf << "x " << slow.stage
              << " (" << wb::roofline::gflops(p.useful_flops(), tf) << " against "
              << wb::roofline::gflops(p.useful_flops(), ts) << " GFLOP/s)\n";
    return ts / tf;
}

const wb::Step<wb::Conv2dArgs<float>>& ch(int c) { return wb::step<wb::Conv2dArgs<float>>(c); }

}  // namespace

TEST_CASE("perf: shared convolution is at least 2x naive at FS = 7 on 4096^2", "[perf][conv2d]") {
    CHECK(speedup(ch(2), ch(1), 4096, 7) >= 2.0);  // the goal; measured 2.97x (perf-conv2d-1804520.log)
}

TEST_CASE("perf: each convolution step is faster than the one before at FS = 7 on 4096^2", "[perf][conv2d]") {
    // Measured on an H200 at 1804520 (2026-11-23, float, 4096^2, FS = 7, perf-conv2d-1804520.log):
    // shared 2.97x naive, pattern 1.54x shared, access 1.51x pattern, tuned 1.10x access, tuned
    // 7.59x naive; FS = 31: tuned 1.88x access. Thresholds sit under them with room for noise;
    // tuned against access only asks for the ladder's order (its lead is the double-buffered
    // staging and vertical reuse, about 10% at FS = 7: docs/notes/conv2d.md).
    CHECK(speedup(ch(3), ch(2), 4096, 7) >= 1.3);
    CHECK(speedup(ch(4), ch(3), 4096, 7) >= 1.3);
    CHECK(speedup(ch(5), ch(4), 4096, 7) >= 1.0);
    CHECK(speedup(ch(5), ch(1), 4096, 7) >= 5.0);
    // The filter-row kernel of the tuned step at FS = 31, against access's generic loop.
    CHECK(speedup(ch(5), ch(4), 4096, 31) >= 1.5);
}

TEST_CASE("perf: tuned convolution is at least 2x NPP at FS = 7 on 8192^2", "[perf][conv2d]") {
    const auto* npp = find_peer("npp");
    if (!npp) {
        WARN("this build has no NPP: the ratio against NPP is not measured");
        return;
    }
    // The goal; measured 9.20x (NPP 3.6 TFLOP/s, tuned 33.4 at FS = 7, perf log 784a532).
    CHECK(speedup(ch(5), *npp, 8192, 7) >= 2.0);
}

TEST_CASE("perf: tuned convolution against cuDNN and the FFT convolution", "[perf][conv2d]") {
    // Printed for the chapter text and the crossover; asserted where the measured ratios leave a
    // wide margin (perf log 7bdfe0e: 8.02x cuDNN at FS = 7, 10.5x the FFT at FS = 3).
    if (const auto* cudnn = find_peer("cudnn")) CHECK(speedup(ch(5), *cudnn, 8192, 7) >= 2.0);
    if (const auto* fft = find_peer("cufft")) {
        for (int fs : {7, 15, 31, 63}) speedup(ch(5), *fft, 8192, fs);  // the measured crossover
        CHECK(speedup(ch(5), *fft, 8192, 3) >= 2.0);  // FS = 3: direct at the copy ceiling, FFT ~1 ms
    }
}
