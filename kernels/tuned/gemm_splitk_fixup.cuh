/// \file tuned/gemm_splitk_fixup.cuh
/// \brief Split k's second pass inside the tuned GEMM kernel: the last slice of a tile of C to
///        finish adds the slices' partials and writes C (splitk::Fixup says when it runs).
///        Included by gemm_kernel.cuh only.
#pragma once

#include "tuned/gemm_splitk.hpp"

namespace wb::tuned::gemm_impl {
namespace {

/// Called by every thread of a split block after it has stored its partial tile (rows i0 ..
/// i0+BM-1, columns j0 .. j0+BN-1 of slice blockIdx.z; the slices lie `mn` elements apart from
/// P, leading dimension m). The pattern is the CUDA samples' threadFenceReduction: a fence makes
/// this block's stores visible to the whole device before its arrival is counted, so the block
/// that counts last sees every slice's partial. That block adds them in slice order, z = 0, 1,
/// ..., exactly as splitk::sum does (same bits as the separate pass, run to run), and applies
/// alpha and beta once. `flag`: one int of the block's shared memory, free once the main loop is
/// done. The partials are read with ld.global.cg: written by other SMs, they are in the L2, never
/// in this SM's L1.
template <class T, int BM, int BN, int THREADS>
__device__ void fixup_tile(int m, int n, int i0, int j0, const T* P, long long mn, const splitk::Fixup<T>& f,
                           int* flag) {
    __threadfence();  // this thread's stores of the partial, device-wide, before the count below
    __syncthreads();  // every thread's; and the main loop's shared memory is free for the flag
    const unsigned tile = blockIdx.x + blockIdx.y * gridDim.x;
    if (threadIdx.x == 0) {
        const unsigned before = atomicAdd(f.counters + tile, 1u);
        const bool last = before + 1 == gridDim.z;
        if (last) f.counters[tile] = 0;  // every slice has counted: re-armed for the next call
        *flag = last;
    }
    __syncthreads();
    if (!*flag) return;
    __threadfence();  // the count above was the last: the other slices' stores are visible
    const int rows = min(BM, m - i0), cols = min(BN, n - j0);
    // U elements per thread at a time: U independent chains of loads, so that each slice's L2
    // round trip is paid once per U elements, not once per element.
    constexpr int U = 4;
    const int slices = static_cast<int>(gridDim.z);
    for (int e0 = threadIdx.x; e0 < BM * BN; e0 += THREADS * U) {
        long long at[U];
        bool in[U];
        T sum[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int e = e0 + u * THREADS, i = e % BM, j = e / BM;
            in[u] = e < BM * BN && i < rows && j < cols;
            at[u] = (i0 + i) + static_cast<long long>(j0 + j) * m;
            sum[u] = in[u] ? __ldcg(P + at[u]) : T(0);
        }
        for (int z = 1; z < slices; ++z)
#pragma unroll
            for (int u = 0; u < U; ++u)
                if (in[u]) sum[u] += __ldcg(P + z * mn + at[u]);
#pragma unroll
        for (int u = 0; u < U; ++u) {
            if (!in[u]) continue;
            const int e = e0 + u * THREADS, i = e % BM, j = e / BM;
            T* c = f.C + (i0 + i) + static_cast<long long>(j0 + j) * f.ldc;
            *c = f.beta == T(0) ? f.alpha * sum[u] : f.alpha * sum[u] + f.beta * *c;
        }
    }
}

}  // namespace
}  // namespace wb::tuned::gemm_impl
