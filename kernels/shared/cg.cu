/// \file shared/cg.cu
/// \brief Chapter 2 — CG with everything on the GPU, dot products reduced in shared memory, the
///        scalars brought to the host each iteration (the design of NVIDIA's cuBLAS CG sample,
///        with the workbook's own kernels in place of cuBLAS).
///
/// What changes against chapter 1: x, r, p and q stay on the GPU; nothing of size n crosses the
/// host link. The Mv is chapter 2's GEMV (shared::gemv). Each dot product is a tree reduction in
/// shared memory (one partial per block, then one block adds the partials in a fixed order) whose
/// result, one scalar, is copied to the host: two round trips per iteration (p.q, then r.r), each a
/// stream synchronization. alpha and beta are computed on the host and passed to the AXPY kernels
/// as arguments.
/// Model (common/model/cg): per iteration the whole of A + 14n elements of vector traffic,
/// 8 kernel launches (GEMV, 2 x 2 for the dots, 2 AXPYs, the p update), 2 host round trips.
/// Follows: White §5.2 with the kernels on the GPU; cuda-samples conjugateGradient.
/// Run: ./workbook run ch02 -- --op cg       (CgLaunch: block = threads of the vector kernels, default 256)
#include "cg_common.cuh"
#include "gemv.hpp"

#include <cmath>

namespace wb::shared {
namespace {

constexpr int kMaxBlock = 1024;

//! [shared-cg-dot]
/// Partial dot products: each block reduces its grid-stride share of u.v in shared memory (a tree,
/// halving the active threads each step) and writes one partial.
template <class T>
__global__ void dot_partial_kernel(int n, const T* __restrict__ u, const T* __restrict__ v, T* __restrict__ part) {
    __shared__ T s[kMaxBlock];
    T acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += u[i] * v[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) part[blockIdx.x] = s[0];
}

/// One block adds the partials (the same tree) and writes the dot product.
template <class T>
__global__ void dot_final_kernel(int nparts, const T* __restrict__ part, T* __restrict__ out) {
    __shared__ T s[kMaxBlock];
    T acc = 0;
    for (int i = threadIdx.x; i < nparts; i += blockDim.x) acc += part[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) *out = s[0];
}
//! [shared-cg-dot]

/// y += a x.
template <class T>
__global__ void axpy_kernel(int n, T a, const T* __restrict__ x, T* __restrict__ y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] += a * x[i];
}

/// p = r + beta p.
template <class T>
__global__ void xpby_kernel(int n, const T* __restrict__ r, T beta, T* __restrict__ p) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = r[i] + beta * p[i];
}

/// y = x (the initial p = r).
template <class T>
__global__ void copy_kernel(int n, const T* __restrict__ x, T* __restrict__ y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = x[i];
}

}  // namespace

template <class T>
void cg(const CgArgs<T>& a, const CgLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "shared::cg";
    const int block = cg_detail::vector_block(l, 256, fn);
    cg_detail::require_launch((block & (block - 1)) == 0, fn, "block", block,
                              "a power of two (the shared-memory tree halves it)");
    if (!cg_detail::begin(a, fn)) return;
    const int n = a.n;
    cg_detail::Work<T> w = cg_detail::make_work<T>(n, 3, 1);
    T *r = w.v[0], *p = w.v[1], *q = w.v[2];
    T* dscal = w.partials + cg_detail::kMaxGrid;  // the dot product's device result
    T* hscal = static_cast<T*>(cg_detail::pinned_state(sizeof(T)));
    const int grid = cg_detail::vector_grid(n, block, 1);

    auto dot = [&](const T* u, const T* v) {
        dot_partial_kernel<T><<<grid, block, 0, s>>>(n, u, v, w.partials);
        WB_CHECK_LAUNCH();
        dot_final_kernel<T><<<1, block, 0, s>>>(grid, w.partials, dscal);
        WB_CHECK_LAUNCH();
        WB_CUDA(cudaMemcpyAsync(hscal, dscal, sizeof(T), cudaMemcpyDeviceToHost, s));
        WB_CUDA(cudaStreamSynchronize(s));  // a host round trip
        return *hscal;
    };

    // r = b - A x0 with chapter 2's GEMV (beta = 1 on a copy of b).
    GemvArgs<T> g = cg_detail::mv_gemv(a, T(-1), a.x, T(1), r);
    const GemvLaunch gl = step<GemvArgs<T>>(2).default_launch(g);
    WB_CUDA(cudaMemcpyAsync(r, a.b, static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyDeviceToDevice, s));
    shared::gemv(g, gl, s);
    const T bb = dot(a.b, a.b);
    if (bb == T(0)) return cg_detail::zero_solution(a, a.x, s);  // A x = 0: x = 0
    const T thresh2 = static_cast<T>(a.tol * a.tol) * bb;
    T rr = dot(r, r);
    copy_kernel<T><<<grid, block, 0, s>>>(n, r, p);
    WB_CHECK_LAUNCH();
    g.alpha = T(1);
    g.beta = T(0);
    g.x = p;
    g.y = q;
    int it = 0;
    CgStatus status = CgStatus::MaxIter;
    if (rr <= thresh2) status = CgStatus::Converged;
    else if (!std::isfinite(static_cast<double>(rr))) status = CgStatus::Breakdown;
    //! [shared-cg-loop]
    while (status == CgStatus::MaxIter && it < a.max_iter) {
        shared::gemv(g, gl, s);  // q = A p
        const T pq = dot(p, q);  // round trip 1
        if (!(pq > T(0)) || !std::isfinite(static_cast<double>(pq))) {
            status = CgStatus::Breakdown;
            break;
        }
        const T alpha = rr / pq;
        axpy_kernel<T><<<grid, block, 0, s>>>(n, alpha, p, a.x);  // x += alpha p
        WB_CHECK_LAUNCH();
        axpy_kernel<T><<<grid, block, 0, s>>>(n, -alpha, q, r);   // r -= alpha q
        WB_CHECK_LAUNCH();
        const T rr_new = dot(r, r);  // round trip 2
        ++it;
        const T beta = rr_new / rr;
        rr = rr_new;
        if (!std::isfinite(static_cast<double>(rr))) status = CgStatus::Breakdown;
        else if (rr <= thresh2) status = CgStatus::Converged;
        else {
            xpby_kernel<T><<<grid, block, 0, s>>>(n, r, beta, p);  // p = r + beta p
            WB_CHECK_LAUNCH();
        }
    }
    //! [shared-cg-loop]
    WB_CUDA(cudaStreamSynchronize(s));
    cg_detail::set_result(a, it, std::sqrt(static_cast<double>(rr) / static_cast<double>(bb)), status);
}

template void cg<float>(const CgArgs<float>&, const CgLaunch&, cudaStream_t);
template void cg<double>(const CgArgs<double>&, const CgLaunch&, cudaStream_t);

}  // namespace wb::shared
