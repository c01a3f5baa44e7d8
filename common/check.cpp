#include "check.hpp"

#include <sstream>

namespace wb {

void throw_cuda_error(const char* expr, cudaError_t err, const char* file, int line) {
    std::ostringstream os;
    os << file << ':' << line << ": " << expr << " failed: " << cudaGetErrorName(err) << " ("
       << cudaGetErrorString(err) << ')';
    throw CudaError(os.str());
}

const char* cublas_status_string(cublasStatus_t st) { return cublasGetStatusString(st); }

void throw_cublas_error(const char* expr, cublasStatus_t st, const char* file, int line) {
    std::ostringstream os;
    os << file << ':' << line << ": " << expr << " failed: " << cublas_status_string(st);
    throw CudaError(os.str());
}

}  // namespace wb
