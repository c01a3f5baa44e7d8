// symv_operands.cuh — what the SYMV probes (symv_probe.cu, symv_offset_probe.cu, symv_timeline.cu)
// share: a seeded matrix and x, y on the device, filled by a kernel (no host copy of n^2
// elements), the call's arguments (alpha = 1.5, beta = 0.5: both terms of y = alpha A x + beta y
// do work), and the comma-list option parser. Header-only, like probe_timing.cuh.
#pragma once

#include "probe_timing.cuh"

#include "symv.hpp"

#include <cstdlib>
#include <cstring>
#include <vector>

/// Values in [-1, 1) from a hash of the index and a seed.
template <class T>
__global__ void fill_kernel(T* A, size_t elems, unsigned seed) {
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < elems;
         i += static_cast<size_t>(gridDim.x) * blockDim.x) {
        unsigned h = static_cast<unsigned>(i) * 2654435761u ^ static_cast<unsigned>(i >> 32) ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        A[i] = T(static_cast<int>(h & 0xffff) - 32768) / T(32768);
    }
}

/// A (`a_elems` elements: ld x columns of the parent matrix), x and y (`len` elements each).
template <class T>
struct SymvOperands {
    T *A = nullptr, *x = nullptr, *y = nullptr;
    SymvOperands(size_t a_elems, int len) {
        CHECK(cudaMalloc(&A, a_elems * sizeof(T)));
        CHECK(cudaMalloc(&x, len * sizeof(T)));
        CHECK(cudaMalloc(&y, len * sizeof(T)));
        fill_kernel<T><<<1024, 256>>>(A, a_elems, 17u);
        fill_kernel<T><<<64, 256>>>(x, len, 29u);
        fill_kernel<T><<<64, 256>>>(y, len, 31u);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
    }
    SymvOperands(const SymvOperands&) = delete;
    SymvOperands& operator=(const SymvOperands&) = delete;
    ~SymvOperands() {
        cudaFree(A);
        cudaFree(x);
        cudaFree(y);
    }
    /// y = 1.5 op(A0) x + 0.5 y for the n x n matrix at A0 (inside A) with leading dimension lda.
    wb::SymvArgs<T> args(wb::Uplo uplo, int n, const T* A0, int lda) const {
        wb::SymvArgs<T> a;
        a.uplo = uplo;
        a.n = n;
        a.alpha = T(1.5);
        a.A = A0;
        a.lda = lda;
        a.x = x;
        a.beta = T(0.5);
        a.y = y;
        return a;
    }
};

/// "1024,4096,8192" -> {1024, 4096, 8192}.
inline std::vector<int> int_list(char* s) {
    std::vector<int> v;
    for (char* t = std::strtok(s, ","); t; t = std::strtok(nullptr, ",")) v.push_back(std::atoi(t));
    return v;
}
