// Exercise, chapter 4 (the access pattern): SPMV, y = alpha A x + beta y with A symmetric in
// packed storage, deterministic through a workspace.
//
// Contract and rules: exercises/exercise_spmv_workspace.hpp (chapter 3's SPMV, exercise_spmv.hpp:
// its storage, BLAS conventions and float64 reference; here a workspace of P rows of n floats,
// P = spmv_workspace_panels(n), NaN on entry, and a result that is the same bit for bit on every
// run: no float atomics). What is given: the launcher (argument checks, the quick return, a
// 256-thread block per panel of columns from grid_for(), then a reduction kernel over the n
// entries of y) and the reduction kernel. What you write: the panel kernel, with chapter 4's step
// (partial sums to a workspace, as chapter 4's SYMV does, instead of atomics): for every panel p
// (a grid-stride loop) and its columns j = p, p + P, ... of the stored triangle, each stored
// A(i, j) read once, coalesced, adds A(i, j) x[j] to the workspace row's entry i (i != j) and
// A(i, j) x[i] to column j's dot, which the block sums and adds to entry j. Give every entry of
// the row one owner thread (say the thread i % 256): it zeroes it first and is the only one to
// add to it, so no two threads write one entry and the order of the additions is fixed. Mind the
// barriers around the block's sum of a column's dot, and the end of each column.
#include "exercise_spmv_workspace.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kThreads = 256;

__global__ void spmv_panels(SpmvWorkspaceArgs a, long long panels) {
    (void)a;  // TODO: workspace row p = the panel's columns' contributions to y (before alpha, beta)
    (void)panels;
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
