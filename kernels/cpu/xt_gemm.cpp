// xt_gemm.cpp — the vendor's host-memory GEMM (xt_gemm.hpp): cuBLASXt on the current device, one
// handle per host thread and device, OpenBLAS's Fortran GEMM as its CPU routine.
#include "xt_gemm.hpp"

#include "check.hpp"
#include "cpu_peers.hpp"
#include "launch_checks.hpp"

#include <cublasXt.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>

#if defined(WB_HAVE_CBLAS)
// OpenBLAS's Fortran-style GEMM: the signature cublasXtSetCpuRoutine asks for (the reference
// BLAS's, every argument by pointer, column-major).
extern "C" {
void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*, const int*,
            const float*, const int*, const float*, float*, const int*);
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*, const int*,
            const double*, const int*, const double*, double*, const int*);
}
#endif

namespace wb::xt {

namespace {

/// One cuBLASXt handle bound to one device, with the tile it was created with.
struct Handle {
    cublasXtHandle_t h = nullptr;
    int default_block = 0, block = 0;
    bool cpu_routine[2] = {false, false};  // float, double

    explicit Handle(int device) {
        WB_CUBLAS(cublasXtCreate(&h));
        int dev = device;
        try {
            WB_CUBLAS(cublasXtDeviceSelect(h, 1, &dev));
            WB_CUBLAS(cublasXtGetBlockDim(h, &default_block));
        } catch (...) {
            cublasXtDestroy(h);
            throw;
        }
        block = default_block;
    }
    ~Handle() {
        if (h) cublasXtDestroy(h);  // at thread exit: errors ignored
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
};

/// The calling thread's handle for the current device.
Handle& handle() {
    thread_local std::map<int, Handle> handles;
    int dev = 0;
    WB_CUDA(cudaGetDevice(&dev));
    auto it = handles.find(dev);
    if (it == handles.end()) it = handles.try_emplace(dev, dev).first;
    return it->second;
}

cublasOperation_t op_of(Op op) { return op == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T; }

}  // namespace

template <class T>
void gemm(const GemmArgs<T>& a, double cpu_ratio, int block_dim) {
    const char* fn = "xt::gemm";
    if (!(cpu_ratio >= 0 && cpu_ratio < 1)) {
        char v[32];
        std::snprintf(v, sizeof v, "%g", cpu_ratio);
        launch_checks::fail(fn, "cpu_ratio (" + std::string(v) + ") must be in [0, 1)");
    }
    if (block_dim < 0) launch_checks::fail(fn, "block_dim (" + launch_checks::num(block_dim) + ") must be >= 0 (0: the library's tile)");
#if !defined(WB_HAVE_CBLAS)
    if (cpu_ratio > 0)
        throw std::runtime_error(std::string(fn) + ": cpu_ratio > 0 needs OpenBLAS as the CPU routine (built without CBLAS)");
#endif
    if (!validate_gemm(a, fn)) return;
    if (a.alpha == T(0) || a.k == 0) return cpu::gemm(a);  // C = beta C, A and B not read (no BLAS call)
    Handle& x = handle();
    const int want = block_dim > 0 ? block_dim : x.default_block;
    if (want != x.block) {
        WB_CUBLAS(cublasXtSetBlockDim(x.h, want));
        x.block = want;
    }
    constexpr bool is_float = std::is_same_v<T, float>;
    const cublasXtOpType_t type = is_float ? CUBLASXT_FLOAT : CUBLASXT_DOUBLE;
#if defined(WB_HAVE_CBLAS)
    if (cpu_ratio > 0 && !x.cpu_routine[is_float ? 0 : 1]) {
        void* routine = is_float ? reinterpret_cast<void*>(&sgemm_) : reinterpret_cast<void*>(&dgemm_);
        WB_CUBLAS(cublasXtSetCpuRoutine(x.h, CUBLASXT_GEMM, type, routine));
        x.cpu_routine[is_float ? 0 : 1] = true;
    }
#endif
    WB_CUBLAS(cublasXtSetCpuRatio(x.h, CUBLASXT_GEMM, type, static_cast<float>(cpu_ratio)));
    const auto m = static_cast<std::size_t>(a.m), n = static_cast<std::size_t>(a.n), k = static_cast<std::size_t>(a.k);
    const auto lda = static_cast<std::size_t>(a.lda), ldb = static_cast<std::size_t>(a.ldb), ldc = static_cast<std::size_t>(a.ldc);
    if constexpr (is_float)
        WB_CUBLAS(cublasXtSgemm(x.h, op_of(a.op_a), op_of(a.op_b), m, n, k, &a.alpha, a.A, lda, a.B, ldb, &a.beta, a.C, ldc));
    else
        WB_CUBLAS(cublasXtDgemm(x.h, op_of(a.op_a), op_of(a.op_b), m, n, k, &a.alpha, a.A, lda, a.B, ldb, &a.beta, a.C, ldc));
}

int default_block_dim() { return handle().default_block; }

template void gemm<float>(const GemmArgs<float>&, double, int);
template void gemm<double>(const GemmArgs<double>&, double, int);

}  // namespace wb::xt
