// Solution, chapter 3 (the computation pattern): GBMV, y = alpha op(A) x + beta y, A banded.
//
// Chapter 3's Q threads per result: a block of 32 x Q threads owns 32 consecutive results;
// thread (tx, ty) sums every Q-th term of result tx's band (the band's bounds clipped to the
// matrix, per result), the Q partial sums meet in shared memory, and row ty = 0 adds them and
// writes y. Where the band is wide and the results few, this is Q times the threads of one thread
// per result. The band layout puts a warp's 32 reads of one step on a diagonal of A, lda - 1
// floats apart ('N'): uncoalesced, the access pattern that a later chapter's step addresses.
// Row blocks are walked with a grid-stride loop that every thread of a block takes together
// (both barriers are reached by all of them).
// Contract and rules: exercises/exercise_gbmv.hpp.
#include "exercise_gbmv.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kResults = 32;  // per block: threadIdx.x
constexpr int kQ = 8;         // threads per result: threadIdx.y

__global__ void gbmv_q(GbmvArgs a) {
    __shared__ float partial[kQ][kResults + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const long long ylen = a.trans == 'N' ? a.m : a.n, xlen = a.trans == 'N' ? a.n : a.m;
    const long long below = a.trans == 'N' ? a.kl : a.ku, above = a.trans == 'N' ? a.ku : a.kl;
    for (long long k0 = static_cast<long long>(blockIdx.x) * kResults; k0 < ylen;
         k0 += static_cast<long long>(gridDim.x) * kResults) {
        const long long k = k0 + tx;
        float sum = 0.0f;
        if (k < ylen) {
            const long long lo = max(0LL, k - below);
            const long long hi = min(xlen - 1, k + above);
            for (long long l = lo + ty; l <= hi; l += kQ) {
                const long long i = a.trans == 'N' ? k : l, j = a.trans == 'N' ? l : k;
                sum += a.A[a.ku + i - j + j * a.lda] * a.x[l * a.incx];
            }
        }
        partial[ty][tx] = sum;
        __syncthreads();  // the partial sums are in
        if (ty == 0 && k < ylen) {
            float dot = 0.0f;
            for (int q = 0; q < kQ; ++q) dot += partial[q][tx];
            float* y = a.y + k * a.incy;
            *y = a.beta == 0.0f ? a.alpha * dot : a.alpha * dot + a.beta * *y;
        }
        __syncthreads();  // read before the next row block overwrites them
    }
}

}  // namespace

void gbmv(const GbmvArgs& a, cudaStream_t stream) {
    check_gbmv_args("ch03 gbmv", a);
    if (gbmv_quick_return(a)) return;
    const unsigned blocks = grid_for(a.trans == 'N' ? a.m : a.n, kResults);
    gbmv_q<<<blocks, dim3(kResults, kQ), 0, stream>>>(a);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
