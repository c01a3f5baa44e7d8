/// \file cg_peer.cpp
/// \brief The peers every CG table compares against, linked, never reimplemented (architecture
///        §3):
///        - peer::cg, the CG a user writes first with cuBLAS (the cuda-samples recipe): cuBLAS
///          GEMV for the Mv (the whole of A), DOT with its result returned to the host (host
///          pointer mode: each DOT is a round trip), AXPY, SCAL; alpha and beta on the host. The
///          registered peer step.
///        - peer::cg_cholesky, the direct solve for the time to solution: cuSOLVER potrf (lower)
///          on a copy of A, then potrs. Compiled where CMake finds cuSOLVER (WB_HAVE_CUSOLVER);
///          the chapters show it as an extra row.
#include "cg.hpp"
#include "cg_common.cuh"
#include "check.hpp"
#include "cublas_handle.hpp"

#ifdef WB_HAVE_CUSOLVER
#include <cusolverDn.h>
#endif

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

namespace wb::peer {
namespace {

cublasStatus_t gemv(cublasHandle_t h, int n, const float* al, const float* A, int lda, const float* x,
                    const float* be, float* y) {
    return cublasSgemv(h, CUBLAS_OP_N, n, n, al, A, lda, x, 1, be, y, 1);
}
cublasStatus_t gemv(cublasHandle_t h, int n, const double* al, const double* A, int lda, const double* x,
                    const double* be, double* y) {
    return cublasDgemv(h, CUBLAS_OP_N, n, n, al, A, lda, x, 1, be, y, 1);
}
cublasStatus_t dot(cublasHandle_t h, int n, const float* x, const float* y, float* r) {
    return cublasSdot(h, n, x, 1, y, 1, r);
}
cublasStatus_t dot(cublasHandle_t h, int n, const double* x, const double* y, double* r) {
    return cublasDdot(h, n, x, 1, y, 1, r);
}
cublasStatus_t axpy(cublasHandle_t h, int n, const float* a, const float* x, float* y) {
    return cublasSaxpy(h, n, a, x, 1, y, 1);
}
cublasStatus_t axpy(cublasHandle_t h, int n, const double* a, const double* x, double* y) {
    return cublasDaxpy(h, n, a, x, 1, y, 1);
}
cublasStatus_t scal(cublasHandle_t h, int n, const float* a, float* x) { return cublasSscal(h, n, a, x, 1); }
cublasStatus_t scal(cublasHandle_t h, int n, const double* a, double* x) { return cublasDscal(h, n, a, x, 1); }

}  // namespace

//! [cublas-cg]
template <class T>
void cg(const CgArgs<T>& a, const CgLaunch&, cudaStream_t s) {
    constexpr const char* fn = "cublas::cg";
    if (!cg_detail::begin(a, fn)) return;
    const int n = a.n;
    cg_detail::Work<T> w = cg_detail::make_work<T>(n, 3, 1);
    T *r = w.v[0], *p = w.v[1], *q = w.v[2];
    cublasHandle_t h = cublas_handle();  // host pointer mode: DOT waits for its result
    WB_CUBLAS(cublasSetStream(h, s));
    const T one = 1, minus_one = -1, zero = 0;
    WB_CUDA(cudaMemcpyAsync(r, a.b, static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyDeviceToDevice, s));
    WB_CUBLAS(gemv(h, n, &minus_one, a.A, a.lda, a.x, &one, r));  // r = b - A x0
    T bb = 0, rr = 0;
    WB_CUBLAS(dot(h, n, a.b, a.b, &bb));
    if (bb == T(0)) return cg_detail::zero_solution(a, a.x, s);  // A x = 0: x = 0
    const T thresh2 = static_cast<T>(a.tol * a.tol) * bb;
    WB_CUBLAS(dot(h, n, r, r, &rr));
    WB_CUDA(cudaMemcpyAsync(p, r, static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyDeviceToDevice, s));
    int it = 0;
    CgStatus status = CgStatus::MaxIter;
    if (rr <= thresh2) status = CgStatus::Converged;
    else if (!std::isfinite(static_cast<double>(rr))) status = CgStatus::Breakdown;
    while (status == CgStatus::MaxIter && it < a.max_iter) {
        WB_CUBLAS(gemv(h, n, &one, a.A, a.lda, p, &zero, q));  // q = A p
        T pq = 0;
        WB_CUBLAS(dot(h, n, p, q, &pq));  // round trip
        if (!(pq > T(0)) || !std::isfinite(static_cast<double>(pq))) {
            status = CgStatus::Breakdown;
            break;
        }
        const T alpha = rr / pq, minus_alpha = -alpha;
        WB_CUBLAS(axpy(h, n, &alpha, p, a.x));
        WB_CUBLAS(axpy(h, n, &minus_alpha, q, r));
        T rr_new = 0;
        WB_CUBLAS(dot(h, n, r, r, &rr_new));  // round trip
        ++it;
        const T beta = rr_new / rr;
        rr = rr_new;
        if (!std::isfinite(static_cast<double>(rr))) status = CgStatus::Breakdown;
        else if (rr <= thresh2) status = CgStatus::Converged;
        else {
            WB_CUBLAS(scal(h, n, &beta, p));  // p = r + beta p
            WB_CUBLAS(axpy(h, n, &one, r, p));
        }
    }
    WB_CUDA(cudaStreamSynchronize(s));
    cg_detail::set_result(a, it, std::sqrt(static_cast<double>(rr) / static_cast<double>(bb)), status);
}
//! [cublas-cg]

template void cg<float>(const CgArgs<float>&, const CgLaunch&, cudaStream_t);
template void cg<double>(const CgArgs<double>&, const CgLaunch&, cudaStream_t);

#ifdef WB_HAVE_CUSOLVER
namespace {

#define WB_CUSOLVER(expr)                                                                                 \
    do {                                                                                                  \
        const cusolverStatus_t wb_cs_ = (expr);                                                           \
        if (wb_cs_ != CUSOLVER_STATUS_SUCCESS)                                                            \
            throw CudaError(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": " #expr            \
                            " failed: cusolver status " + std::to_string(static_cast<int>(wb_cs_)));     \
    } while (0)

cusolverDnHandle_t solver_handle() {
    thread_local std::map<int, cusolverDnHandle_t> handles;  // released with the context at exit
    int dev = 0;
    WB_CUDA(cudaGetDevice(&dev));
    auto it = handles.find(dev);
    if (it != handles.end()) return it->second;
    cusolverDnHandle_t h = nullptr;
    WB_CUSOLVER(cusolverDnCreate(&h));
    handles[dev] = h;
    return h;
}

cusolverStatus_t potrf_size(cusolverDnHandle_t h, int n, float* A, int lda, int* lw) {
    return cusolverDnSpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, A, lda, lw);
}
cusolverStatus_t potrf_size(cusolverDnHandle_t h, int n, double* A, int lda, int* lw) {
    return cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, A, lda, lw);
}
cusolverStatus_t potrf(cusolverDnHandle_t h, int n, float* A, int lda, float* work, int lw, int* info) {
    return cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, n, A, lda, work, lw, info);
}
cusolverStatus_t potrf(cusolverDnHandle_t h, int n, double* A, int lda, double* work, int lw, int* info) {
    return cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, A, lda, work, lw, info);
}
cusolverStatus_t potrs(cusolverDnHandle_t h, int n, const float* A, int lda, float* B, int* info) {
    return cusolverDnSpotrs(h, CUBLAS_FILL_MODE_LOWER, n, 1, A, lda, B, n, info);
}
cusolverStatus_t potrs(cusolverDnHandle_t h, int n, const double* A, int lda, double* B, int* info) {
    return cusolverDnDpotrs(h, CUBLAS_FILL_MODE_LOWER, n, 1, A, lda, B, n, info);
}

}  // namespace

