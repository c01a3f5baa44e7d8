// Exercise, chapter 3 (the computation pattern): SPMV, y = alpha A x + beta y, A symmetric in
// packed storage.
//
// Contract, rules, packed storage and the float64 reference: exercises/exercise_spmv.hpp. What is
// given: the launcher (argument checks, BLAS's quick return, a first kernel that sets y = beta y,
// one block of 256 threads per column of the stored triangle, a grid from grid_for()). What you
// write: the column kernel, with chapter 3's several threads per result and the stored triangle
// read once. Block j finds column j's entries in AP (the packed index math: the column's first
// entry and its length differ between 'U' and 'L'), and each thread takes every 256th of them:
// A(i, j) x[i] goes into the column's dot (y[j]'s share, since A(j, i) = A(i, j)), and, off the
// diagonal only, alpha A(i, j) x[j] goes to y[i] (other blocks add there too: atomicAdd). The 256
// partial dots meet in shared memory before thread 0 adds alpha times their sum to y[j]. Mind the
// column's ends (the last column of 'L' ends AP), the diagonal (counted once), the barriers (the
// partial dots must all be in before they are added, and added before the next column overwrites
// them), and a grid smaller than n (a grid-stride loop over the columns that all threads of a
// block take together).
#include "exercise_spmv.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kThreads = 256;  // per block: one column of the stored triangle

// y = beta y; with beta == 0 the old y (a NaN, say) is not read. Given.
__global__ void scale_y(SpmvArgs a) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; k < a.n; k += stride)
        a.y[k] = a.beta == 0.0f ? 0.0f : a.beta * a.y[k];
}

__global__ void spmv_columns(SpmvArgs a) {
    (void)a;  // TODO: y[j] += alpha sum_i A(j, i) x[i], and y[i] += alpha A(i, j) x[j] for i != j
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
