// dma_beside_blas_probe.cu — why does a short threaded OpenBLAS call run 2-3x slower beside the
// hybrid's GPU side?
//
// Chapter 7's SYMV hybrid at n = 4096 (about a tenth of the rows on the GPU) has a CPU share of
// 0.14 - 0.18 ms alone that runs 2.3 - 2.8x as long while the GPU side runs (hybrid_sides_probe;
// 1.1 - 1.3x at n = 8192 - 16384), and the CPU side on one thread fewer does not help
// (docs/notes/split.md, session 33). Three readings, one mode each, with the CPU share's call
// timed alone in the same rounds:
//   same     a helper thread copies the GPU's share of the same page-locked matrix to the device
//            in 4 chunks (as the hybrid's GPU side does) while the CPU's call runs: DMA reads of
//            the memory the CPU's block lives beside;
//   other    the same copies from another page-locked buffer of the same size: DMA traffic, not
//            the matrix's own lines;
//   wake     the helper launches 4 kernels that together spin for about the copies' time and
//            sleeps on a blocking-sync event until they end (the worker's issue and wake-up, no
//            DMA at all).
// Each round times every mode once, in turn (alone, same, other, wake), the helper started by an
// atomic flag at the CPU call's start; a mode's time is the median of its rounds, and the CPU call
// is the only thing timed. Data as the chapter's rows: page-locked, random, Lower SYMV.
//
// Build and run (needs a GPU and OpenBLAS):
//   cmake --build build --target dma_beside_blas_probe && build/bin/dma_beside_blas_probe
//   build/bin/dma_beside_blas_probe 4096 0.1 31      (n, the GPU's share, rounds)
#include "probe_timing.cuh"

#include "buffer.hpp"
#include "cpu_peers.hpp"
#include "random.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

