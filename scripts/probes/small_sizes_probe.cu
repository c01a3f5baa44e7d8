// small_sizes_probe.cu — does an OpenBLAS call's time at small sizes follow its size smoothly, or
// does it jump with how the rows split over the threads?
//
// Chapter 7's CPU model misses the same small rows in every run, one way: GEMV at n = 256 and 512
// (0.6 - 0.8x the model), GEMM at n = 16 and 32 and at 512 (0.6 - 0.8x), while those rows' own
// times repeat from run to run within a few percent (docs/notes/split.md, session 29). The model
// interpolates e (the share of the roofline reached) between calibration points a factor 4 apart
// (2 since session 38) in working set whose n are multiples of 32 (352, 672, ...), and the rows are powers of two. This
// probe times the calls at a dense set of n, every n in turn (cpu::time_interleaved, the rule the
// rows and the calibration are timed by), three rounds, and prints each n's median call (us) per
// round: a smooth curve says "a denser grid", steps at n that split evenly over the threads say
// the model's e cannot follow it with any grid of other sizes.
//
// Build and run (host only; needs OpenBLAS):
//   cmake --build build --target small_sizes_probe && build/bin/small_sizes_probe [ld]
#include "cpu_peers.hpp"
#include "host_timing.hpp"
#include "random.hpp"

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace {

using namespace wb;

/// One op's calls at the sizes ns, on its own arrays (wb::random_vector: seeded, never zero).
template <class T>
struct Sweep {
    std::string name;
    std::vector<int> ns;
    std::vector<std::vector<T>> keep;
    std::vector<std::function<void()>> calls;
    /// A fresh seeded array of `count` elements, held by the sweep (a moved vector keeps its data).
    T* array(std::size_t count, unsigned seed) {
        keep.push_back(random_vector<T>(count, seed));
        return keep.back().data();
    }
};

/// GEMV at each n of ns; the matrix's leading dimension is n + ld_pad (0: n, as the chapter's rows).
template <class T>
Sweep<T> gemv_sweep(const std::vector<int>& ns, int ld_pad = 0) {
    Sweep<T> s{std::string(sizeof(T) == 4 ? "sgemv" : "dgemv") + (ld_pad ? " lda = n + " + std::to_string(ld_pad) : ""),
               ns, {}, {}};
    for (int n : ns) {
        const std::size_t un = static_cast<std::size_t>(n);
        const int lda = n + ld_pad;
        const GemvArgs<T> a{Op::N, n, n, T(1), s.array(un * static_cast<std::size_t>(lda), 11), lda, s.array(un, 12), T(0),
                            s.array(un, 13)};
        s.calls.push_back([a] { cpu::gemv(a); });
    }
    return s;
}

template <class T>
Sweep<T> gemm_sweep(const std::vector<int>& ns) {
    Sweep<T> s{sizeof(T) == 4 ? "sgemm" : "dgemm", ns, {}, {}};
    for (int n : ns) {
        const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
        const GemmArgs<T> a{Op::N, Op::N, n, n, n, T(1), s.array(nn, 21), n, s.array(nn, 22), n, T(0), s.array(nn, 23), n};
        s.calls.push_back([a] { cpu::gemm(a); });
    }
    return s;
}

template <class T>
void run(const Sweep<T>& s, int rounds) {
    std::vector<std::vector<double>> us(s.ns.size());
    cpu::TimingPlan plan;
    plan.min_batches = 7;
    for (int r = 0; r < rounds; ++r) {
        const std::vector<cpu::CallTiming> t = cpu::time_interleaved(s.calls, plan);
        for (std::size_t i = 0; i < t.size(); ++i) us[i].push_back(t[i].ms * 1e3);
    }
    std::printf("%s: median call (us) per round, every n in turn\n", s.name.c_str());
    for (std::size_t i = 0; i < s.ns.size(); ++i) {
        std::printf("  n %5d:", s.ns[i]);
        for (double u : us[i]) std::printf(" %9.2f", u);
        std::printf("\n");
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (!cpu::have_cblas()) {
        std::printf("small_sizes_probe: built without OpenBLAS (nothing to time)\n");
        return 0;
    }
    // `small_sizes_probe ld`: GEMV around powers of two with lda = n and lda = n + 16 elements, to
    // tell a step of the rows' split over the threads (it stays with the padded lda) from the
    // columns' power-of-two stride on the caches (it goes with the padding).
    if (argc > 1 && std::string(argv[1]) == "ld") {
        const std::vector<int> ns{240, 256, 272, 496, 512, 528, 1008, 1024, 1040, 2032, 2048, 2064};
        for (int pad : {0, 16}) run(gemv_sweep<float>(ns, pad), 3);
        for (int pad : {0, 16}) run(gemv_sweep<double>(ns, pad), 3);
        return 0;
    }
    const std::vector<int> gv{96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448, 480, 512, 544, 576, 640, 672, 704, 768, 1024, 1056};
    const std::vector<int> gm{8, 12, 16, 20, 24, 28, 32, 40, 48, 56, 64, 96, 128, 176, 256, 352, 480, 512, 544, 672};
    run(gemv_sweep<float>(gv), 3);
    run(gemv_sweep<double>(gv), 3);
    run(gemm_sweep<float>(gm), 3);
    run(gemm_sweep<double>(gm), 3);
    return 0;
}
