/// \file gemv_peer.cpp
/// \brief The peer every GEMV table compares against: cuBLAS S/DGEMV on the same arguments.
///        Linked, never reimplemented (architecture §3). The handle: common/cublas_handle (default math).
#include "gemv.hpp"
#include "check.hpp"
#include "cublas_handle.hpp"


namespace wb::peer {
namespace {

cublasStatus_t call(cublasHandle_t h, cublasOperation_t op, int m, int n, const float* alpha, const float* A,
                    int lda, const float* x, const float* beta, float* y) {
    return cublasSgemv(h, op, m, n, alpha, A, lda, x, 1, beta, y, 1);
}
cublasStatus_t call(cublasHandle_t h, cublasOperation_t op, int m, int n, const double* alpha, const double* A,
                    int lda, const double* x, const double* beta, double* y) {
    return cublasDgemv(h, op, m, n, alpha, A, lda, x, 1, beta, y, 1);
}

}  // namespace

template <class T>
void gemv(const GemvArgs<T>& a, const GemvLaunch&, cudaStream_t s) {
    if (!validate_gemv(a, "cublas::gemv")) return;
    cublasHandle_t h = cublas_handle();
    WB_CUBLAS(cublasSetStream(h, s));
    const cublasOperation_t op = a.op == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T;
    WB_CUBLAS(call(h, op, a.m, a.n, &a.alpha, a.A, a.lda, a.x, &a.beta, a.y));
}

template void gemv<float>(const GemvArgs<float>&, const GemvLaunch&, cudaStream_t);
template void gemv<double>(const GemvArgs<double>&, const GemvLaunch&, cudaStream_t);

}  // namespace wb::peer
