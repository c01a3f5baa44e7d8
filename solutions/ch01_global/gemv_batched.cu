// Solution, chapter 1 (global memory): a strided batch of GEMVs in one launch.
//
// One thread per output entry (b, k), numbered batch-major, so consecutive threads take
// consecutive k of the same product. For 'N' thread k walks row k of A_b: at each step l the
// warp reads 32 adjacent floats of column l (coalesced), and x_b[l] is the same address for the
// whole warp (one broadcast). For 'T' thread k walks column k: the warp's reads lie lda apart,
// one sector per thread, the same waste chapter 1's transpose has on its write side and the one
// a later chapter's step removes. The sum runs in float, as BLAS's sgemv does.
// Contract and rules: exercises/exercise_gemv_batched.hpp.
#include "exercise_gemv_batched.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

__global__ void gemv_batched_kernel(GemvBatchedArgs a) {
    const long long ylen = a.trans == 'N' ? a.m : a.n;
    const long long xlen = a.trans == 'N' ? a.n : a.m;
    const long long total = static_cast<long long>(a.batch) * ylen;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += stride) {
        const long long b = t / ylen, k = t - b * ylen;
        const float* A = a.A + b * a.strideA;
        const float* x = a.x + b * a.stridex;
        float* y = a.y + b * a.stridey + k * a.incy;
        // 'N': element (k, l) at A[k + l * lda]; 'T': element (l, k) at A[l + k * lda].
        const long long step = a.trans == 'N' ? a.lda : 1;
        const float* row = A + (a.trans == 'N' ? k : k * a.lda);
        float dot = 0.0f;
        for (long long l = 0; l < xlen; ++l) dot += row[l * step] * x[l * a.incx];
        *y = a.beta == 0.0f ? a.alpha * dot : a.alpha * dot + a.beta * *y;
    }
}

}  // namespace

void gemv_batched(const GemvBatchedArgs& a, cudaStream_t stream) {
    check_gemv_batched_args("ch01 gemv_batched", a);
    if (gemv_batched_quick_return(a)) return;
    constexpr int kThreads = 256;
    const unsigned blocks = grid_for(a.batch * gemv_y_len(a), kThreads);
    gemv_batched_kernel<<<blocks, kThreads, 0, stream>>>(a);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
