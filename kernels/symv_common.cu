/// \file symv_common.cu
/// \brief SYMV host pieces shared by every step: argument validation (architecture §3: each message
///        names the function, the argument, its value and the rule), SymvLaunch::str, the
///        y = beta*y kernel of the alpha == 0 case, the workspace and the fixed-order reduction
///        pass of the storage-aware steps, and the SM count the tuned step counts waves with.
#include "symv_common.cuh"

#include "buffer.hpp"
#include "l2_policy.cuh"

#include <algorithm>

namespace wb {

std::string SymvLaunch::str() const {
    using launch_checks::num;
    return launch_checks::LaunchText()
        .add(nb > 0, "nb=" + num(nb))
        .add(block_y > 0 && nb > 0, "Q=" + num(block_y))
        .add(y_blocks > 0, "Y=" + num(y_blocks))
        .add(atomics > 0, "atomics")
        .add(block_x > 0 || block_y > 0, "block=" + launch_checks::dims(block_x, std::max(1, block_y)))
        .str();
}

using launch_checks::fail;
using launch_checks::num;

template <class T>
bool validate_symv(const SymvArgs<T>& a, const char* fn) {
    if (a.uplo != Uplo::Lower && a.uplo != Uplo::Upper)
        fail(fn, "uplo (" + num(static_cast<int>(a.uplo)) + ") must be Lower or Upper");
    if (a.n < 0) fail(fn, "n (" + num(a.n) + ") must be >= 0");
    // Also where alpha == 0: y = beta y then runs with any n, A never read.
    launch_checks::require_indexed(fn, "n", a.n, "rows");
    const int rn = std::max(1, a.n);
    if (a.lda < rn) fail(fn, "lda (" + num(a.lda) + ") must be >= max(1, n) (" + num(rn) + ")");
    if (a.incx != 1)
        fail(fn, "incx (" + num(a.incx) + ") must be 1: the workbook's SYMV reads x as a contiguous vector");
    if (a.incy != 1)
        fail(fn, "incy (" + num(a.incy) + ") must be 1: the workbook's SYMV writes y as a contiguous vector");
    if (a.n == 0) return false;                          // BLAS quick return: y is not touched
    if (a.alpha == T(0) && a.beta == T(1)) return false;  // y = 1*y: nothing to do
    if (a.y == nullptr) fail(fn, "y must not be null when n > 0");
    if (a.alpha != T(0) && a.A == nullptr) fail(fn, "A must not be null when n > 0 and alpha != 0");
    if (a.alpha != T(0) && a.x == nullptr) fail(fn, "x must not be null when n > 0 and alpha != 0");
    return true;
}

template bool validate_symv<float>(const SymvArgs<float>&, const char*);
template bool validate_symv<double>(const SymvArgs<double>&, const char*);

namespace {

//! [symv-scale-y]
/// y = beta*y, or y = 0 without reading y when beta == 0 (alpha == 0; the tuned step's atomics mode).
template <class T>
__global__ void scale_y_kernel(int n, T beta, T* y) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = beta == T(0) ? T(0) : beta * y[i];
}
//! [symv-scale-y]

//! [symv-reduce]
/// The reduction pass. A block is 32 rows x kReduceGroups thread groups: group g adds the row's
/// partials g, g + kReduceGroups, ... and thread (row, 0) then adds the groups' sums in the order
/// 0, 1, ...: a fixed order, so y is bit-identical run to run.
/// The pass reads few bytes (n x nt partials) from many places, so it is latency-bound unless
/// many loads are in flight: a group issues its next kReduceUnroll partials together (guarded,
/// kReduceUnroll accumulators, summed in a fixed order) before it adds any of them, and the writer
/// of y loads beta * y at the start. Two earlier designs waited on one load at a time: one thread
/// per row (an H200 sweep: the deterministic default at 0.79x the atomics mode; \ref notes_symv),
/// then eight groups of one load each (H100, ncu: 7.3 us for 2.2 MB at n = 8192, 9% of DRAM
/// bandwidth: about 8 round trips of one load per thread, docs/notes/symv.md).
constexpr int kReduceRows = 32, kReduceGroups = 8, kReduceUnroll = 8;

template <class T>
__global__ void __launch_bounds__(kReduceRows * kReduceGroups)
reduce_kernel(int n, T alpha, const T* __restrict__ W, int nb, int nt, bool from_start, int skip, int extra,
              int shift, T beta, T* __restrict__ y) {
    __shared__ T part[kReduceGroups][kReduceRows];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;\n" ::: "memory");  // the kernel that wrote W has finished
#endif
    const int tx = threadIdx.x, g = threadIdx.y;
    const int i = blockIdx.x * kReduceRows + tx;
    const T yb = (g == 0 && i < n && beta != T(0)) ? beta * y[i] : T(0);  // in flight with the partials
    // The partials' last use: loading them evict-first ends the evict_last priority the tuned
    // step stored them with, so they do not hold their place in the L2 after the call.
    const unsigned long long last_use = detail::l2_evict_first();
    T sum = 0;
    if (i < n) {
        const int b = (i + shift) / nb;
        const int s0 = from_start ? 0 : b + skip, s1 = from_start ? b + 1 - skip : nt;
        const T* w = W + i;
        T acc[kReduceUnroll];
#pragma unroll
        for (int u = 0; u < kReduceUnroll; ++u) acc[u] = 0;
        // The Y (extra) column sums first: slots nt .. nt + extra - 1, one batch of loads with the first.
        for (int e = g; e < extra; e += kReduceGroups) sum += detail::load_l2_ordered(w + static_cast<long long>(nt + e) * n, last_use);
        for (int base = s0 + g; base < s1; base += kReduceUnroll * kReduceGroups) {
#pragma unroll
            for (int u = 0; u < kReduceUnroll; ++u) {
                const int s = base + u * kReduceGroups;
                if (s < s1) acc[u] += detail::load_l2_ordered(w + static_cast<long long>(s) * n, last_use);
            }
        }
#pragma unroll
        for (int u = 0; u < kReduceUnroll; ++u) sum += acc[u];
    }
    part[g][tx] = sum;
    __syncthreads();
    if (g == 0 && i < n) {
        T t = 0;
#pragma unroll
        for (int k = 0; k < kReduceGroups; ++k) t += part[k][tx];
        y[i] = alpha * t + yb;
    }
}
//! [symv-reduce]

}  // namespace

