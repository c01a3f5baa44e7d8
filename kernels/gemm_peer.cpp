/// \file gemm_peer.cpp
/// \brief The peer every GEMM table compares against: cuBLAS S/DGEMM on the same arguments, with
///        CUBLAS_PEDANTIC_MATH (true FP32: no TF32, no reduced-precision shortcuts; the workbook
///        compares like with like). Linked, never reimplemented (architecture §3). The handle is the
///        pedantic one of common/cublas_handle (its math mode never leaks into other ops' calls).
#include "gemm.hpp"
#include "check.hpp"
#include "cublas_handle.hpp"

namespace wb::peer {
namespace {

cublasOperation_t cublas_op(Op op) { return op == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T; }

cublasStatus_t call(cublasHandle_t h, const GemmArgs<float>& a) {
    return cublasSgemm(h, cublas_op(a.op_a), cublas_op(a.op_b), a.m, a.n, a.k, &a.alpha, a.A, a.lda, a.B, a.ldb,
                       &a.beta, a.C, a.ldc);
}
cublasStatus_t call(cublasHandle_t h, const GemmArgs<double>& a) {
    return cublasDgemm(h, cublas_op(a.op_a), cublas_op(a.op_b), a.m, a.n, a.k, &a.alpha, a.A, a.lda, a.B, a.ldb,
                       &a.beta, a.C, a.ldc);
}

}  // namespace

template <class T>
void gemm(const GemmArgs<T>& a, const GemmLaunch&, cudaStream_t s) {
    // Validated here too, so bad input is rejected with the same messages before cuBLAS sees it.
    if (!validate_gemm(a, "cublas::gemm")) return;
    cublasHandle_t h = cublas_handle(CUBLAS_PEDANTIC_MATH);
    WB_CUBLAS(cublasSetStream(h, s));
    WB_CUBLAS(call(h, a));
}

template void gemm<float>(const GemmArgs<float>&, const GemmLaunch&, cudaStream_t);
template void gemm<double>(const GemmArgs<double>&, const GemmLaunch&, cudaStream_t);

}  // namespace wb::peer
