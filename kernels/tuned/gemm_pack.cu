/// \file tuned/gemm_pack.cu
/// \brief The tuned GEMM's operand copies on the host side: op(A) = A^T transposed into a
///        workspace (pack_a = 2), op(B) = B likewise (pack_b = 2), and operands whose columns
///        are not 16-byte aligned copied to aligned columns (align = 2), each with its workspace;
///        the kernels: gemm_pack.cuh.
#include "launch_limits.hpp"
#include "tuned/gemm_pack.hpp"

#include "buffer.hpp"
#include "gemm_common.cuh"
#include "tuned/gemm_pack.cuh"

#include <algorithm>
#include <string>

namespace wb::tuned::pack {
namespace {

/// The workspace of A transposed (pack_a = 2), per device and stream, kept for the process.
/// Zero-filled when it grows: a column's rows past the operand's (up to pack_ld) are never
/// written, and an edge tile's 16-byte copy that takes the operand's last rows spans them (its
/// src-size keeps them out of the result; compute-sanitizer's initcheck counts the whole access).
struct PackWorkspaceTag {};
void* pack_workspace(std::size_t bytes, cudaStream_t s) {
    return workspace_of_current_device<PackWorkspaceTag>(s).get(bytes, /*zero_when_grown=*/true);
}

/// pack_ld as a GemmArgs leading dimension (an int) for the workspace of launch field `field`
/// (pack_a, pack_b or align, 2). It fits wherever validate_gemm let the call through (rows at most
/// launch_checks::kMaxIndexedExtent, and the rounding adds at most 31); checked all the same:
/// the int would otherwise wrap.
template <class T>
int pack_ld_int(int rows, const char* fn, const char* field) {
    const long long ld = pack_ld<T>(rows);
    gemm_detail::require_launch(ld <= static_cast<long long>(kMaxInt32), fn, field, 2,
                                "1 for this call: its workspace's leading dimension, " + std::to_string(rows) +
                                    " rows rounded up to 128 bytes (" + std::to_string(ld) + "), passes INT_MAX");
    return static_cast<int>(ld);
}

/// X (k x cols as stored, leading dimension ldx) transposed into workspace `ws` (cols x k, its
/// leading dimension `ldt`): the copy pack_a and pack_b run. The grid first: cols beyond its
/// 65535 tiles throw before the workspace is allocated.
template <class T>
T* transposed(const T* X, long long ldx, int k, int cols, int ldt, void* (*ws)(std::size_t, cudaStream_t),
              cudaStream_t s, const char* fn) {
    const dim3 grid(gemm_detail::grid_dim(gemm_detail::ceil_div(k, pack::kTile), static_cast<long long>(kMaxGridX), fn),
                    gemm_detail::grid_dim(gemm_detail::ceil_div(cols, pack::kTile), static_cast<long long>(kMaxGridYZ), fn));
    T* Xt = static_cast<T*>(ws(static_cast<std::size_t>(ldt) * std::max(1, k) * sizeof(T), s));
    pack::transpose_kernel<T><<<grid, dim3(pack::kTile, pack::kRowsPerPass), 0, s>>>(k, cols, X, ldx, Xt, ldt);
    WB_CHECK_LAUNCH();
    return Xt;
}

}  // namespace

template <class T>
GemmArgs<T> packed(const GemmArgs<T>& a, cudaStream_t s, const char* fn) {
    GemmArgs<T> b = a;  // A is k x m as stored (op(A) = A^T); the copy m x k, op(A) = A
    b.lda = pack_ld_int<T>(a.m, fn, "pack_a");
    b.A = transposed(a.A, a.lda, a.k, a.m, b.lda, pack_workspace, s, fn);
    b.op_a = Op::N;
    return b;
}

namespace {

/// The workspace of B transposed (pack_b = 2) or copied to aligned columns (align = 2), per
/// device and stream; a copy of A takes pack_workspace (an operand is either transposed into its
/// workspace or copied there, never both: a transposed copy is aligned).
/// Zero-filled when it grows, as pack_workspace.
struct BWorkspaceTag {};
void* b_workspace(std::size_t bytes, cudaStream_t s) {
    return workspace_of_current_device<BWorkspaceTag>(s).get(bytes, /*zero_when_grown=*/true);
}

/// `rows` x `cols` of X (leading dimension ldx) copied into `ws` with pack_ld columns.
template <class T>
T* copy_aligned(const T* X, int rows, int cols, int ldx, void* (*ws)(std::size_t, cudaStream_t), cudaStream_t s,
                const char* fn) {
    const long long ldy = pack_ld<T>(rows);
    T* Y = static_cast<T*>(ws(static_cast<std::size_t>(ldy) * std::max(1, cols) * sizeof(T), s));
    // grid.y covers kColumnsPerBlock columns per block, at most 65535 blocks: wider operands are
    // copied in chunks of columns.
    constexpr int kChunk = kMaxGridYZ * pack::kColumnsPerBlock;
    for (long long j0 = 0; j0 < cols; j0 += kChunk) {  // long long: cols may lie within kChunk of INT_MAX
        const int c = static_cast<int>(std::min<long long>(kChunk, cols - j0));
        const dim3 grid(gemm_detail::grid_dim(gemm_detail::ceil_div(rows, pack::kCopyThreads), static_cast<long long>(kMaxGridX), fn),
                        gemm_detail::grid_dim(gemm_detail::ceil_div(c, pack::kColumnsPerBlock), static_cast<long long>(kMaxGridYZ), fn));
        pack::copy_kernel<T><<<grid, pack::kCopyThreads, 0, s>>>(rows, c, X + j0 * ldx,
                                                                 ldx, Y + j0 * ldy, ldy);
        WB_CHECK_LAUNCH();
    }
    return Y;
}

}  // namespace

template <class T>
GemmArgs<T> aligned(const GemmArgs<T>& a, cudaStream_t s, const char* fn) {
    GemmArgs<T> b = a;
    const int cols_a = a.op_a == Op::N ? a.k : a.m, cols_b = a.op_b == Op::N ? a.n : a.k;
    if (!aligned16(a.A, a.lda)) {
        b.lda = pack_ld_int<T>(a.rows_a(), fn, "align");
        b.A = copy_aligned(a.A, a.rows_a(), cols_a, a.lda, pack_workspace, s, fn);
    }
    if (!aligned16(a.B, a.ldb)) {
        b.ldb = pack_ld_int<T>(a.rows_b(), fn, "align");
        b.B = copy_aligned(a.B, a.rows_b(), cols_b, a.ldb, b_workspace, s, fn);
    }
    return b;
}

template <class T>
GemmArgs<T> packed_b(const GemmArgs<T>& a, cudaStream_t s, const char* fn) {
    GemmArgs<T> b = a;  // B is k x n as stored (op(B) = B); the copy n x k, op(B) = B^T
    b.ldb = pack_ld_int<T>(a.n, fn, "pack_b");
    b.B = transposed(a.B, a.ldb, a.k, a.n, b.ldb, b_workspace, s, fn);
    b.op_b = Op::T;
    return b;
}

template GemmArgs<float> packed<float>(const GemmArgs<float>&, cudaStream_t, const char*);
template GemmArgs<double> packed<double>(const GemmArgs<double>&, cudaStream_t, const char*);
template GemmArgs<float> packed_b<float>(const GemmArgs<float>&, cudaStream_t, const char*);
template GemmArgs<double> packed_b<double>(const GemmArgs<double>&, cudaStream_t, const char*);
template GemmArgs<float> aligned<float>(const GemmArgs<float>&, cudaStream_t, const char*);
template GemmArgs<double> aligned<double>(const GemmArgs<double>&, cudaStream_t, const char*);

}  // namespace wb::tuned::pack
