// Known wrong (chapter 1, batched GEMV): an unguarded edge. The launch rounds len(y) up to whole
// blocks (blockIdx.y is the product) and the kernel never checks k < len(y): the threads past the
// end read rows of A that are not there and write y entries that are not there, into the next
// product's y or past the end of y (the guard band after y catches it).
// gemv_batched wrong: expect=outside y
#include "exercise_gemv_batched.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

__global__ void gemv_batched_kernel(GemvBatchedArgs a) {
    const long long xlen = a.trans == 'N' ? a.n : a.m;
    const long long b = blockIdx.y;
    const long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;  // no k < len(y) check
    const float* A = a.A + b * a.strideA;
    const float* x = a.x + b * a.stridex;
    const long long step = a.trans == 'N' ? a.lda : 1;
    const float* row = A + (a.trans == 'N' ? k : k * a.lda);
    float dot = 0.0f;
    for (long long l = 0; l < xlen; ++l) dot += row[l * step] * x[l * a.incx];
    float* y = a.y + b * a.stridey + k * a.incy;
    *y = a.beta == 0.0f ? a.alpha * dot : a.alpha * dot + a.beta * *y;
}

}  // namespace

void gemv_batched(const GemvBatchedArgs& a, cudaStream_t stream) {
    check_gemv_batched_args("ch01 gemv_batched", a);
    if (gemv_batched_quick_return(a)) return;
    constexpr int kThreads = 32;
    const dim3 grid(static_cast<unsigned>((gemv_y_len(a) + kThreads - 1) / kThreads), static_cast<unsigned>(a.batch));
    gemv_batched_kernel<<<grid, kThreads, 0, stream>>>(a);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
