/// \file tuned/gemm_swizzle.hpp
/// \brief The index maps of the tuned GEMM's coalesced, swizzled transposing loads and of its
///        element copies along r (TileLoader in tuned/gemm_tile_loader.cuh), as plain functions
///        so that the host tests can check them without a GPU (tests/cpu/test_gemm_swizzle.cpp).
///
/// A transposing operand (op(A) = A^T, op(B) = B) is stored with k contiguous: row r of the
/// stage is BK contiguous elements in memory. G = BK / 4 lanes read one row's BK floats with
/// 16-byte loads (G = 8 for BK = 32: one 128-byte line; G = 4 for BK = 16: 64 bytes; G = 2 for BK
/// = 8: one 32-byte sector), so one warp instruction covers 32 / G whole rows. The stage keeps element (p, r) at s[p][r ^ swizzle_xor(p)]:
/// the XOR flips bits 2 .. 2 + log2(G) - 1 of r by the lane's k-group p / 4, and row_of_slot
/// gives a warp's 32 / G rows distinct values in every other bit of r mod 32, so the 32 lanes of
/// one 4-byte store land in 32 distinct banks. The fragment loads add offsets that are multiples
/// of 16 to a multiple of 4, which commutes with an XOR of bits 2 and 3: they undo the swizzle by
/// XORing their base row only.
#pragma once

#if defined(__CUDACC__)
#define WB_GEMM_SWIZZLE_FN __host__ __device__ __forceinline__ constexpr
#else
#define WB_GEMM_SWIZZLE_FN constexpr inline
#endif

namespace wb::tuned::gemm_swizzle {

/// log2 of the lanes per row, G in {2, 4, 8}.
template <int G>
WB_GEMM_SWIZZLE_FN int log2_lanes() {
    static_assert(G == 2 || G == 4 || G == 8, "2, 4 or 8 lanes per row (BK = 8, 16 or 32 floats)");
    return G == 8 ? 3 : G == 4 ? 2 : 1;
}

/// The rows one pass of a block's loads (THREADS / G) must be a multiple of. G = 2, 4: 32, since
/// row_of_thread spreads a warp's rows over bits 0 .. 4 of r. G = 8: a warp instruction covers 4
/// rows (bits 0, 1 of r) and the XOR takes bits 2 .. 4 whole, so row_of_thread is the identity and
/// a pass may be any multiple of 4 rows (the 128-thread skinny tiles: 16).
template <int G>
WB_GEMM_SWIZZLE_FN int rows_per_pass_multiple() {
    return G == 8 ? 4 : 32;
}

/// The XOR applied to the row index of k-element p (floats: 4 per 16-byte vector).
template <int G>
WB_GEMM_SWIZZLE_FN int swizzle_xor(int p) {
    return (p >> 2 & (G - 1)) << 2;
}

/// Row (in the first pass) of thread t's loads: row slot x = t / G, so the 32 / G slots of one
/// warp instruction (x bits 0 .. 4 - log2 G) take r bits 0, 1 and 2 + log2 G .. 4, and share the
/// swizzled bits 2 .. 1 + log2 G (x's next bits); bits 5 and up are x's own. Pass e adds
/// e * THREADS / G rows.
template <int G>
WB_GEMM_SWIZZLE_FN int row_of_thread(unsigned t) {
    constexpr int lg = log2_lanes<G>(), kSwShift = 5 - lg, kMidMask = (1 << (3 - lg)) - 1, kMidTo = 2 + lg;
    const int x = t / G;
    return (x & 3) | ((x >> kSwShift & (G - 1)) << 2) | ((x >> 2 & kMidMask) << kMidTo) | (x & ~31);
}

/// k-element of thread t's loads: its lane in the row's G lanes, 4 floats each.
template <int G>
WB_GEMM_SWIZZLE_FN int k_of_thread(unsigned t) {
    return (t % G) * 4;
}

/// The element path of an operand stored along r (TileLoader's ELEM_COLUMNS: 4-byte copies of a
/// stage of BK columns of R rows, R a multiple of 32, `threads` threads): copy e of thread t is
/// row 32 (e % (R / 32)) + lane of column warp + (threads / 32) (e / (R / 32)). A warp's copy
/// instruction reads 32 consecutive rows of one column (128 contiguous bytes), and one thread's
/// copies of a column are 32 rows apart: one address per column, the rest immediate offsets.
WB_GEMM_SWIZZLE_FN int column_copy_row(unsigned t, int e, int rows) {
    return 32 * (e % (rows / 32)) + static_cast<int>(t % 32);
}
WB_GEMM_SWIZZLE_FN int column_copy_col(unsigned t, int e, int rows, int threads) {
    return static_cast<int>(t / 32) + (threads / 32) * (e / (rows / 32));
}

}  // namespace wb::tuned::gemm_swizzle

#undef WB_GEMM_SWIZZLE_FN
