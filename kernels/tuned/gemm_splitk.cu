/// \file tuned/gemm_splitk.cu
/// \brief The tuned GEMM's split-k reduction: the partial C's of the slices of k added in slice
///        order, alpha and beta applied once (gemm_splitk.hpp says when a split runs).
#include "tuned/gemm_splitk.hpp"

#include "buffer.hpp"
#include "launch_checks.hpp"
#include "tuned/dependent_launch.cuh"
#include "tuned/dependent_launch.hpp"
#include "vec16.cuh"

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace wb::tuned::splitk {
namespace {

/// V elements as one load: the 16-byte vector (vec16.cuh) where V > 1, the element where V = 1.
template <class T, int V>
using VecOf = std::conditional_t<V == 1, T, typename wb::detail::Vec16<T>::type>;

/// Threads per block of the pass at most (its launch bound).
constexpr int kSumThreads = 256;

/// One vector load into registers (memcpy of the vector: no alignment asked of the array).
template <class T, int V>
__device__ __forceinline__ void load(const T* p, T (&out)[V]) {
    using Vec = VecOf<T, V>;
    const Vec v = *reinterpret_cast<const Vec*>(p);
    __builtin_memcpy(out, &v, sizeof v);
}

/// Slices z ... z + U - 1 of the group at element e added to sum in slice order, their U loads
/// issued before the first add.
template <class T, int V, int U>
__device__ __forceinline__ void add_slices(const T* __restrict__ P, int z, long long mn, long long e, T (&sum)[V]) {
    T v[U][V];
#pragma unroll
    for (int u = 0; u < U; ++u) load<T, V>(P + (z + u) * mn + e, v[u]);
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
        for (int w = 0; w < V; ++w) sum[w] += v[u][w];
}

/// The sum of split-k partials: C = alpha * (P_0 + P_1 + ... + P_{S-1}) + beta * C, the slices
/// added in their order (bit-identical run to run); C is not read when beta == 0.
///
/// The partials were written by the kernel just before, m x n each with leading dimension m: at the
/// sizes a split runs (a C of a few MiB) they are still in the L2, so the pass is bound by how many
/// loads are in flight, not by DRAM. Each thread takes V consecutive rows of one column (V = 16 /
/// sizeof(T) where m is a multiple of V: one 16-byte load per slice, else V = 1), and 8, then 4,
/// then 1 slices' loads are issued before their adds (in slice order). The column and row come from
/// one division per element group in 32-bit arithmetic where the groups fit (I = unsigned), not a
/// 64-bit division per element. C's stores are 16-byte where ldc and C allow it (VEC_C).
template <class T, int V, class I, bool VEC_C>
__global__ void __launch_bounds__(kSumThreads)
    splitk_sum(int m, int n, int slices, const T* __restrict__ P, T alpha, T beta, T* __restrict__ C, int ldc) {
    using Vec = VecOf<T, V>;
    // Launched as a programmatic dependent of the split kernel (launch_sum): this block may be
    // resident before that kernel ends; wait here until it has ended and its partials are visible.
    dependent_wait();
    const I mv = static_cast<I>(m / V), groups = mv * static_cast<I>(n);
    const long long mn = static_cast<long long>(m) * n;
    for (I q = blockIdx.x * static_cast<I>(blockDim.x) + threadIdx.x; q < groups;
         q += static_cast<I>(gridDim.x) * blockDim.x) {
        const I j = q / mv, i = (q - j * mv) * V;
        const long long e = static_cast<long long>(j) * m + i;  // the group's first element in a slice
        T sum[V];
        load<T, V>(P + e, sum);
        int z = 1;
        for (; z + 8 <= slices; z += 8) add_slices<T, V, 8>(P, z, mn, e, sum);
        if (z + 4 <= slices) {
            add_slices<T, V, 4>(P, z, mn, e, sum);
            z += 4;
        }
        for (; z < slices; ++z) add_slices<T, V, 1>(P, z, mn, e, sum);
        T* c = C + static_cast<long long>(j) * ldc + i;
        if constexpr (VEC_C) {
            T out[V];
            if (beta == T(0)) {
#pragma unroll
                for (int w = 0; w < V; ++w) out[w] = alpha * sum[w];
            } else {
                T old[V];
                load<T, V>(c, old);
#pragma unroll
                for (int w = 0; w < V; ++w) out[w] = alpha * sum[w] + beta * old[w];
            }
            Vec v;
            __builtin_memcpy(&v, out, sizeof v);
            *reinterpret_cast<Vec*>(c) = v;
        } else {
#pragma unroll
            for (int w = 0; w < V; ++w) c[w] = beta == T(0) ? alpha * sum[w] : alpha * sum[w] + beta * c[w];
        }
    }
}

struct SplitKWorkspaceTag {};

}  // namespace

void* workspace(std::size_t bytes, cudaStream_t s) {
    return workspace_of_current_device<SplitKWorkspaceTag>(s).get(bytes);
}

/// One launch of splitk_sum: one group per thread, at most 32 blocks per SM (the grid-stride loop
/// takes the rest). Where the groups cannot give every SM a block of 256 threads (a small C with
/// many slices, 64 x 64 in 512), blocks of fewer threads (at least 64) spread them over more SMs:
/// such a pass is bound by the loads each SM keeps in flight. From compute capability 9.0 on it is
/// a programmatic dependent launch: the split kernel before it in the stream lets it launch once
/// all of its blocks have started (griddepcontrol.launch_dependents), so this grid's launch and its
/// blocks' start overlap that kernel's last blocks instead of following them; the kernel waits for
/// the partials itself (griddepcontrol.wait). Any other kernel before it triggers at its end.
template <class T, int V, class I, bool VEC_C>
void launch_sum(int m, int n, int slices, const T* partials, T alpha, T beta, T* C, int ldc, cudaStream_t s) {
    const long long groups = static_cast<long long>(m / V) * n;
    if (groups == 0) return;  // an empty C: nothing to add (and a grid of no blocks is no launch)
    const long long sms = launch_checks::sm_count();
    const long long per_sm = ((groups + sms - 1) / sms + 31) & ~31LL;  // whole warps
    const int threads = static_cast<int>(std::clamp<long long>(per_sm, 64, kSumThreads));
    const int blocks = static_cast<int>(std::min<long long>((groups + threads - 1) / threads, 32 * sms));
    launch_dependent(splitk_sum<T, V, I, VEC_C>, dim3(static_cast<unsigned>(blocks)),
                     dim3(static_cast<unsigned>(threads)), 0, s, m, n, slices, partials, alpha, beta, C, ldc);
}

template <class T, int V>
void sum_with(int m, int n, int slices, const T* partials, T alpha, T beta, T* C, int ldc, cudaStream_t s) {
    // 32-bit indices where every group's index and the grid's stride fit (the stride adds at most
    // 32 x SMs x 256 past the last group).
    const bool narrow = static_cast<long long>(m / V) * n + (32LL << 20) < (1LL << 32);
    const bool vec_c = V > 1 && ldc % V == 0 && reinterpret_cast<std::uintptr_t>(C) % (V * sizeof(T)) == 0;
    if (narrow && vec_c) launch_sum<T, V, unsigned, V != 1>(m, n, slices, partials, alpha, beta, C, ldc, s);
    else if (narrow) launch_sum<T, V, unsigned, false>(m, n, slices, partials, alpha, beta, C, ldc, s);
    else if (vec_c) launch_sum<T, V, unsigned long long, V != 1>(m, n, slices, partials, alpha, beta, C, ldc, s);
    else launch_sum<T, V, unsigned long long, false>(m, n, slices, partials, alpha, beta, C, ldc, s);
}

template <class T>
void sum(int m, int n, int slices, const T* partials, T alpha, T beta, T* C, int ldc, cudaStream_t s) {
    constexpr int kV = wb::detail::Vec16<T>::width;
    // The vector path needs every slice and column to start on 16 bytes: m a multiple of V (the
    // workspace itself is 256-byte aligned, cudaMalloc's).
    // Where the vector groups would not fill every SM with a block of 256 threads, the element
    // path's four (two) times more threads keep more loads in flight.
    const bool fills =
        static_cast<long long>(m / kV) * n >= static_cast<long long>(kSumThreads) * launch_checks::sm_count();
    if (m % kV == 0 && fills && reinterpret_cast<std::uintptr_t>(partials) % 16 == 0)
        sum_with<T, kV>(m, n, slices, partials, alpha, beta, C, ldc, s);
    else
        sum_with<T, 1>(m, n, slices, partials, alpha, beta, C, ldc, s);
}

template void sum<float>(int, int, int, const float*, float, float, float*, int, cudaStream_t);
template void sum<double>(int, int, int, const double*, double, double, double*, int, cudaStream_t);

}  // namespace wb::tuned::splitk
