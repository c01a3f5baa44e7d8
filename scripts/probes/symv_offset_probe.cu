// symv_offset_probe.cu — the tuned SYMV on submatrices A(k:, k:) of one 16384 lower matrix at
// chosen offsets k, in both precisions (L2 flushed before every call, median of 15), so that an
// alignment effect the submatrix experiment shows (ch05_unrolled --shapes --op symv) can be timed
// against a variant of the tuned step in one run. WB_PROBE_REPEAT runs the offset list that many times.
//
// Build from the repository root after the CMake build (build-main):
//   nvcc -O3 -std=c++17 -arch=sm_90 -Ikernels -Icommon -I. scripts/probes/symv_offset_probe.cu \
//     build-main/kernels/libwb_kernels.a build-main/common/libwb_common.a -lcublas -lcuda \
//     -o build-main/symv_offset_probe
// A variant of the tuned step links first: nvcc ... symv_offset_probe.cu variant_symv.o libwb_kernels.a ...
// Run: ./build-main/symv_offset_probe [--offsets 0,16,32,48,64] [--parent 16384]
#include "probe_timing.cuh"

#include "symv.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

template <class T>
void run(int parent, const std::vector<int>& offsets, const Flush& flush, int repeat) {
    const char* prec = sizeof(T) == 4 ? "float" : "double";
    const size_t elems = static_cast<size_t>(parent) * parent;
    std::vector<T> h(elems);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (auto& v : h) v = T(u(rng));
    T *A = nullptr, *x = nullptr, *y = nullptr;
    CHECK(cudaMalloc(&A, elems * sizeof(T)));
    CHECK(cudaMalloc(&x, parent * sizeof(T)));
    CHECK(cudaMalloc(&y, parent * sizeof(T)));
    CHECK(cudaMemcpy(A, h.data(), elems * sizeof(T), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(x, h.data(), parent * sizeof(T), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(y, h.data() + parent, parent * sizeof(T), cudaMemcpyHostToDevice));
    for (int r = 0; r < repeat; ++r)
        for (int k : offsets) {
            const int n = parent - k;
            wb::SymvArgs<T> a;
            a.uplo = wb::Uplo::Lower;
            a.n = n;
            a.alpha = T(1.5);
            a.A = A + static_cast<size_t>(k) * parent + k;
            a.lda = parent;
            a.x = x;
            a.beta = T(0.5);
            a.y = y;
            const wb::SymvLaunch det = wb::tuned::symv_default(a);
            const double us = median_us([&] { wb::tuned::symv<T>(a, det, nullptr); }, flush, 15);
            const double bytes = sizeof(T) * (0.5 * n * (n + 1.0) + 3.0 * n);
            std::printf("%-6s k=%3d n=%5d shift=%2d  %8.1f us %7.1f GB/s  (%s)\n", prec, k, n,
                        wb::tuned::symv_origin_shift(a.A, a.lda, det.nb), us, bytes / us / 1e3, det.str().c_str());
        }
    CHECK(cudaFree(A));
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
}

}  // namespace

int main(int argc, char** argv) {
    int parent = 16384;
    std::vector<int> offsets = {0, 16, 31, 32, 48, 63, 64, 96};
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--parent") == 0) parent = std::atoi(argv[++i]);
        else if (std::strcmp(argv[i], "--offsets") == 0) {
            offsets.clear();
            for (char* s = std::strtok(argv[++i], ","); s; s = std::strtok(nullptr, ",")) offsets.push_back(std::atoi(s));
        }
    }
    const char* rep = std::getenv("WB_PROBE_REPEAT");
    const int repeat = rep ? std::max(1, std::atoi(rep)) : 1;
    cudaDeviceProp p{};
    CHECK(cudaGetDeviceProperties(&p, 0));
    std::printf("%s, %d SMs\n", p.name, p.multiProcessorCount);
    Flush flush;
    run<float>(parent, offsets, flush, repeat);
    run<double>(parent, offsets, flush, repeat);
}
