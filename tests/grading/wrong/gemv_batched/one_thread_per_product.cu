// Known wrong (chapter 1, batched GEMV): right, but much slower. One thread computes a whole
// product y_b, entry after entry: a batch of 16 large products runs on 16 threads, and the
// warp's 16 lanes read addresses strideA apart. The values are those of the solution.
// gemv_batched wrong: expect=slower
#include "exercise_gemv_batched.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

__global__ void gemv_batched_kernel(GemvBatchedArgs a) {
    const long long ylen = a.trans == 'N' ? a.m : a.n;
    const long long xlen = a.trans == 'N' ? a.n : a.m;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long b = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; b < a.batch; b += stride) {
        const float* A = a.A + b * a.strideA;
        const float* x = a.x + b * a.stridex;
        const long long step = a.trans == 'N' ? a.lda : 1;
        for (long long k = 0; k < ylen; ++k) {
            const float* row = A + (a.trans == 'N' ? k : k * a.lda);
            float dot = 0.0f;
            for (long long l = 0; l < xlen; ++l) dot += row[l * step] * x[l * a.incx];
            float* y = a.y + b * a.stridey + k * a.incy;
            *y = a.beta == 0.0f ? a.alpha * dot : a.alpha * dot + a.beta * *y;
        }
    }
}

}  // namespace

void gemv_batched(const GemvBatchedArgs& a, cudaStream_t stream) {
    check_gemv_batched_args("ch01 gemv_batched", a);
    if (gemv_batched_quick_return(a)) return;
    constexpr int kThreads = 32;
    gemv_batched_kernel<<<grid_for(a.batch, kThreads), kThreads, 0, stream>>>(a);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
