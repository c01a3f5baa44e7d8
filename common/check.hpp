/// \file check.hpp
/// \brief Checked CUDA and cuBLAS calls: every failure throws wb::CudaError with file, line and
///        the library's error string, so nothing fails silently.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace wb {

/// Thrown when a CUDA runtime or cuBLAS call fails.
class CudaError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Builds the message "file:line: expr failed: <error string>" and throws CudaError.
[[noreturn]] void throw_cuda_error(const char* expr, cudaError_t err, const char* file, int line);
[[noreturn]] void throw_cublas_error(const char* expr, cublasStatus_t st, const char* file, int line);

/// Name of a cuBLAS status (cublasGetStatusString where available).
const char* cublas_status_string(cublasStatus_t st);

}  // namespace wb

/// Check a CUDA runtime call.
#define WB_CUDA(expr)                                                     \
    do {                                                                  \
        const cudaError_t wb_err_ = (expr);                               \
        if (wb_err_ != cudaSuccess)                                       \
            ::wb::throw_cuda_error(#expr, wb_err_, __FILE__, __LINE__);   \
    } while (0)

/// Check a cuBLAS call.
#define WB_CUBLAS(expr)                                                   \
    do {                                                                  \
        const cublasStatus_t wb_st_ = (expr);                             \
        if (wb_st_ != CUBLAS_STATUS_SUCCESS)                              \
            ::wb::throw_cublas_error(#expr, wb_st_, __FILE__, __LINE__);  \
    } while (0)

/// Check the launch that just happened (configuration errors surface here).
#define WB_CHECK_LAUNCH() WB_CUDA(cudaGetLastError())
