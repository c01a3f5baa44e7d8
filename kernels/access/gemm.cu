/// \file access/gemm.cu
/// \brief Chapter 4 — GEMM access pattern: both operands staged in shared memory in the layout
///        the FMAs read, padded so that neither the staging stores nor the reads conflict, and
///        read as 16-byte vectors; bounds checks only on edge tiles.
///
/// What changes against chapter 3: a block of 256 threads computes a 64 x 64 tile of C, each
/// thread a 4 x 4 block (rows 4tx .. 4tx+3, columns 4ty .. 4ty+3): the 2-D form of chapter 3's
/// strip, so each shared value now feeds 4 FMAs from either side. Both op(A) and op(B) go
/// through shared memory, each staged k-major — sA[p][i], sB[p][j] — whatever its layout in
/// global memory: "transposed staging" for op_a = T and op_b = N. A thread then reads its 4
/// values of op(A)(., p) and of op(B)(p, .) as one 16-byte vector each (float4; two double2).
/// - Loads that transpose (op_a = T, op_b = N) give a warp 8 consecutive p of 4 rows: one 32-byte
///   sector per row, and with the row stride padded to BM + 4 elements (one 16-byte vector: the
///   rows stay 16-byte aligned) the 32 stores fall in 32 different banks (4p + i mod 32). Without
///   the pad all 8 p's of one i would share a bank (8-way conflicts).
/// - Interior tiles load without bounds checks; only tiles on the edge of C or of k test each
///   element (one block-uniform branch per tile, so every shape is safe and the interior fast).
/// - White's Listing 4.12 also staggers the k loop's starting tile per block against partition
///   camping on the Tesla T10. Hopper hashes addresses over its memory partitions, so this step
///   does not stagger (chapter 4's text measures whether a stagger still matters).
/// Model: global loads per FMA 1/64 + 1/64 (from L2/DRAM: each element is loaded by
/// m/64 or n/64 blocks); shared-memory loads per FMA 2 x 4 / 16 = 0.5 elements, 1/8 of an
/// instruction with float4 (chapter 3: 1 element per FMA).
/// Run: ./workbook run ch04 -- --op gemm       (GemmLaunch: tile 64x64x16, thread 4x4, 256 threads)
#include "gemm_common.cuh"

