// cg_cpu.cpp — CG on the host (cpu_peers.hpp), built from CBLAS calls in the arithmetic of T: the
// algorithm, stopping rules and result of kernels/cg.hpp (and of the float64 reference,
// common/reference_cg.hpp), in cg_host_loop.hpp. The Mv is ?symv on the lower triangle: A is SPD,
// so half the matrix is all a host solver needs to read.
#include "cpu_peers.hpp"

#if defined(WB_HAVE_CBLAS)
#include "cg_host_loop.hpp"
#include "cpu_blas.hpp"
#endif

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
    const std::size_t un = static_cast<std::size_t>(a.n);
    std::vector<T> r(un), p(un), q(un);
    res = detail::cg_host_loop(a, r.data(), p.data(), q.data(), [&](const T* v, T* out) {
        blas::symv(Uplo::Lower, a.n, T(1), a.A, a.lda, v, T(0), out);
    });
    if (a.result) *a.result = res;
#else
    throw std::runtime_error(std::string(fn) + ": built without CBLAS (install libopenblas-dev and configure again)");
#endif
}

template void cg<float>(const CgArgs<float>&);
template void cg<double>(const CgArgs<double>&);

}  // namespace wb::cpu