bool have_cusolver() { return true; }

//! [cusolver-cholesky]
template <class T>
void cg_cholesky(const CgArgs<T>& a, const CgLaunch&, cudaStream_t s) {
    constexpr const char* fn = "cusolver::cg_cholesky";
    if (!cg_detail::begin(a, fn)) return;
    launch_checks::require_pitch_bytes(fn, "lda", a.lda, sizeof(T), launch_checks::max_copy_pitch(),
                                       "cudaMemcpy2D's largest pitch: A is copied with it");
    const int n = a.n;
    cusolverDnHandle_t h = solver_handle();
    WB_CUSOLVER(cusolverDnSetStream(h, s));
    int lw = 0;
    // Workspace: the copy of A (n x n, ld n), potrf's buffer, info.
    WB_CUSOLVER(potrf_size(h, n, const_cast<T*>(a.A), a.lda, &lw));
    const std::size_t nn = static_cast<std::size_t>(n) * n;
    char* base = static_cast<char*>(cg_detail::workspace(256 + (nn + static_cast<std::size_t>(lw) + 64) * sizeof(T)));
    int* info = reinterpret_cast<int*>(base);
    T* L = reinterpret_cast<T*>(base + 256);
    T* work = L + nn;
    WB_CUDA(cudaMemcpy2DAsync(L, static_cast<std::size_t>(n) * sizeof(T), a.A, static_cast<std::size_t>(a.lda) * sizeof(T),
                              static_cast<std::size_t>(n) * sizeof(T), n, cudaMemcpyDeviceToDevice, s));
    WB_CUDA(cudaMemcpyAsync(a.x, a.b, static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyDeviceToDevice, s));
    WB_CUSOLVER(potrf(h, n, L, n, work, lw, info));
    int hinfo = 0;
    WB_CUDA(cudaMemcpyAsync(&hinfo, info, sizeof(int), cudaMemcpyDeviceToHost, s));
    WB_CUDA(cudaStreamSynchronize(s));
    if (hinfo != 0) {  // leading minor hinfo not positive definite: x keeps b, reported as a breakdown
        cg_detail::set_result(a, 0, NAN, CgStatus::Breakdown);
        return;
    }
    WB_CUSOLVER(potrs(h, n, L, n, a.x, info));
    WB_CUDA(cudaStreamSynchronize(s));
    cg_detail::set_result(a, 0, NAN, CgStatus::Converged);
}
//! [cusolver-cholesky]

#else

bool have_cusolver() { return false; }

template <class T>
void cg_cholesky(const CgArgs<T>& a, const CgLaunch&, cudaStream_t) {
    if (!cg_detail::begin(a, "cusolver::cg_cholesky")) return;
    throw std::runtime_error("cusolver::cg_cholesky: this build has no cuSOLVER (CUDA::cusolver not found by CMake)");
}

#endif

template void cg_cholesky<float>(const CgArgs<float>&, const CgLaunch&, cudaStream_t);
template void cg_cholesky<double>(const CgArgs<double>&, const CgLaunch&, cudaStream_t);

}  // namespace wb::peer