__global__ void spin_kernel(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

enum Mode { alone, same, other, wake, kModes };
const char* const kNames[kModes] = {"alone", "same", "other", "wake"};

template <class T>
void run(int n, double share, int rounds) {
    const int g = std::max(1, static_cast<int>(share * n)), r = n - g, chunks = 4;
    const std::size_t lda = static_cast<std::size_t>(n), elems = lda * n;
    wb::PinnedBuffer<T> A(elems), B(elems), x(n), y(n);
    const auto a0 = wb::random_vector<T>(elems, 11), x0 = wb::random_vector<T>(n, 12);
    std::memcpy(A.data(), a0.data(), elems * sizeof(T));
    std::memcpy(B.data(), a0.data(), elems * sizeof(T));
    std::memcpy(x.data(), x0.data(), n * sizeof(T));
    wb::DeviceBuffer<T> dbuf(static_cast<std::size_t>(g) * lda);
    T* const dev = dbuf.data();
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t done;
    CHECK(cudaEventCreateWithFlags(&done, cudaEventBlockingSync | cudaEventDisableTiming));

    // The GPU side of one mode: chunks of the GPU's columns [0, g), whole columns from row 0
    // (what the hybrid's Lower share copies, the triangle's rows c0..n of each, rounded up to n).
    const int per = (g + chunks - 1) / chunks;
    auto copies = [&](const T* src) {
        for (int c0 = 0; c0 < g; c0 += per) {
            const int c = std::min(per, g - c0);
            CHECK(cudaMemcpyAsync(dev + static_cast<std::size_t>(c0) * lda, src + static_cast<std::size_t>(c0) * lda,
                                  static_cast<std::size_t>(c) * lda * sizeof(T), cudaMemcpyHostToDevice, s));
        }
        CHECK(cudaEventRecord(done, s));  // issued, then one sleep until the last is done (the worker's way)
        CHECK(cudaEventSynchronize(done));
    };
    // The copies' time, for the wake mode's spins: the fastest of three, alone.
    double copy_s = 1e30;
    for (int k = 0; k < 3; ++k) {
        const auto t0 = Clock::now();
        copies(A.data());
        copy_s = std::min(copy_s, std::chrono::duration<double>(Clock::now() - t0).count());
    }
    int khz = 0;
    CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    const long long spin = static_cast<long long>(copy_s / chunks * khz * 1e3);
    auto wakes = [&] {
        for (int k = 0; k < chunks; ++k) spin_kernel<<<1, 1, 0, s>>>(spin);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(done, s));
        CHECK(cudaEventSynchronize(done));
    };

    const wb::SymvArgs<T> cpu{wb::Uplo::Lower, r, T(1), A.data() + g + static_cast<std::size_t>(g) * lda, n,
                              x.data() + g, 1, T(0), y.data() + g, 1};
    // The helper sleeps on a condition variable between modes, as the hybrid's GPU worker sleeps
    // between calls (a spinning helper would take a core in every mode, alone included).
    std::mutex mu;
    std::condition_variable cv;
    int go = -1;
    bool quit = false;
    std::atomic<bool> finished{false};
    std::thread helper([&] {
        for (;;) {
            int m;
            {
                std::unique_lock<std::mutex> lock(mu);
                cv.wait(lock, [&] { return go >= 0 || quit; });
                if (quit) return;
                m = go;
                go = -1;
            }
            if (m == same) copies(A.data());
            else if (m == other) copies(B.data());
            else if (m == wake) wakes();
            finished.store(true);
        }
    });
    for (int w = 0; w < 5; ++w) wb::cpu::symv(cpu);  // the pool started, the pages touched
    std::vector<double> t[kModes];
    for (int round = 0; round < rounds; ++round)
        for (int m = 0; m < kModes; ++m) {
            finished.store(m == alone);
            const auto c0 = Clock::now();
            if (m != alone) {
                {
                    std::lock_guard<std::mutex> lock(mu);
                    go = m;
                }
                cv.notify_one();
            }
            wb::cpu::symv(cpu);
            t[m].push_back(std::chrono::duration<double, std::milli>(Clock::now() - c0).count());
            while (!finished.load()) std::this_thread::yield();
            std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the pool's spin ends
        }
    {
        std::lock_guard<std::mutex> lock(mu);
        quit = true;
    }
    cv.notify_one();
    helper.join();
    double med[kModes];
    for (int m = 0; m < kModes; ++m) {
        std::sort(t[m].begin(), t[m].end());
        med[m] = t[m][t[m].size() / 2];
    }
    std::printf("symv %-6s n %5d GPU share %4.1f%% (%d columns, %d chunks, copies %.3f ms alone): CPU share (n = %d)",
                sizeof(T) == 4 ? "float" : "double", n, 100.0 * g / n, g, chunks, copy_s * 1e3, r);
    for (int m = 0; m < kModes; ++m)
        std::printf(" | %s %.4f ms%s", kNames[m], med[m],
                    m == alone ? "" : (" (x" + std::to_string(med[m] / med[alone]).substr(0, 5) + ")").c_str());
    std::printf("\n");
    CHECK(cudaEventDestroy(done));
    CHECK(cudaStreamDestroy(s));
}

}  // namespace

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
    const double share = argc > 2 ? std::atof(argv[2]) : 0.1;
    const int rounds = argc > 3 ? std::atoi(argv[3]) : 31;
    if (n < 64 || !(share > 0 && share < 1) || rounds < 3) {
        std::fprintf(stderr, "usage: dma_beside_blas_probe [n >= 64] [GPU share in (0, 1)] [rounds >= 3]\n");
        return 2;
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::fprintf(stderr, "dma_beside_blas_probe: no CUDA device\n");
        return 77;
    }
    if (!wb::cpu::have_cblas()) {
        std::fprintf(stderr, "dma_beside_blas_probe: no CBLAS in this build\n");
        return 77;
    }
    std::printf("dma_beside_blas_probe: %d rounds, medians of the CPU share's call (ms)\n", rounds);
    run<float>(n, share, rounds);
    run<double>(n, share, rounds);
    return 0;
}
