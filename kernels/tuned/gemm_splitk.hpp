/// \file tuned/gemm_splitk.hpp
/// \brief Split k for the tuned GEMM, host side: how k is cut into slices, the workspace of their
///        partial C's, and the second pass that adds them (gemm_splitk.cu). Split k pays where the
///        tiles of C alone cannot fill the GPU and k is long (a 1024 x 1024 C is 32 tiles of
///        256 x 128 for 132 SMs); the default rule decides (GemmLaunch::split_k).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

namespace wb::tuned::splitk {

constexpr int kMaxSplit = 1024;  // 64 x 64 x 2^20: one 64 x 64 tile; 512 slices fill 132 SMs

/// k per slice for `split` slices: a multiple of bk (so that slices keep the operands'
/// alignment), and the slices that this leaves (ceil(k / kc) <= split).
inline std::pair<int, int> slice_k(int k, int split, int bk) {
    // In long long: k + kc - 1 passes INT_MAX from k of about 2^30 on (two slices).
    const long long per = (k + split - 1LL) / split;
    const long long kc = (per + bk - 1) / bk * bk;
    return {static_cast<int>(kc), static_cast<int>((k + kc - 1) / kc)};
}

/// The partials' workspace: the calling thread's grow-only buffer for the current device and the
/// call's stream, kept for the process.
void* workspace(std::size_t bytes, cudaStream_t s);

/// C = alpha * (P_0 + P_1 + ... + P_{slices-1}) + beta * C, the slices added in their order
/// (bit-identical run to run, like cuBLAS's own split-k reduction); C is not read when beta == 0.
/// The partials are m x n each, leading dimension m, one after another.
template <class T>
void sum(int m, int n, int slices, const T* partials, T alpha, T beta, T* C, int ldc, cudaStream_t s);

}  // namespace wb::tuned::splitk
