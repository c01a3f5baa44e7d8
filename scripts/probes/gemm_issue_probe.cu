// gemm_issue_probe.cu — where does the host's time go when a hybrid GEMM issues one GPU chunk?
//
// Chapter 7's calibration prints what the calling thread spends issuing each chunk of a hybrid's
// GPU share before its CPU share starts ("issued before the CPU's share"): about 27 us per chunk
// for the GEMM at n = 2048 on the H200 machine (docs/notes/split.md, session 44), against 11 us
// for GEMV's, and 8 chunks of it delay the GEMM's CPU share by about 0.2 ms. A chunk of the
// hybrid GEMM (kernels/cpu/hybrid_gemm.cpp, GpuColumns::issue) is a 2-D copy of its columns of B
// in, the tuned step's default launch and its launch, a 2-D copy of its columns of C out and an
// event. This probe times each of those on the host clock for the chunk shapes the chapter's rows
// run (m = k = n, c columns: 96% of n in n / 256 chunks), the device synchronized before each
// (an empty queue), and then K chunks issued back to back as the hybrid issues them (per chunk).
// It prints the launch the default rule picks (a pack of B or a split of k is a kernel more).
// Median and 90th percentile of the repetitions, microseconds; page-locked host memory.
//
// Build and run (one GPU):
//   cmake --build build --target gemm_issue_probe && build/bin/gemm_issue_probe [repetitions]
#include "gemm.hpp"
#include "probe_timing.cuh"
#include "step.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using namespace wb;

void row(const std::string& what, std::pair<double, double> us) {
    std::printf("  %-70s %9.2f %9.2f\n", what.c_str(), us.first, us.second);
}

template <class T>
void shape(int reps, int n, int chunks, cudaStream_t s[2], cudaEvent_t ev) {
    const int g = static_cast<int>(0.96 * n);
    const int c = (g + chunks - 1) / chunks;
    const std::size_t un = static_cast<std::size_t>(n), uc = static_cast<std::size_t>(c), e = sizeof(T);
    T *hB = nullptr, *hC = nullptr, *dA = nullptr, *dB = nullptr, *dC = nullptr;
    CHECK(cudaMallocHost(&hB, un * un * e));
    CHECK(cudaMallocHost(&hC, un * un * e));
    CHECK(cudaMalloc(&dA, un * un * e));
    CHECK(cudaMalloc(&dB, un * uc * e));
    CHECK(cudaMalloc(&dC, un * uc * e));
    for (std::size_t i = 0; i < un * un; ++i) hB[i] = T(0.5) + T(i % 7) / T(16);
    CHECK(cudaMemset(dA, 0, un * un * e));
    GemmArgs<T> d{};
    d.op_a = Op::N;
    d.op_b = Op::N;
    d.m = n;
    d.n = c;
    d.k = n;
    d.alpha = T(1);
    d.beta = T(0);
    d.A = dA;
    d.lda = n;
    d.B = dB;
    d.ldb = n;
    d.C = dC;
    d.ldc = n;
    const auto& step = wb::step<GemmArgs<T>>(5);
    const GemmLaunch l = step.default_launch(d);
    const char* tn = sizeof(T) == 4 ? "float" : "double";
    std::printf("%s n = %d, chunk of %d columns (%d chunks): default launch %s\n", tn, n, c, chunks, l.str().c_str());
    auto copy_b = [&](cudaStream_t st) {
        CHECK(cudaMemcpy2DAsync(dB, un * e, hB, un * e, un * e, uc, cudaMemcpyHostToDevice, st));
    };
    auto copy_c = [&](cudaStream_t st) {
        CHECK(cudaMemcpy2DAsync(hC, un * e, dC, un * e, un * e, uc, cudaMemcpyDeviceToHost, st));
    };
    row("2-D copy of B's columns in", issue_us(reps, [&] { copy_b(s[0]); }));
    row("the default rule (step.default_launch)", issue_us(reps, [&] { (void)step.default_launch(d); }));
    row("the launch of that launch (step.launch)", issue_us(reps, [&] { step.launch(d, l, s[0]); }));
    row("both, as the hybrid calls them", issue_us(reps, [&] { step.launch(d, step.default_launch(d), s[0]); }));
    row("2-D copy of C's columns out", issue_us(reps, [&] { copy_c(s[0]); }));
    row("cudaEventRecord", issue_us(reps, [&] { CHECK(cudaEventRecord(ev, s[0])); }));
    auto chunk = [&](int b) {
        copy_b(s[b]);
        step.launch(d, step.default_launch(d), s[b]);
        copy_c(s[b]);
        CHECK(cudaEventRecord(ev, s[b]));
    };
    row("one chunk (the five above)", issue_us(reps, [&] { chunk(0); }));
    const auto all = issue_us(std::max(11, reps / 4), [&] {
        for (int i = 0; i < chunks; ++i) chunk(i & 1);
    });
    row(std::to_string(chunks) + " chunks back to back, per chunk", {all.first / chunks, all.second / chunks});
    CHECK(cudaFreeHost(hB));
    CHECK(cudaFreeHost(hC));
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
}

}  // namespace

int main(int argc, char** argv) {
    const int reps = argc > 1 ? std::max(11, std::atoi(argv[1])) : 101;
    std::printf("gemm_issue_probe: %s, host time of one issue (us), median and p90 of %d, page-locked host memory\n",
                device_info().prop.name, reps);
    std::printf("  %-70s %9s %9s\n", "call", "median", "p90");
    cudaStream_t s[2];
    for (auto& st : s) CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    cudaEvent_t ev;
    CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming | cudaEventBlockingSync));
    for (auto [n, k] : {std::pair<int, int>{1024, 4}, {2048, 8}, {4096, 16}}) {
        shape<float>(reps, n, k, s, ev);
        shape<double>(reps, n, k, s, ev);
    }
    for (auto& st : s) CHECK(cudaStreamDestroy(st));
    CHECK(cudaEventDestroy(ev));
    return 0;
}
