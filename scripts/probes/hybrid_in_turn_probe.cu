// hybrid_in_turn_probe.cu — why does chapter 7's hybrid convolution run slower in its table row
// than the same call timed alone at the start of the run?
//
// Over five runs the convolution's hybrid at n = 2048 ran 1 - 56% slower in its row (timed in turn
// with the CPU peer and the other sizes' calls) than alone, at the same share (docs/notes/split.md,
// session 30); GEMV's, GEMM's and SYMV's did not. The hybrid's CPU side runs on one thread fewer
// than the CPU peer (cpu::ScopedOmpThreads), so in the rows OpenMP's team changes size from call
// to call. This probe times the hybrid (page-locked arrays, the chapter's 4 chunks) with
// cpu::time_interleaved, the chapter's rule, in four settings, each three times in turn:
//   alone     the hybrid's batches only;
//   with 16   in turn with the CPU peer on every thread (as the rows run);
//   with 15   in turn with the CPU peer on the hybrid's thread count (no change of team size);
//   with big  in turn with the CPU peer of an image 4x as wide (16x the bytes), as the rows' turns
//             put the group's largest sizes between the hybrid's batches;
// and prints the hybrid's median per setting.
// `hybrid_in_turn_probe turns` instead times the hybrid of n = 2048 after its CPU peer, alone and
// with a smaller size's calls in the turn (its CPU peer, its hybrid, its all-GPU call), to find
// which of the rows' other calls costs it (see turns() below).
// What both modes found (docs/notes/split.md, sessions 30 and 31): no setting reproduces the rows'
// slowdown beyond the rounds' own spread; the rows' median lies above the start's timing because
// the start keeps the faster of two timings of a call whose batches spread widely on that host.
//
// Build and run (needs a GPU):
//   cmake --build build --target hybrid_in_turn_probe && build/bin/hybrid_in_turn_probe
//   build/bin/hybrid_in_turn_probe turns
#include "buffer.hpp"
#include "conv2d.hpp"
#include "cpu_peers.hpp"
#include "host_timing.hpp"
#include "hybrid_conv2d.hpp"
#include "random.hpp"

#include <cstdio>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

