/// \file naive/cg.cu
/// \brief Chapter 1 — CG as White designs it (§5.2): the Mv on the GPU with chapter 1's GEMV
///        kernel (naive::gemv, one thread per row), every vector operation on the CPU.
///
/// What this step is: A stays on the GPU; x, r, p live on the host. Every iteration p is sent to
/// the GPU (n elements host to device), q = A p is computed there and brought back (n elements
/// device to host, a synchronization), and the CPU does the rest: two dot products, two AXPYs and
/// the p update, in the precision of T. The transfers are pageable copies, as a first program
/// makes them: the transfer cost shows (chapter 0's transfer model).
/// Model (common/model/cg): per iteration the whole of A (GEMV) + 2n elements on the GPU, 2n
/// elements over the host link (2 round trips), 10n elements of vector traffic on the CPU.
/// Follows: White §5.2 (the CG design of the dissertation).
/// Run: ./workbook run ch01 -- --op cg       (CgLaunch: nothing to tune; the GEMV's default launch)
#include "cg_common.cuh"
#include "gemv.hpp"

#include <cmath>
#include <vector>

namespace wb::naive {

//! [naive-cg]
template <class T>
void cg(const CgArgs<T>& a, const CgLaunch&, cudaStream_t s) {
    constexpr const char* fn = "naive::cg";
    if (!cg_detail::begin(a, fn)) return;
    const int n = a.n;
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
    cg_detail::Work<T> w = cg_detail::make_work<T>(n, 2, 1);
    T* dq = w.v[0];  // q = A p, brought back
    T* dp = w.v[1];  // p, sent
    std::vector<T> x(n), r(n), p(n), q(n);
    WB_CUDA(cudaMemcpyAsync(x.data(), a.x, bytes, cudaMemcpyDeviceToHost, s));
    WB_CUDA(cudaMemcpyAsync(r.data(), a.b, bytes, cudaMemcpyDeviceToHost, s));
    WB_CUDA(cudaStreamSynchronize(s));

    // q = A v on the GPU with chapter 1's GEMV: v sent, q brought back.
    GemvArgs<T> g = cg_detail::mv_gemv(a, T(1), a.x, T(0), dq);
    const GemvLaunch gl = step<GemvArgs<T>>(1).default_launch(g);
    auto mv = [&](const std::vector<T>& v, std::vector<T>& out) {
        WB_CUDA(cudaMemcpyAsync(dp, v.data(), bytes, cudaMemcpyHostToDevice, s));
        naive::gemv(g, gl, s);
        WB_CUDA(cudaMemcpyAsync(out.data(), dq, bytes, cudaMemcpyDeviceToHost, s));
        WB_CUDA(cudaStreamSynchronize(s));
    };
    auto dot = [](const std::vector<T>& u, const std::vector<T>& v) {
        T d = 0;
        for (std::size_t i = 0; i < u.size(); ++i) d += u[i] * v[i];
        return d;
    };

    g.x = a.x;  // r = b - A x0 (x0 is already on the device)
    naive::gemv(g, gl, s);
    WB_CUDA(cudaMemcpyAsync(q.data(), dq, bytes, cudaMemcpyDeviceToHost, s));
    WB_CUDA(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) r[i] -= q[i];
    std::vector<T> b(n);
    WB_CUDA(cudaMemcpyAsync(b.data(), a.b, bytes, cudaMemcpyDeviceToHost, s));
    WB_CUDA(cudaStreamSynchronize(s));
    const T bb = dot(b, b);
    if (bb == T(0)) return cg_detail::zero_solution(a, a.x, s);  // A x = 0: x = 0
    const T thresh2 = static_cast<T>(a.tol * a.tol) * bb;
    T rr = dot(r, r);
    p = r;
    g.x = dp;
    int it = 0;
    CgStatus status = CgStatus::MaxIter;
    if (rr <= thresh2) status = CgStatus::Converged;
    else if (!std::isfinite(static_cast<double>(rr))) status = CgStatus::Breakdown;
    while (status == CgStatus::MaxIter && it < a.max_iter) {
        mv(p, q);
        const T pq = dot(p, q);
        if (!(pq > T(0)) || !std::isfinite(static_cast<double>(pq))) {
            status = CgStatus::Breakdown;
            break;
        }
        const T alpha = rr / pq;
        for (int i = 0; i < n; ++i) x[i] += alpha * p[i];
        for (int i = 0; i < n; ++i) r[i] -= alpha * q[i];
        const T rr_new = dot(r, r);
        ++it;
        const T beta = rr_new / rr;
        rr = rr_new;
        if (!std::isfinite(static_cast<double>(rr))) status = CgStatus::Breakdown;
        else if (rr <= thresh2) status = CgStatus::Converged;
        else for (int i = 0; i < n; ++i) p[i] = r[i] + beta * p[i];
    }
    WB_CUDA(cudaMemcpyAsync(a.x, x.data(), bytes, cudaMemcpyHostToDevice, s));
    WB_CUDA(cudaStreamSynchronize(s));
    cg_detail::set_result(a, it, std::sqrt(static_cast<double>(rr) / static_cast<double>(bb)), status);
}
//! [naive-cg]

template void cg<float>(const CgArgs<float>&, const CgLaunch&, cudaStream_t);
template void cg<double>(const CgArgs<double>&, const CgLaunch&, cudaStream_t);

}  // namespace wb::naive
