// blas_peers.cpp — the CPU peers of GEMV, GEMM and SYMV (cpu_peers.hpp): OpenBLAS through CBLAS,
// column-major, after the op's own validation. BLAS's degenerate cases are handled here, not left
// to the library: beta == 0 zeroes y (or C) first, so nothing stale is ever read; alpha == 0 (and
// GEMM's k == 0) is y = beta y (C = beta C) without touching A, x or B, which may then be null.
#include "cpu_peers.hpp"

#if defined(WB_HAVE_CBLAS)
#include "cpu_blas.hpp"
#endif

#include <cstddef>
#include <stdexcept>
#include <string>

namespace wb::cpu {

namespace {

#if !defined(WB_HAVE_CBLAS)
[[noreturn]] void no_cblas(const char* fn) {
    throw std::runtime_error(std::string(fn) +
                             ": built without CBLAS (install libopenblas-dev and configure again)");
}
#endif

/// v = beta v for n contiguous elements; beta == 0 writes zeros without reading v.
template <class T>
void scale(T* v, int n, T beta) {
    if (beta == T(1)) return;
    for (int i = 0; i < n; ++i) v[i] = beta == T(0) ? T(0) : beta * v[i];
}

/// C = beta C over the m x n block of leading dimension ldc.
template <class T>
void scale(T* C, int m, int n, int ldc, T beta) {
    for (int j = 0; j < n; ++j) scale(C + static_cast<std::size_t>(j) * static_cast<std::size_t>(ldc), m, beta);
}

}  // namespace

std::string blas_library() {
#if defined(WB_HAVE_CBLAS)
    // OpenBLAS's own queries (cblas.h): the build string, and how its calls use threads.
    const int parallel = openblas_get_parallel();
    const char* threads = parallel == 0 ? "sequential" : parallel == 1 ? "pthreads" : parallel == 2 ? "OpenMP" : "threads unknown";
    return std::string(openblas_get_config()) + ", " + threads + ", kernels for " + openblas_get_corename();
#else
    return "no CBLAS in this build (conv2d only)";
#endif
}

template <class T>
void gemv(const GemvArgs<T>& a) {
    const char* fn = "cpu::gemv";
    if (!validate_gemv(a, fn)) return;
    if (a.beta == T(0)) scale(a.y, a.len_y(), T(0));
    if (a.alpha == T(0)) {
        scale(a.y, a.len_y(), a.beta);
        return;
    }
#if defined(WB_HAVE_CBLAS)
    blas::gemv(a.op, a.m, a.n, a.alpha, a.A, a.lda, a.x, a.beta, a.y);
#else
    no_cblas(fn);
#endif
}

template <class T>
void gemm(const GemmArgs<T>& a) {
    const char* fn = "cpu::gemm";
    if (!validate_gemm(a, fn)) return;
    if (a.beta == T(0)) scale(a.C, a.m, a.n, a.ldc, T(0));
    if (a.alpha == T(0) || a.k == 0) {
        scale(a.C, a.m, a.n, a.ldc, a.beta);
        return;
    }
#if defined(WB_HAVE_CBLAS)
    blas::gemm(a.op_a, a.op_b, a.m, a.n, a.k, a.alpha, a.A, a.lda, a.B, a.ldb, a.beta, a.C, a.ldc);
#else
    no_cblas(fn);
#endif
}

template <class T>
void symv(const SymvArgs<T>& a) {
    const char* fn = "cpu::symv";
    if (!validate_symv(a, fn)) return;
    if (a.beta == T(0)) scale(a.y, a.n, T(0));
    if (a.alpha == T(0)) {
        scale(a.y, a.n, a.beta);
        return;
    }
#if defined(WB_HAVE_CBLAS)
    blas::symv(a.uplo, a.n, a.alpha, a.A, a.lda, a.x, a.beta, a.y);
#else
    no_cblas(fn);
#endif
}

template void gemv<float>(const GemvArgs<float>&);
template void gemv<double>(const GemvArgs<double>&);
template void gemm<float>(const GemmArgs<float>&);
template void gemm<double>(const GemmArgs<double>&);
template void symv<float>(const SymvArgs<float>&);
template void symv<double>(const SymvArgs<double>&);

}  // namespace wb::cpu
