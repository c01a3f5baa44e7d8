/// \file symv_peer.cpp
/// \brief The peer every SYMV table compares against: cuBLAS S/DSYMV on the same arguments,
///        linked, never reimplemented (architecture §3), in either of its two modes: the default
///        (CUBLAS_ATOMICS_NOT_ALLOWED: reproducible) when launch.atomics == 0, and
///        CUBLAS_ATOMICS_ALLOWED (faster on large n, not reproducible) when launch.atomics == 1.
///        One registered peer with two legal launches; the chapter's traits time the second as an
///        extra row ("cuBLAS atomics"). The handles: common/cublas_handle, one per mode (the atomics
///        mode never leaks into another op's calls).
#include "symv.hpp"
#include "check.hpp"
#include "cublas_handle.hpp"

#include <stdexcept>
#include <string>

namespace wb::peer {
namespace {

cublasFillMode_t fill(Uplo u) { return u == Uplo::Lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER; }

cublasStatus_t call(cublasHandle_t h, const SymvArgs<float>& a) {
    return cublasSsymv(h, fill(a.uplo), a.n, &a.alpha, a.A, a.lda, a.x, a.incx, &a.beta, a.y, a.incy);
}
cublasStatus_t call(cublasHandle_t h, const SymvArgs<double>& a) {
    return cublasDsymv(h, fill(a.uplo), a.n, &a.alpha, a.A, a.lda, a.x, a.incx, &a.beta, a.y, a.incy);
}

}  // namespace

template <class T>
void symv(const SymvArgs<T>& a, const SymvLaunch& l, cudaStream_t s) {
    if (l.atomics != 0 && l.atomics != 1)
        throw std::invalid_argument("cublas::symv: launch.atomics (" + std::to_string(l.atomics) +
                                    ") must be 0 (default mode) or 1 (CUBLAS_ATOMICS_ALLOWED)");
    // Validated here too, so bad input is rejected with the same messages before cuBLAS sees it.
    if (!validate_symv(a, "cublas::symv")) return;
    cublasHandle_t h =
        cublas_handle(CUBLAS_DEFAULT_MATH, l.atomics == 1 ? CUBLAS_ATOMICS_ALLOWED : CUBLAS_ATOMICS_NOT_ALLOWED);
    WB_CUBLAS(cublasSetStream(h, s));
    WB_CUBLAS(call(h, a));
}

template void symv<float>(const SymvArgs<float>&, const SymvLaunch&, cudaStream_t);
template void symv<double>(const SymvArgs<double>&, const SymvLaunch&, cudaStream_t);

}  // namespace wb::peer