namespace wb::access {
namespace {

constexpr int kBM = 64, kBN = 64, kBK = 16, kThreads = 256;  // 16 x 16 threads of 4 x 4 results
constexpr int kPad = 4;                                      // one 16-byte vector of floats
static_assert(kBM == 16 * 4 && kBN == 16 * 4 && kThreads == 16 * 16, "16 x 16 threads of 4 x 4 results");
static_assert(kBM * kBK % kThreads == 0 && kBN * kBK % kThreads == 0, "each thread stages whole elements");

/// Stages a BK x 64 k-major tile (s[p][r] = op(X)(r0 + r, p0 + p)) of an operand stored either
/// r-contiguous (`Contig_r`: A with op N, B with op T) or p-contiguous (A with op T, B with op N).
/// `Guard` tests every element against the rows (`rows`) and depth (`k`) left.
template <class T, bool Contig_r, bool Guard>
__device__ __forceinline__ void stage(T (*s)[kBM + kPad], const T* X, int ldx, int r0, int p0, int rows, int k) {
    const int t = threadIdx.x;
#pragma unroll
    for (int e = 0; e < kBM * kBK / kThreads; ++e) {
        int r, p;
        if (Contig_r) {  // a warp reads 32 consecutive r of one p: coalesced, and stores one row of s
            r = t % kBM;
            p = t / kBM + e * (kThreads / kBM);
        } else {         // a warp reads 8 consecutive p of 4 r's: 4 sectors; stores hit 32 banks
            p = t % 8 + 8 * (e % 2);
            r = t / 8 + 32 * (e / 2);
        }
        const int gr = r0 + r, gp = p0 + p;
        const long long off = Contig_r ? gr + static_cast<long long>(gp) * ldx : gp + static_cast<long long>(gr) * ldx;
        s[p][r] = !Guard || (gr < rows && gp < k) ? X[off] : T(0);
    }
}

//! [access-gemm]
template <class T, bool TransA, bool TransB>
__global__ void __launch_bounds__(kThreads)
gemm_kernel(int m, int n, int k, T alpha, const T* __restrict__ A, int lda, const T* __restrict__ B, int ldb,
            T beta, T* __restrict__ C, int ldc) {
    using V = typename gemm_detail::Vec16<T>::type;
    constexpr int W = gemm_detail::Vec16<T>::width;  // elements per 16-byte vector
    __shared__ __align__(16) T sA[kBK][kBM + kPad];  // op(A)(i0 + i, p0 + p) at sA[p][i]
    __shared__ __align__(16) T sB[kBK][kBN + kPad];  // op(B)(p0 + p, j0 + j) at sB[p][j]
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const int i0 = blockIdx.x * kBM, j0 = blockIdx.y * kBN;
    const bool interior = i0 + kBM <= m && j0 + kBN <= n;
    T acc[4][4] = {};  // acc[r][c] = C(i0 + 4tx + r, j0 + 4ty + c)
    for (int p0 = 0; p0 < k; p0 += kBK) {
        if (interior && p0 + kBK <= k) {  // the fast path: no per-element checks
            stage<T, !TransA, false>(sA, A, lda, i0, p0, m, k);
            stage<T, TransB, false>(sB, B, ldb, j0, p0, n, k);
        } else {
            stage<T, !TransA, true>(sA, A, lda, i0, p0, m, k);
            stage<T, TransB, true>(sB, B, ldb, j0, p0, n, k);
        }
        __syncthreads();
#pragma unroll
        for (int p = 0; p < kBK; ++p) {
            T a[4], b[4];
#pragma unroll
            for (int v = 0; v < 4 / W; ++v) {  // 16-byte reads: one float4 or two double2
                *reinterpret_cast<V*>(&a[v * W]) = *reinterpret_cast<const V*>(&sA[p][4 * tx + v * W]);
                *reinterpret_cast<V*>(&b[v * W]) = *reinterpret_cast<const V*>(&sB[p][4 * ty + v * W]);
            }
#pragma unroll
            for (int r = 0; r < 4; ++r)
#pragma unroll
                for (int c = 0; c < 4; ++c) acc[r][c] += a[r] * b[c];
        }
        __syncthreads();
    }
#pragma unroll
    for (int c = 0; c < 4; ++c)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            const int i = i0 + 4 * tx + r, j = j0 + 4 * ty + c;
            if (interior || (i < m && j < n)) gemm_detail::store_c(C, ldc, i, j, alpha, acc[r][c], beta);
        }
}
//! [access-gemm]

template <class T, bool TA, bool TB>
void launch(const GemmArgs<T>& a, cudaStream_t s, const char* fn) {
    const dim3 grid(gemm_detail::grid_dim(gemm_detail::ceil_div(a.m, kBM), kMaxGridX, fn),
                    gemm_detail::grid_dim(gemm_detail::ceil_div(a.n, kBN), kMaxGridYZ, fn));
    gemm_kernel<T, TA, TB><<<grid, kThreads, 0, s>>>(a.m, a.n, a.k, a.alpha, a.A, a.lda, a.B, a.ldb, a.beta, a.C,
                                                     a.ldc);
}

}  // namespace

template <class T>
void gemm(const GemmArgs<T>& a, const GemmLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "access::gemm";
    auto fixed = [&](const char* field, int v, int want) {
        gemm_detail::require_launch(v == 0 || v == want, fn, field, v,
                                    std::to_string(want) + " or 0 (the one instantiated configuration)");
    };
    fixed("tile_m", l.tile_m, kBM);
    fixed("tile_n", l.tile_n, kBN);
    fixed("tile_k", l.tile_k, kBK);
    fixed("thread_m", l.thread_m, 4);
    fixed("thread_n", l.thread_n, 4);
    fixed("block_x", l.block_x, kThreads);
    gemm_detail::require_launch(l.block_y == 0 || l.block_y == 1, fn, "block_y", l.block_y, "1 or 0");
    if (!gemm_detail::gemm_begin(a, fn, s)) return;
    const bool ta = a.op_a == Op::T, tb = a.op_b == Op::T;
    if (!ta && !tb) launch<T, false, false>(a, s, fn);
    else if (!ta && tb) launch<T, false, true>(a, s, fn);
    else if (ta && !tb) launch<T, true, false>(a, s, fn);
    else launch<T, true, true>(a, s, fn);
    WB_CHECK_LAUNCH();
}

template void gemm<float>(const GemmArgs<float>&, const GemmLaunch&, cudaStream_t);
template void gemm<double>(const GemmArgs<double>&, const GemmLaunch&, cudaStream_t);

}  // namespace wb::access