template <class T>
void symv_scale_y(const SymvArgs<T>& a, cudaStream_t s) {
    if (a.n <= 0 || a.beta == T(1)) return;
    scale_y_kernel<T><<<symv_detail::grid_dim(symv_detail::ceil_div(a.n, 256), kMaxGridX, "symv_scale_y"), 256, 0,
                        s>>>(a.n, a.beta, a.y);
    WB_CHECK_LAUNCH();
}

template void symv_scale_y<float>(const SymvArgs<float>&, cudaStream_t);
template void symv_scale_y<double>(const SymvArgs<double>&, cudaStream_t);

namespace symv_detail {

struct SymvWorkspaceTag {};

template <class T>
T* workspace(std::size_t elems, cudaStream_t s) {
    return static_cast<T*>(
        workspace_of_current_device<SymvWorkspaceTag>(s).get(std::max<std::size_t>(1, elems) * sizeof(T)));
}

template float* workspace<float>(std::size_t, cudaStream_t);
template double* workspace<double>(std::size_t, cudaStream_t);

/// Launched as a programmatic dependent launch (Hopper): the runtime may process this launch while
/// the kernel before it in the stream is still running, and its blocks wait (griddepcontrol.wait,
/// at the top of reduce_kernel) until that kernel has finished and its writes are visible. What
/// it saves is the launch gap between the two kernels (a few microseconds: a large share of a
/// call at n <= 4096). Inside a stream capture the attribute becomes a programmatic edge of the graph.
template <class T>
void reduce(const SymvArgs<T>& a, const T* W, int nb, int nt, bool from_start, int skip, int extra, cudaStream_t s,
            int shift) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid_dim(ceil_div(a.n, kReduceRows), kMaxGridX, "symv reduce"));
    cfg.blockDim = dim3(kReduceRows, kReduceGroups);
    cfg.dynamicSmemBytes = 0;
    cfg.stream = s;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    WB_CUDA(cudaLaunchKernelEx(&cfg, reduce_kernel<T>, a.n, a.alpha, W, nb, nt, from_start, skip, extra, shift, a.beta,
                               a.y));
}

template void reduce<float>(const SymvArgs<float>&, const float*, int, int, bool, int, int, cudaStream_t, int);
template void reduce<double>(const SymvArgs<double>&, const double*, int, int, bool, int, int, cudaStream_t, int);

}  // namespace symv_detail
}  // namespace wb
