/// \file cublas_handle.cpp
/// \brief Per-thread, per-device, per-mode cuBLAS handles (cublas_handle.hpp).
#include "cublas_handle.hpp"

#include "check.hpp"

#include <map>
#include <tuple>

namespace wb {

cublasHandle_t cublas_handle(cublasMath_t math, cublasAtomicsMode_t atomics) {
    // Destroyed with the context at exit.
    thread_local std::map<std::tuple<int, int, int>, cublasHandle_t> handles;
    int dev = 0;
    WB_CUDA(cudaGetDevice(&dev));
    const auto key = std::make_tuple(dev, static_cast<int>(math), static_cast<int>(atomics));
    auto it = handles.find(key);
    if (it != handles.end()) return it->second;
    cublasHandle_t h = nullptr;
    WB_CUBLAS(cublasCreate(&h));
    WB_CUBLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    WB_CUBLAS(cublasSetMathMode(h, math));
    WB_CUBLAS(cublasSetAtomicsMode(h, atomics));
    handles[key] = h;
    return h;
}

}  // namespace wb
