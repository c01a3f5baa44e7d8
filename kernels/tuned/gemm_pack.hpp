/// \file tuned/gemm_pack.hpp
/// \brief The tuned GEMM's operand copies, host side: when an operand's columns are 16-byte
///        aligned, the leading dimension a copy gets, and the copies themselves (gemm_pack.cu):
///        op(A) = A^T transposed into a workspace (GemmLaunch::pack_a = 2), op(B) = B likewise
///        (GemmLaunch::pack_b = 2), an unaligned operand
///        copied to aligned columns (GemmLaunch::align = 2). The default rule weighs both
///        (gemm_default_rule.cpp); the kernels: gemm_pack.cuh.
#pragma once

#include "gemm.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

namespace wb::tuned::pack {

constexpr int kTile = 32, kRowsPerPass = 8;          // the transpose: a 32 x 32 tile, a block of 32 x 8 threads
constexpr int kCopyThreads = 256, kColumnsPerBlock = 8;  // the copy: 256 rows of 8 columns per block

/// True when a pointer and a leading dimension let every column start on a 16-byte boundary:
/// then 16-byte vector loads of aligned groups of rows are legal.
template <class T>
bool aligned16(const T* p, int ld) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % static_cast<int>(16 / sizeof(T)) == 0;
}

/// Leading dimension of a copied operand (rows x cols): rows rounded up to a 128-byte line, so
/// that every column starts aligned and the main loop takes its 16-byte copies.
template <class T>
long long pack_ld(int rows) {
    constexpr long long line = 128 / sizeof(T);
    return (static_cast<long long>(std::max(1, rows)) + line - 1) / line * line;
}

/// op(A) = A^T of `a` transposed into the workspace: the same call with op(A) = A.
template <class T>
GemmArgs<T> packed(const GemmArgs<T>& a, cudaStream_t s, const char* fn);

/// op(B) = B of `a` transposed into a workspace: the same call with op(B) = B^T. The tuned
/// kernels keep both operands k-major in shared memory, so an operand stored with k contiguous
/// (op(A) = A^T, op(B) = B) goes through their transposing path: where B is small beside the
/// call, its transpose costs less than that path does.
template <class T>
GemmArgs<T> packed_b(const GemmArgs<T>& a, cudaStream_t s, const char* fn);

/// The same call with every operand whose columns are not 16-byte aligned copied to aligned
/// columns (align = 2): A as stored (rows_a x cols), B as stored.
template <class T>
GemmArgs<T> aligned(const GemmArgs<T>& a, cudaStream_t s, const char* fn);

}  // namespace wb::tuned::pack
