// Known wrong (chapter 1, batched GEMV): a race on y. Two threads share each output entry, each
// summing half of the dot product, and both read y, add their half and write it back with plain
// loads and stores: the two read-modify-writes of the same word overlap and one half is lost.
// (Global memory: racecheck does not see it; the wrong values do.)
// gemv_batched wrong: expect=wrong values
#include "exercise_gemv_batched.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

__global__ void gemv_batched_kernel(GemvBatchedArgs a) {
    const long long ylen = a.trans == 'N' ? a.m : a.n;
    const long long xlen = a.trans == 'N' ? a.n : a.m;
    const long long total = 2LL * a.batch * ylen;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += stride) {
        const long long pair = t >> 1, half = t & 1;
        const long long b = pair / ylen, k = pair - b * ylen;
        const float* A = a.A + b * a.strideA;
        const float* x = a.x + b * a.stridex;
        const long long step = a.trans == 'N' ? a.lda : 1;
        const float* row = A + (a.trans == 'N' ? k : k * a.lda);
        const long long l0 = half == 0 ? 0 : xlen / 2, l1 = half == 0 ? xlen / 2 : xlen;
        float dot = 0.0f;
        for (long long l = l0; l < l1; ++l) dot += row[l * step] * x[l * a.incx];
        float* y = a.y + b * a.stridey + k * a.incy;
        const float old = *y;  // both halves read y ...
        const float mine = a.alpha * dot;
        *y = half == 0 ? mine + (a.beta == 0.0f ? 0.0f : a.beta * old) : old + mine;  // ... and both write it
    }
}

}  // namespace

void gemv_batched(const GemvBatchedArgs& a, cudaStream_t stream) {
    check_gemv_batched_args("ch01 gemv_batched", a);
    if (gemv_batched_quick_return(a)) return;
    constexpr int kThreads = 256;
    const unsigned blocks = grid_for(2 * a.batch * gemv_y_len(a), kThreads);
    gemv_batched_kernel<<<blocks, kThreads, 0, stream>>>(a);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
