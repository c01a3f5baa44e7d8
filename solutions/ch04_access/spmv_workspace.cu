// Solution, chapter 4 (the access pattern): SPMV, y = alpha A x + beta y with A symmetric in
// packed storage, deterministic through a workspace.
//
// Chapter 4's SYMV writes partial sums to a workspace instead of adding them with atomics; here
// that makes the result reproducible. The stored columns are dealt to P panels (column j to panel
// j % P: the long and the short columns of the triangle spread evenly). A block of 256 threads
// owns a panel and its workspace row w = work + p n, and within it thread t owns the entries
// w[i] with i % 256 == t: it zeroes them, adds to them the mirror terms A(i, j) x[j] of every
// column of the panel, and, after the block has summed column j's dot sum_i A(i, j) x[i] (warp
// shuffles, shared memory, a barrier), the owner of w[j] adds it. No entry has two writers, so no
// atomics; the threads of a warp still read neighbouring entries of the column (coalesced). A
// second kernel sums the P rows in the order p = 0, 1, ... into y. Every addition happens in an
// order fixed by the indices alone: the same y, bit for bit, on every run.
// Contract and rules: exercises/exercise_spmv_workspace.hpp.
#include "exercise_spmv_workspace.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kThreads = 256;

__global__ void spmv_panels(SpmvWorkspaceArgs a, long long panels) {
    __shared__ float warp_sums[kThreads / 32];
    const long long n = a.n, t = threadIdx.x;
    for (long long p = blockIdx.x; p < panels; p += gridDim.x) {
        float* w = a.work + p * n;
        for (long long i = t; i < n; i += kThreads) w[i] = 0.0f;  // this thread's entries
        for (long long j = p; j < n; j += panels) {
            const long long first_row = a.uplo == 'U' ? 0 : j, end_row = a.uplo == 'U' ? j + 1 : n;
            const float* col = a.AP + (a.uplo == 'U' ? j * (j + 1) / 2 : j + (2 * n - j - 1) * j / 2) - first_row;
            const float xj = a.x[j];
            float dot = 0.0f;
            // The rows this thread owns: i % kThreads == t, from the column's first row on.
            for (long long i = first_row + (t - first_row % kThreads + kThreads) % kThreads; i < end_row; i += kThreads) {
                const float aij = col[i];
                dot += aij * a.x[i];                 // A(j, i) x[i], for y[j]
                if (i != j) w[i] += aij * xj;        // A(i, j) x[j], for y[i]
            }
#pragma unroll
            for (int off = 16; off > 0; off >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, off);
            if (t % 32 == 0) warp_sums[t / 32] = dot;
            __syncthreads();  // every warp's partial dot is in
            if (t == j % kThreads) {  // the owner of w[j]
                float sum = 0.0f;
                for (int k = 0; k < kThreads / 32; ++k) sum += warp_sums[k];
                w[j] += sum;
            }
            __syncthreads();  // read before the next column overwrites them
        }
    }
}

__global__ void reduce_panels(SpmvWorkspaceArgs a, long long panels) {
    const long long n = a.n, stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        float s = 0.0f;
        for (long long p = 0; p < panels; ++p) s += a.work[p * n + i];  // panel order: fixed
        a.y[i] = a.beta == 0.0f ? a.alpha * s : a.alpha * s + a.beta * a.y[i];
    }
}

}  // namespace

void spmv(const SpmvWorkspaceArgs& a, cudaStream_t stream) {
    check_spmv_workspace_args("ch04 spmv_workspace", a);
    if (spmv_quick_return(a)) return;
    const long long panels = spmv_workspace_panels(a.n);
    spmv_panels<<<grid_for(panels, 1), kThreads, 0, stream>>>(a, panels);
    WB_CHECK_LAUNCH();
    reduce_panels<<<grid_for(a.n, kThreads), kThreads, 0, stream>>>(a, panels);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
