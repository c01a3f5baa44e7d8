// Known wrong (chapter 2, SYRK): right, but much slower. One thread computes a whole column of
// C's triangle straight from global memory: n threads in all (a few SMs' worth), each summing
// about n k / 2 products one after the other. The values are those of a correct SYRK.
// syrk wrong: expect=slower
#include "exercise_syrk.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

__global__ void syrk_columns(SyrkArgs a) {
    const long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j >= a.n) return;
    const bool reads_a = a.alpha != 0.0f && a.k > 0;
    auto op = [&](long long r, long long p) { return a.trans == 'N' ? a.A[r + p * a.lda] : a.A[p + r * a.lda]; };
    const long long first = a.uplo == 'L' ? j : 0, last = a.uplo == 'L' ? a.n : j + 1;
    for (long long i = first; i < last; ++i) {
        float acc = 0.0f;
        for (long long p = 0; reads_a && p < a.k; ++p) acc += op(i, p) * op(j, p);
        float* c = a.C + i + j * a.ldc;
        *c = a.beta == 0.0f ? a.alpha * acc : a.alpha * acc + a.beta * *c;
    }
}

}  // namespace

void syrk(const SyrkArgs& a, cudaStream_t stream) {
    check_syrk_args("ch02 syrk", a);
    if (syrk_quick_return(a)) return;
    constexpr int kThreads = 128;
    syrk_columns<<<static_cast<unsigned>((a.n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(a);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
