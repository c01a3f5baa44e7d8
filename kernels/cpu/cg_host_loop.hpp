/// \file cg_host_loop.hpp
/// \brief CG's iterations on the host with the matrix-vector product given (internal to
///        kernels/cpu; needs CBLAS): the CPU peer passes OpenBLAS's SYMV, White's §5.2 split
///        (hybrid_cg.hpp) a round trip to the GPU. The algorithm, stopping rules and result of
///        kernels/cg.hpp, in the arithmetic of T, with the vector operations as BLAS calls.
#pragma once

#include "cg.hpp"
#include "cpu_blas.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace wb::cpu::detail {

/// Solves from a.x (x0) and returns the outcome; r, p and q are n-element work arrays (the split
/// passes pinned ones: p and q cross the link every iteration). mv(v, q) must write q = A v before
/// it returns. a is validated, n > 0.
template <class T, class Mv>
CgResult cg_host_loop(const CgArgs<T>& a, T* r, T* p, T* q, Mv&& mv) {
    const int n = a.n;
    const std::size_t un = static_cast<std::size_t>(n);
    CgResult res;
    res.status = CgStatus::Converged;
    const T bb = blas::dot(n, a.b, a.b);
    if (bb == T(0)) {  // b == 0: x = 0 solves A x = 0
        std::fill_n(a.x, un, T(0));
        return res;
    }
    std::copy_n(a.b, un, r);
    mv(a.x, q);  // r = b - A x0
    blas::axpy(n, T(-1), q, r);
    T rr = blas::dot(n, r, r);
    const T thresh2 = static_cast<T>(a.tol * a.tol) * bb;
    std::copy_n(r, un, p);
    int it = 0;
    CgStatus status = CgStatus::MaxIter;
    if (rr <= thresh2) status = CgStatus::Converged;
    else if (!std::isfinite(static_cast<double>(rr))) status = CgStatus::Breakdown;
    while (status == CgStatus::MaxIter && it < a.max_iter) {
        mv(p, q);  // q = A p (q is never stale: fully written before)
        const T pq = blas::dot(n, p, q);
        if (!(pq > T(0)) || !std::isfinite(static_cast<double>(pq))) {
            status = CgStatus::Breakdown;  // x keeps the last iterate
            break;
        }
        const T alpha = rr / pq;
        blas::axpy(n, alpha, p, a.x);
        blas::axpy(n, -alpha, q, r);
        const T rr_new = blas::dot(n, r, r);
        ++it;
        const T beta = rr_new / rr;
        rr = rr_new;
        if (!std::isfinite(static_cast<double>(rr))) status = CgStatus::Breakdown;
        else if (rr <= thresh2) status = CgStatus::Converged;
        else {
            blas::scal(n, beta, p);  // p = r + beta p
            blas::axpy(n, T(1), r, p);
        }
    }
    res.iterations = it;
    res.residual = std::sqrt(static_cast<double>(rr) / static_cast<double>(bb));
    res.status = status;
    return res;
}

}  // namespace wb::cpu::detail
