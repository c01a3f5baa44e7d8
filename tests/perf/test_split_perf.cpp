// Chapter 7's hybrid as ratios measured in one run (architecture §7): where the CPU and the GPU
// with its copies take comparable times, the hybrid that splits the rows between them in
// proportion to their measured rates is at least 10% faster than the better of the two. That is
// the goal (a gain of at least 10% wherever the model predicts 15% or more) on the cases
// where noise cannot flip it: the prediction here is the balanced split of the two sides timed in
// this run (ideal gain 1 - t_cpu t_gpu / ((t_cpu + t_gpu) min(t_cpu, t_gpu)), the CPU side on
// one thread fewer as the hybrid runs it), and only cases predicted at 30% or more are held to
// 10%. The chapter's H200 table (docs/results/h200/ch07-full.*) has the FS 3 convolution's hybrid
// at 4096^2 and 8192^2 well above that; this test, run three times on the H200 machine at 0fd2169,
// measured 1.28 - 1.46x (docs/notes/split.md, session 29). The
// memory-bound hybrids (GEMV, SYMV) are not held to it: both sides read the same host memory
// (chapter 7's page).
#include "catch.hpp"

#include "buffer.hpp"
#include "cpu_peers.hpp"
#include "host_timing.hpp"
#include "hybrid_conv2d.hpp"
#include "random.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <vector>

namespace {

/// One FS x FS convolution of an n x n image on page-locked host memory: the CPU peer alone, the
/// whole image on the GPU (in, kernel, out: one chunk) and the hybrid at the balanced share, timed
/// in turn (cpu::time_interleaved, the chapter's rule: a drift of the host lands in all three
/// alike) over at least `rounds` rounds. Returns true where the case was predicted to gain 30% or
/// more (then checked).
template <class T>
bool hybrid_gains(int n, int fs, int rounds) {
    const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    wb::PinnedBuffer<T> in(nn), out(nn);
    const std::vector<T> src = wb::random_vector<T>(nn, wb::fresh_seed());
    std::memcpy(in.data(), src.data(), nn * sizeof(T));
    const std::vector<T> filter = wb::random_vector<T>(static_cast<std::size_t>(fs) * fs, wb::fresh_seed());
    const wb::Conv2dArgs<T> a{n, n, fs, in.data(), n, filter.data(), out.data(), n};
    auto cpu = [&] { wb::cpu::conv2d(a); };
    auto gpu = [&] { wb::hybrid::conv2d(a, n, n); };
    wb::cpu::TimingPlan plan;
    plan.min_batches = rounds;
    // The share from the two sides timed in turn; the hybrid's CPU side runs on threads - 1.
    const std::vector<wb::cpu::CallTiming> sides = wb::cpu::time_interleaved({cpu, gpu}, plan);
    const int threads = wb::cpu::threads();
    const double side = sides[0].ms * (threads > 1 ? static_cast<double>(threads) / (threads - 1) : 1.0);
    const double f = side / (side + sides[1].ms);
    const int rows = std::clamp(static_cast<int>(std::lround(f * n)), 1, n - 1), chunk = (rows + 3) / 4;
    auto hyb = [&] { wb::hybrid::conv2d(a, rows, chunk); };
    const std::vector<wb::cpu::CallTiming> t = wb::cpu::time_interleaved({cpu, gpu, hyb}, plan);
    const double c = t[0].ms, g = t[1].ms, h = t[2].ms, best = std::min(c, g);
    const double ideal = 1 - (side * g / (side + g)) / best;
    std::cout << (sizeof(T) == 4 ? "float" : "double") << " conv2d FS " << fs << " " << n << "^2: CPU " << c
              << " ms, GPU with copies " << g << " ms, hybrid (" << rows << " GPU rows) " << h << " ms = "
              << best / h << "x the better side; predicted gain " << 100 * ideal << "%\n";
    if (ideal < 0.30) return false;
    CHECK(h <= 0.9 * best);
    return true;
}

}  // namespace

TEST_CASE("perf: the hybrid convolution is at least 10% faster than either side where both are near", "[perf][split]") {
    int held = 0;
    held += hybrid_gains<float>(4096, 3, 9);
    held += hybrid_gains<float>(8192, 3, 7);
    held += hybrid_gains<double>(4096, 3, 7);
    // On the H200 machine all three are predicted at 30% or more; a host whose CPU is far slower
    // or faster than its GPU's copies would hold none (the test then says so).
    INFO("cases predicted to gain 30% or more: " << held << " of 3");
    CHECK(held >= 1);
}
