/// \file cpu_blas.hpp
/// \brief The CBLAS calls the CPU peers make, overloaded on float and double so each peer is
///        written once (internal to kernels/cpu). Included only where WB_HAVE_CBLAS is defined.
#pragma once

#include "blas_types.hpp"

#include <cblas.h>

#include <stdexcept>
#include <string>

namespace wb::cpu::blas {

inline CBLAS_TRANSPOSE trans(Op op) { return op == Op::N ? CblasNoTrans : CblasTrans; }
inline CBLAS_UPLO uplo(Uplo u) { return u == Uplo::Lower ? CblasLower : CblasUpper; }

inline void gemv(Op op, int m, int n, float alpha, const float* A, int lda, const float* x, float beta, float* y) {
    cblas_sgemv(CblasColMajor, trans(op), m, n, alpha, A, lda, x, 1, beta, y, 1);
}
inline void gemv(Op op, int m, int n, double alpha, const double* A, int lda, const double* x, double beta,
                 double* y) {
    cblas_dgemv(CblasColMajor, trans(op), m, n, alpha, A, lda, x, 1, beta, y, 1);
}
inline void gemm(Op oa, Op ob, int m, int n, int k, float alpha, const float* A, int lda, const float* B, int ldb,
                 float beta, float* C, int ldc) {
    cblas_sgemm(CblasColMajor, trans(oa), trans(ob), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
inline void gemm(Op oa, Op ob, int m, int n, int k, double alpha, const double* A, int lda, const double* B, int ldb,
                 double beta, double* C, int ldc) {
    cblas_dgemm(CblasColMajor, trans(oa), trans(ob), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
inline void symv(Uplo u, int n, float alpha, const float* A, int lda, const float* x, float beta, float* y) {
    cblas_ssymv(CblasColMajor, uplo(u), n, alpha, A, lda, x, 1, beta, y, 1);
}
inline void symv(Uplo u, int n, double alpha, const double* A, int lda, const double* x, double beta, double* y) {
    cblas_dsymv(CblasColMajor, uplo(u), n, alpha, A, lda, x, 1, beta, y, 1);
}
inline float dot(int n, const float* x, const float* y) { return cblas_sdot(n, x, 1, y, 1); }
inline double dot(int n, const double* x, const double* y) { return cblas_ddot(n, x, 1, y, 1); }
inline void axpy(int n, float a, const float* x, float* y) { cblas_saxpy(n, a, x, 1, y, 1); }
inline void axpy(int n, double a, const double* x, double* y) { cblas_daxpy(n, a, x, 1, y, 1); }
inline void scal(int n, float a, float* x) { cblas_sscal(n, a, x, 1); }
inline void scal(int n, double a, double* x) { cblas_dscal(n, a, x, 1); }

}  // namespace wb::cpu::blas
