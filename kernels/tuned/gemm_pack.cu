/// \file tuned/gemm_pack.cu
/// \brief The tuned GEMM's operand copies on the host side: op(A) = A^T transposed into a
///        workspace (pack_a = 2) and operands whose columns are not 16-byte aligned copied to
///        aligned columns (align = 2), each with its workspace; the kernels: gemm_pack.cuh.
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
struct PackWorkspaceTag {};
void* pack_workspace(std::size_t bytes, cudaStream_t s) {
    return workspace_of_current_device<PackWorkspaceTag>(s).get(bytes);
}

/// pack_ld as a GemmArgs leading dimension (an int) for the workspace of launch field `field`
/// (pack_a or align, 2). It fits wherever validate_gemm let the call through (rows at most
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

}  // namespace

template <class T>
GemmArgs<T> packed(const GemmArgs<T>& a, cudaStream_t s, const char* fn) {
    const int ldt = pack_ld_int<T>(a.m, fn, "pack_a");
    // The grid first: an m beyond its 65535 tiles throws before the workspace is allocated.
    const dim3 grid(gemm_detail::grid_dim(gemm_detail::ceil_div(a.k, pack::kTile), static_cast<long long>(kMaxGridX), fn),
                    gemm_detail::grid_dim(gemm_detail::ceil_div(a.m, pack::kTile), static_cast<long long>(kMaxGridYZ), fn));
    T* At = static_cast<T*>(pack_workspace(static_cast<std::size_t>(ldt) * std::max(1, a.k) * sizeof(T), s));
    pack::transpose_kernel<T><<<grid, dim3(pack::kTile, pack::kRowsPerPass), 0, s>>>(a.k, a.m, a.A, a.lda, At, ldt);
    WB_CHECK_LAUNCH();
    GemmArgs<T> b = a;
    b.op_a = Op::N;
    b.A = At;
    b.lda = ldt;
    return b;
}

namespace {

/// The workspace of B copied to aligned columns (align = 2), per device and stream; a copy of A
/// takes pack_workspace (A is either transposed there or copied, never both).
struct AlignBWorkspaceTag {};
void* align_b_workspace(std::size_t bytes, cudaStream_t s) {
    return workspace_of_current_device<AlignBWorkspaceTag>(s).get(bytes);
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
        b.B = copy_aligned(a.B, a.rows_b(), cols_b, a.ldb, align_b_workspace, s, fn);
    }
    return b;
}

template GemmArgs<float> packed<float>(const GemmArgs<float>&, cudaStream_t, const char*);
template GemmArgs<double> packed<double>(const GemmArgs<double>&, cudaStream_t, const char*);
template GemmArgs<float> aligned<float>(const GemmArgs<float>&, cudaStream_t, const char*);
template GemmArgs<double> aligned<double>(const GemmArgs<double>&, cudaStream_t, const char*);

}  // namespace wb::tuned::pack
