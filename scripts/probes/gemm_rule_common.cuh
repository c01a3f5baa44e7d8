// gemm_rule_common.cuh — what gemm_rule_sweep.cu and gemm_rule_check.cu share: the 65 GEMM shapes of gemm_rule_sweep.cu and gemm_rule_check.cu: the
// chapter's nine, the shape set's in-between classes, and 40 seeded random ones (each side 16 ...
// 12000, log-uniform; 2e9 ... 3e11 flops; C of at least 4096 elements), the operands' fill and
// the timer (median of `reps` calls after two).
#pragma once

#include "check.hpp"
#include "gemm.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

struct S { int m, n, k; };
inline std::vector<S> shapes() {
    std::vector<S> sh = {{8192, 40, 8192}, {8192, 56, 8192}, {8192, 100, 8192}, {8192, 200, 8192}, {20, 8192, 8192},
                         {48, 8192, 8192}, {96, 8192, 8192}, {200, 8192, 8192}, {1000, 777, 3333}, {5000, 123, 5000},
                         {3333, 3333, 100}, {777, 9999, 555}, {2500, 2500, 2500}, {10000, 50, 10000}, {1536, 1536, 12000},
                         {30000, 30, 4000}, {4096, 4096, 4096}, {8192, 8192, 8192}, {1024, 1024, 1024}, {2048, 2048, 2048},
                         {4097, 4097, 4097}, {6000, 6000, 6000}, {4096, 4096, 256}, {1024, 1024, 16384}, {16384, 256, 4096}};
    std::mt19937 g(20261126);
    auto lu = [&](double lo, double hi) { return (int)std::exp(std::log(lo) + (std::log(hi) - std::log(lo)) * std::uniform_real_distribution<double>(0, 1)(g)); };
    while (sh.size() < 65) {
        S x{lu(16, 12000), lu(16, 12000), lu(16, 12000)};
        const double fl = 2.0 * x.m * x.n * x.k;
        if (fl < 2e9 || fl > 3e11 || (long long)x.m * x.n < 4096) continue;
        sh.push_back(x);
    }
    return sh;
}

/// Seeded values of 16 bits in [-1, 1) (probe timing only: the tests check the results).
template <class T>
__global__ void fill(T* p, size_t n, unsigned seed) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        p[i] = (T)((int)(h & 0xffff) - 32768) / (T)32768;
    }
}

/// Median of `reps` calls of f (CUDA events) after two untimed ones, in ms; `before` runs ahead of
/// each timed call, outside the timed range (e.g. an L2 flush).
template <class F, class B>
double med_each(F f, int reps, B before) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (int w = 0; w < 2; ++w) f();
    std::vector<float> t;
    for (int r = 0; r < reps; ++r) {
        before(r);
        cudaEventRecord(a);
        f();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        t.push_back(ms);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

/// Median of `reps` calls of f (CUDA events) after two untimed ones, in ms.
template <class F>
double med(F f, int reps) {
    return med_each(f, reps, [](int) {});
}

/// A, B and C for every shape of a list (each as large as the largest operand of any shape),
/// filled with seeded values; freed with the object.
template <class T>
struct Operands {
    T *A = nullptr, *B = nullptr, *C = nullptr;
    explicit Operands(const std::vector<S>& sh) {
        size_t maxe = 0;
        for (S s : sh) maxe = std::max({maxe, (size_t)s.m * s.k, (size_t)s.k * s.n, (size_t)s.m * s.n});
        WB_CUDA(cudaMalloc(&A, maxe * sizeof(T)));
        WB_CUDA(cudaMalloc(&B, maxe * sizeof(T)));
        WB_CUDA(cudaMalloc(&C, maxe * sizeof(T)));
        fill<<<1024, 256>>>(A, maxe, 1);
        fill<<<1024, 256>>>(B, maxe, 2);
        fill<<<1024, 256>>>(C, maxe, 3);
        WB_CUDA(cudaDeviceSynchronize());
    }
    ~Operands() { cudaFree(A); cudaFree(B); cudaFree(C); }
    Operands(const Operands&) = delete;
    Operands& operator=(const Operands&) = delete;

    /// The probes' call of shape s: op(A) = oa, op(B) = N, alpha 1.5, beta 0.5, tight leading
    /// dimensions (odd m or k leave the columns unaligned).
    wb::GemmArgs<T> call(S s, wb::Op oa) const {
        wb::GemmArgs<T> a;
        a.op_a = oa; a.op_b = wb::Op::N; a.m = s.m; a.n = s.n; a.k = s.k; a.alpha = T(1.5); a.beta = T(0.5);
        a.A = A; a.lda = oa == wb::Op::N ? s.m : s.k; a.B = B; a.ldb = s.k; a.C = C; a.ldc = s.m;
        return a;
    }
};

namespace wb::tuned {
template <class T> wb::GemmLaunch gemm_default(const wb::GemmArgs<T>&);
template <class T> std::vector<wb::GemmLaunch> gemm_configs();
}  // namespace wb::tuned
