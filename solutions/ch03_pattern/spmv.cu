// Solution, chapter 3 (the computation pattern): SPMV, y = alpha A x + beta y, A symmetric in
// packed storage.
//
// Chapter 3's several threads per result, on a column of the stored triangle: a block of 256
// threads owns column j (a grid-stride loop over the columns that all threads of a block take
// together). Its threads read the column's contiguous entries once, coalesced, and use each
// A(i, j) twice: A(i, j) x[i] goes into the column's dot, which is y[j]'s share (A(j, i) = A(i, j)),
// and, off the diagonal, alpha A(i, j) x[j] goes straight to y[i] with an atomic add (other
// blocks add to the same y[i]). The 256 partial dots meet through warp shuffles and shared memory
// behind a barrier, and thread 0 adds alpha times their sum to y[j]. A first kernel sets
// y = beta y (0 when beta == 0, the old y unread), so that the column kernel only adds. Reading the
// triangle once halves the bytes of A against reading both halves; the price is the atomics, and
// an order of the float additions that varies from run to run.
// Contract and rules: exercises/exercise_spmv.hpp.
#include "exercise_spmv.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kThreads = 256;  // per block: one column of the stored triangle

// y = beta y; with beta == 0 the old y (a NaN, say) is not read.
__global__ void scale_y(SpmvArgs a) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; k < a.n; k += stride)
        a.y[k] = a.beta == 0.0f ? 0.0f : a.beta * a.y[k];
}

__global__ void spmv_columns(SpmvArgs a) {
    __shared__ float warp_sums[kThreads / 32];
    const long long n = a.n;
    for (long long j = blockIdx.x; j < n; j += gridDim.x) {
        // Column j of the stored triangle: rows [0, j] ('U') or [j, n) ('L'), contiguous in AP.
        const long long first_row = a.uplo == 'U' ? 0 : j;
        const long long count = a.uplo == 'U' ? j + 1 : n - j;
        const float* col = a.AP + (a.uplo == 'U' ? j * (j + 1) / 2 : j + (2 * n - j - 1) * j / 2);
        const float xj = a.x[j];
        float dot = 0.0f;
        for (long long t = threadIdx.x; t < count; t += kThreads) {
            const long long i = first_row + t;
            const float aij = col[t];
            dot += aij * a.x[i];                                  // A(j, i) x[i], for y[j]
            if (i != j) atomicAdd(a.y + i, a.alpha * aij * xj);  // A(i, j) x[j], for y[i]
        }
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, off);
        if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = dot;
        __syncthreads();  // every warp's partial dot is in
        if (threadIdx.x == 0) {
            float sum = 0.0f;
            for (int w = 0; w < kThreads / 32; ++w) sum += warp_sums[w];
            atomicAdd(a.y + j, a.alpha * sum);
        }
        __syncthreads();  // read before the next column overwrites them
    }
}

}  // namespace

void spmv(const SpmvArgs& a, cudaStream_t stream) {
    check_spmv_args("ch03 spmv", a);
    if (spmv_quick_return(a)) return;
    scale_y<<<grid_for(a.n, kThreads), kThreads, 0, stream>>>(a);
    WB_CHECK_LAUNCH();
    spmv_columns<<<grid_for(a.n, 1), kThreads, 0, stream>>>(a);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
