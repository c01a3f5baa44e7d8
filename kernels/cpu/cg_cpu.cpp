// cg_cpu.cpp — CG on the host (cpu_peers.hpp), built from CBLAS calls in the arithmetic of T: the
// algorithm, stopping rules and result of kernels/cg.hpp (and of the float64 reference,
// common/reference_cg.hpp). The Mv is ?symv on the lower triangle: A is SPD, so half the matrix
// is all a host solver needs to read.
#include "cpu_peers.hpp"

#if defined(WB_HAVE_CBLAS)
#include "cpu_blas.hpp"
#endif

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace wb::cpu {

template <class T>
void cg(const CgArgs<T>& a) {
    const char* fn = "cpu::cg";
    CgResult res;
    res.status = CgStatus::Converged;
    if (!validate_cg(a, fn)) {  // n == 0: converged at once
        if (a.result) *a.result = res;
        return;
    }
#if defined(WB_HAVE_CBLAS)
    const int n = a.n;
    const std::size_t un = static_cast<std::size_t>(n);
    const T bb = blas::dot(n, a.b, a.b);
    if (bb == T(0)) {  // b == 0: x = 0 solves A x = 0
        std::fill_n(a.x, un, T(0));
        if (a.result) *a.result = res;
        return;
    }
    std::vector<T> r(a.b, a.b + un), p(un), q(un);
    blas::symv(Uplo::Lower, n, T(-1), a.A, a.lda, a.x, T(1), r.data());  // r = b - A x0
    T rr = blas::dot(n, r.data(), r.data());
    const T thresh2 = static_cast<T>(a.tol * a.tol) * bb;
    p = r;
    int it = 0;
    CgStatus status = CgStatus::MaxIter;
    if (rr <= thresh2) status = CgStatus::Converged;
    else if (!std::isfinite(static_cast<double>(rr))) status = CgStatus::Breakdown;
    while (status == CgStatus::MaxIter && it < a.max_iter) {
        blas::symv(Uplo::Lower, n, T(1), a.A, a.lda, p.data(), T(0), q.data());  // q = A p (q is never stale:
        const T pq = blas::dot(n, p.data(), q.data());                          // fully written before)
        if (!(pq > T(0)) || !std::isfinite(static_cast<double>(pq))) {
            status = CgStatus::Breakdown;  // x keeps the last iterate
            break;
        }
        const T alpha = rr / pq;
        blas::axpy(n, alpha, p.data(), a.x);
        blas::axpy(n, -alpha, q.data(), r.data());
        const T rr_new = blas::dot(n, r.data(), r.data());
        ++it;
        const T beta = rr_new / rr;
        rr = rr_new;
        if (!std::isfinite(static_cast<double>(rr))) status = CgStatus::Breakdown;
        else if (rr <= thresh2) status = CgStatus::Converged;
        else {
            blas::scal(n, beta, p.data());  // p = r + beta p
            blas::axpy(n, T(1), r.data(), p.data());
        }
    }
    res.iterations = it;
    res.residual = std::sqrt(static_cast<double>(rr) / static_cast<double>(bb));
    res.status = status;
    if (a.result) *a.result = res;
#else
    throw std::runtime_error(std::string(fn) + ": built without CBLAS (install libopenblas-dev and configure again)");
#endif
}

template void cg<float>(const CgArgs<float>&);
template void cg<double>(const CgArgs<double>&);

}  // namespace wb::cpu
