/// \file tuned/gemm_splitk.cu
/// \brief The tuned GEMM's split-k reduction: the partial C's of the slices of k added in slice
///        order, alpha and beta applied once (gemm_splitk.hpp says when a split runs).
#include "tuned/gemm_splitk.hpp"

#include "buffer.hpp"
#include "launch_checks.hpp"

#include <algorithm>

namespace wb::tuned::splitk {
namespace {

/// The sum of split-k partials: C = alpha * (P_0 + P_1 + ... + P_{S-1}) + beta * C, the slices
/// added in their order (bit-identical run to run); C is not read when beta == 0.
template <class T>
__global__ void splitk_sum(int m, int n, int slices, const T* __restrict__ P, T alpha, T beta, T* __restrict__ C,
                           int ldc) {
    const long long mn = static_cast<long long>(m) * n;
    for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < mn;
         e += static_cast<long long>(gridDim.x) * blockDim.x) {
        // Up to 8 slices' loads in flight before their adds (in slice order): with hundreds of
        // slices (a small C, a long k) one load per add would wait an L2 round trip each.
        T sum = P[e];
        int z = 1;
        for (; z + 8 <= slices; z += 8) {
            T v[8];
#pragma unroll
            for (int u = 0; u < 8; ++u) v[u] = P[(z + u) * mn + e];
#pragma unroll
            for (int u = 0; u < 8; ++u) sum += v[u];
        }
        for (; z < slices; ++z) sum += P[z * mn + e];
        const long long i = e % m, j = e / m;
        T* c = C + i + j * ldc;
        *c = beta == T(0) ? alpha * sum : alpha * sum + beta * *c;
    }
}

struct SplitKWorkspaceTag {};

}  // namespace

void* workspace(std::size_t bytes, cudaStream_t s) {
    return workspace_of_current_device<SplitKWorkspaceTag>(s).get(bytes);
}

template <class T>
void sum(int m, int n, int slices, const T* partials, T alpha, T beta, T* C, int ldc, cudaStream_t s) {
    const long long mn = static_cast<long long>(m) * n;
    const int blocks = static_cast<int>(std::min<long long>((mn + 255) / 256, 8LL * launch_checks::sm_count()));
    splitk_sum<T><<<blocks, 256, 0, s>>>(m, n, slices, partials, alpha, beta, C, ldc);
}

template void sum<float>(int, int, int, const float*, float, float, float*, int, cudaStream_t);
template void sum<double>(int, int, int, const double*, double, double, double*, int, cudaStream_t);

}  // namespace wb::tuned::splitk
