/// \file tuned/gemm_pack.cuh
/// \brief Chapter 5's GEMM with op(A) = A^T: A transposed once into a workspace, so that the
///        main loop reads it as op(A) = A (GemmLaunch::pack_a; the default rule decides,
///        gemm_default_rule.cpp); and the plain copy of an operand whose columns are not 16-byte
///        aligned (GemmLaunch::align). Their host side: gemm_pack.hpp, gemm_pack.cu.
///
/// Why: the main loop copies an operand stored k-major (A for op(A) = A) with cp.async straight
/// into shared memory, and loads an operand stored the other way through registers and stores it
/// transposed. With op(A) = A^T and op(B) = B both operands take the register path, and the tuned
/// kernel reads at 0.94x-0.96x its op(A) = A rate in float, 0.87x in double (H200, \ref
/// notes_gemm). A transpose of A costs 2 m k elements of DRAM traffic once; the main loop's penalty
/// is a share of 2 m n k FMAs' time: from n of a few hundred on, the transpose is the cheaper of
/// the two. The copy is GotoBLAS's packing of an operand, done once per call.
#pragma once

#include "tuned/gemm_pack.hpp"

namespace wb::tuned::pack {

/// At (m x k, leading dimension ldt) = transpose of A (k x m, leading dimension lda): At(j, i) =
/// A(i, j). A block moves one 32 x 32 tile through shared memory: it reads 32 consecutive
/// elements of a column of A per warp and writes 32 consecutive elements of a column of At
/// (both coalesced); the tile's row pitch of 33 keeps the column reads of the tile in shared
/// memory on 32 different banks.
template <class T>
__global__ void __launch_bounds__(kTile* kRowsPerPass)
transpose_kernel(int k, int m, const T* __restrict__ A, long long lda, T* __restrict__ At, long long ldt) {
    __shared__ T tile[kTile][kTile + 1];
    const int i0 = static_cast<int>(blockIdx.x) * kTile;  // rows of A (k: the long grid dimension)
    const int j0 = static_cast<int>(blockIdx.y) * kTile;  // columns of A (m)
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (int c = ty; c < kTile; c += kRowsPerPass) {  // column j0 + c of A, rows i0 + tx
        const int i = i0 + tx, j = j0 + c;
        if (i < k && j < m) tile[c][tx] = A[i + j * lda];
    }
    __syncthreads();
    for (int c = ty; c < kTile; c += kRowsPerPass) {  // column i0 + c of At, rows j0 + tx
        const int j = j0 + tx, i = i0 + c;
        if (i < k && j < m) At[j + i * ldt] = tile[tx][c];
    }
}

/// Y (rows x cols, leading dimension ldy) = X (leading dimension ldx): an operand whose columns
/// are not 16-byte aligned copied to columns that are (GemmLaunch::align), so that the main loop
/// takes its 16-byte copies. A warp reads and writes 32 consecutive elements of a column; a block
/// of 256 threads moves 256 rows of kColumnsPerBlock columns, their loads issued before the stores.
template <class T>
__global__ void __launch_bounds__(kCopyThreads)
copy_kernel(int rows, int cols, const T* __restrict__ X, long long ldx, T* __restrict__ Y, long long ldy) {
    const int i = static_cast<int>(blockIdx.x) * kCopyThreads + static_cast<int>(threadIdx.x);
    const int j0 = static_cast<int>(blockIdx.y) * kColumnsPerBlock;
    if (i >= rows) return;
    T v[kColumnsPerBlock];
#pragma unroll
    for (int c = 0; c < kColumnsPerBlock; ++c)
        if (j0 + c < cols) v[c] = X[i + (j0 + c) * ldx];
#pragma unroll
    for (int c = 0; c < kColumnsPerBlock; ++c)
        if (j0 + c < cols) Y[i + (j0 + c) * ldy] = v[c];
}

}  // namespace wb::tuned::pack
