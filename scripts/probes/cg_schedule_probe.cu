// cg_schedule_probe.cu — the tuned CG's schedules side by side at large n: CUDA graphs of the
// tuned SYMV + the fused vector kernel (schedule 1, the chapter's default until 2026-11-26) and
// the persistent kernel that keeps a share of A in shared memory (schedule 2), microseconds per
// iteration as the chapters time them: a fixed number of iterations (tol = 0), (t(48) - t(16)) / 32,
// the L2 flushed before each solve, median of 7. The matrix: a seeded symmetric one with a
// dominant diagonal (SPD; CG does not converge early at tol = 0).
//
// Build (repository root; a configured build folder, e.g. after ./workbook test):
//   cmake --build build --target cg_schedule_probe      (scripts/probes/CMakeLists.txt: the libraries this
//   configuration found; a changed copy of a kernel: -DWB_PROBE_VARIANT=/abs/path/copy.cu)
// Run: ./build/bin/cg_schedule_probe [--sizes 4096,8192,16384] [--schedules 1,2] [--precision float|double|both]
#include "probe_timing.cuh"

#include "cg.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

std::vector<int> ints(const char* s) {
    std::vector<int> v;
    for (const char* p = s; *p;) {
        v.push_back(std::atoi(p));
        while (*p && *p != ',') ++p;
        if (*p == ',') ++p;
    }
    return v;
}

/// A(i, j) = u(i, j) / n off the diagonal (u in [0, 1), symmetric by a hash of the unordered
/// pair), A(i, i) in [1, 100] spread over the rows: strictly diagonally dominant, SPD, condition
/// number about 100 (48 iterations do not reach r = 0, in float either).
template <class T>
__global__ void fill_kernel(T* A, int n, int lda, unsigned seed) {
    const int j = blockIdx.y;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const unsigned lo = i < j ? i : j, hi = i < j ? j : i;
        unsigned h = lo * 0x9e3779b9u ^ (hi + seed) * 0x85ebca6bu;
        h ^= h >> 16;
        h *= 0x7feb352du;
        h ^= h >> 15;
        const T u = static_cast<T>(h & 0xffffff) / T(16777216);
        const T d = T(1) + T(99) * static_cast<T>((static_cast<long long>(i) * 7919) % n) / static_cast<T>(n);
        A[i + static_cast<long long>(j) * lda] = i == j ? d : u / T(n);
    }
}

template <class T>
__global__ void fill_vec(T* v, int n, T value) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v[i] = value * (1 + i % 7);
}

template <class T>
void run(int n, const std::vector<int>& schedules, const Flush& flush) {
    const int lda = n;
    T *A, *b, *x;
    CHECK(cudaMalloc(&A, sizeof(T) * static_cast<size_t>(lda) * n));
    CHECK(cudaMalloc(&b, sizeof(T) * n));
    CHECK(cudaMalloc(&x, sizeof(T) * n));
    fill_kernel<T><<<dim3(std::max(1, n / 256), n), 256>>>(A, n, lda, 12345u);
    fill_vec<T><<<64, 256>>>(b, n, T(1));
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    for (int sched : schedules) {
        wb::CgLaunch l;
        l.block = 256;
        l.check_every = 8;
        l.schedule = sched;
        wb::CgResult res;
        auto solve = [&](int iters) {
            CHECK(cudaMemsetAsync(x, 0, sizeof(T) * n));
            wb::CgArgs<T> a;
            a.n = n;
            a.A = A;
            a.lda = lda;
            a.b = b;
            a.x = x;
            a.tol = 0;
            a.max_iter = iters;
            a.result = &res;
            wb::tuned::cg<T>(a, l, nullptr);
        };
        const double t16 = median_us([&] { solve(16); }, flush, 7, 2);
        const int it16 = res.iterations;
        const double t48 = median_us([&] { solve(48); }, flush, 7, 2);
        const int it48 = res.iterations;
        std::printf("%-6s n %6d schedule %d  %8.2f us/iteration  (16 it: %8.1f us, 48 it: %8.1f us; %d / %d it, residual %.3g)\n",
                    sizeof(T) == 4 ? "float" : "double", n, sched, (t48 - t16) / (it48 - it16), t16, t48, it16, it48,
                    res.residual);
    }
    CHECK(cudaFree(A));
    CHECK(cudaFree(b));
    CHECK(cudaFree(x));
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<int> sizes = {4096, 8192, 16384}, schedules = {1, 2};
    std::string prec = "both";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--sizes")) sizes = ints(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--schedules")) schedules = ints(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--precision")) prec = argv[i + 1];
    }
    Flush flush;
    for (int n : sizes) {
        if (prec != "double") run<float>(n, schedules, flush);
        if (prec != "float") run<double>(n, schedules, flush);
    }
    return 0;
}