namespace {

using namespace wb;

/// One size's page-locked image, filter and output, and its three calls: the CPU peer on every
/// thread, the hybrid at GPU share `share`, the whole image on the GPU in the hybrid's 4 chunks.
template <class T>
struct Sized {
    PinnedBuffer<T> in, out, filt;
    Conv2dArgs<T> a;
    int g = 0;
    Sized(const Sized&) = delete;  // a points into the buffers
    Sized& operator=(const Sized&) = delete;
    Sized(int n, int fs, double share, unsigned seed)
        : in(static_cast<std::size_t>(n) * n), out(static_cast<std::size_t>(n) * n), filt(static_cast<std::size_t>(fs) * fs) {
        const auto r0 = random_vector<T>(in.size(), seed), f0 = random_vector<T>(filt.size(), seed + 1);
        std::memcpy(in.data(), r0.data(), r0.size() * sizeof(T));
        std::memcpy(filt.data(), f0.data(), f0.size() * sizeof(T));
        a = Conv2dArgs<T>{n, n, fs, in.data(), n, filt.data(), out.data(), n};
        g = static_cast<int>(share * n + 0.5);
    }
    std::function<void()> cpu() { return [this] { cpu::conv2d(a); }; }
    std::function<void()> hybrid() { return [this] { hybrid::conv2d(a, g, (g + 3) / 4); }; }
    std::function<void()> gpu() { return [this] { hybrid::conv2d(a, a.rows, (a.rows + 3) / 4); }; }
};

template <class T>
void probe(int n, int fs, double share, const std::function<void()>& big) {
    Sized<T> one(n, fs, share, 1);
    const Conv2dArgs<T>& a = one.a;
    const int g = one.g, chunk = (g + 3) / 4;
    const int threads = cpu::threads();
    const std::function<void()> hybrid = one.hybrid();
    const std::function<void()> cpu16 = one.cpu();
    const std::function<void()> cpu15 = [&] {
        cpu::ScopedOmpThreads fewer(hybrid::conv2d_cpu_side_threads());
        cpu::conv2d(a);
    };
    std::printf("conv2d %s FS %d n %d, GPU share %.1f%% (%d rows, chunks of %d), %d threads\n",
                sizeof(T) == 4 ? "float" : "double", fs, n, 100 * share, g, chunk, threads);
    cpu::TimingPlan plan;
    for (int round = 1; round <= 3; ++round) {
        cpu::settle_threads();
        const double alone = cpu::time_interleaved({hybrid}, plan)[0].ms;
        cpu::settle_threads();
        const auto w16 = cpu::time_interleaved({hybrid, cpu16}, plan);
        cpu::settle_threads();
        const auto w15 = cpu::time_interleaved({hybrid, cpu15}, plan);
        cpu::settle_threads();
        const auto wb = cpu::time_interleaved({hybrid, big}, plan);
        std::printf("  round %d: hybrid alone %.4f ms | with the CPU peer on %d threads %.4f ms (peer %.4f) | "
                    "on %d threads %.4f ms (peer %.4f) | with a 4x wider image's CPU peer %.4f ms (it %.3f)\n",
                    round, alone, threads, w16[0].ms, w16[1].ms, hybrid::conv2d_cpu_side_threads(), w15[0].ms, w15[1].ms, wb[0].ms, wb[1].ms);
        std::fflush(stdout);
    }
}

/// `turns`: which of the rows' other calls slows the hybrid of size n. The hybrid of n (its CPU
/// peer before it, as in a row) timed in turn with nothing else, with a smaller size's CPU peer
/// and hybrid (as a group of two sizes runs them), with only one of the two, with the smaller
/// size's whole call on the GPU, and with the smaller size's hybrid at n's share; three rounds.
template <class T>
void turns(int fs, int small_n, double small_share, int n, double share) {
    Sized<T> s(small_n, fs, small_share, 11), b(n, fs, share, 21), s2(small_n, fs, share, 31);
    std::printf("conv2d %s FS %d: the hybrid of n %d (GPU %d rows) after the calls of n %d (hybrid: GPU %d rows)\n",
                sizeof(T) == 4 ? "float" : "double", fs, n, b.g, small_n, s.g);
    struct Setting {
        const char* name;
        std::vector<std::function<void()>> before;
    };
    const std::vector<Setting> settings = {
        {"nothing else", {}},
        {"small CPU + hybrid", {s.cpu(), s.hybrid()}},
        {"small CPU only", {s.cpu()}},
        {"small hybrid only", {s.hybrid()}},
        {"small all-GPU", {s.gpu()}},
        {"small hybrid at n's share", {s2.hybrid()}},
    };
    cpu::TimingPlan plan;
    plan.min_batches = 7;
    for (int round = 1; round <= 3; ++round) {
        std::printf("  round %d:", round);
        for (const Setting& st : settings) {
            std::vector<std::function<void()>> calls = st.before;
            calls.push_back(b.cpu());
            calls.push_back(b.hybrid());
            cpu::settle_threads();
            const auto t = cpu::time_interleaved(calls, plan);
            std::printf(" | %s %.4f (min %.4f)", st.name, t.back().ms, t.back().stats.min);
        }
        std::printf("\n");
        std::fflush(stdout);
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "turns") == 0) {
        turns<double>(3, 512, 0.24, 2048, 0.60);
        turns<float>(3, 512, 0.20, 2048, 0.52);
        turns<double>(9, 512, 0.85, 2048, 0.925);
        return 0;
    }
    // The wider images' CPU peers (no GPU share)
    Sized<double> bd3(8192, 3, 0, 41), bd9(4096, 9, 0, 51);
    Sized<float> bf9(8192, 9, 0, 61);
    probe<double>(2048, 3, 0.68, bd3.cpu());
    probe<float>(2048, 9, 0.925, bf9.cpu());
    probe<double>(1024, 9, 0.95, bd9.cpu());
    return 0;
}
