// Known wrong (chapter 1, batched GEMV): the beta * y term is dropped, so y = alpha * op(A) x
// whatever beta says. Right whenever beta == 0: only the cases with beta != 0 catch it.
// gemv_batched wrong: expect=wrong values
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
        *y = a.alpha * dot;
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
