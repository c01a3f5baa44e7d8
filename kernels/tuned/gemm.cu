/// \file tuned/gemm.cu
/// \brief Chapter 5 — tuned GEMM: warp tiles of 2-D register blocks, 16-byte global loads into
///        a multi-stage shared-memory pipeline (cp.async), a fast interior and guarded edges.
///
/// What changes against chapter 4:
/// - Bigger register blocks with warp tiles: a block of 256 threads computes BM x BN (128 x 128
///   for float), a warp WM x WN (64 x 32), a thread TM x TN (8 x 8) arranged as (TM/4) x (TN/4)
///   sub-blocks of 4 x 4 spaced 4*LM rows / 4*LN columns apart (LM x LN = 8 x 4 lanes). Each
///   16-byte shared read is then one row of 8 lanes x 16 bytes = 128 contiguous bytes (A) or
///   4 x 16 = 64 bytes (B), broadcast to the other lanes: conflict-free without padding.
/// - 16-byte global loads. The operand already stored k-major (op_a = N for A, op_b = T for B)
///   is copied with cp.async 16-byte straight into shared memory (no registers, no wait); the
///   operand stored the other way (op_a = T, op_b = N) is loaded as 16-byte vectors along k into
///   registers and stored transposed (consecutive lanes take consecutive rows: no conflicts).
/// - A STAGES-deep ring of shared-memory tiles: tile t+STAGES-1 is in flight while tile t is
///   computed, one barrier per tile (cp.async.wait_group STAGES-2 before it). The register path
///   loads its tile at the top of the iteration and stores it after the FMAs, so its latency is
///   hidden behind them too.
/// - Vector loads only where legal: 16-byte-aligned base pointer and ld % (16 / sizeof(T)) == 0,
///   decided at launch (VEC); otherwise the same pipeline copies element by element. Interior
///   tiles copy without checks; the tiles on an edge of C or of k copy with per-element checks
///   (cp.async's src-size zero-fills what lies outside), chosen per tile by one uniform branch.
/// - The configuration is chosen from the shape (default_launch): the large tile when it gives
///   every SM at least one block, otherwise the small one (64 x 64), so small products still
///   fill the GPU.
/// Model (float, 128 x 128 x 16): global loads per FMA 1/128 + 1/128; shared loads per FMA
/// (8 + 8) / 64 = 0.25 elements = 1/16 of a 16-byte load instruction (chapter 4: 1/8); the FMA
/// issue rate is the limit: 64 FFMA per 4 LDS.128, ~90% of issue slots are FMAs.
/// Run: ./workbook run ch05 -- --op gemm       (GemmLaunch: tile, warp, thread, stages: one of
///                                               the instantiated configurations, legal_launches)
#include "gemm_common.cuh"

#include <vector>

namespace wb::tuned {
namespace {

// ----------------------------------------------------------------------------------------------
// cp.async (sm_80+): copy global -> shared without a register round trip. src_bytes < size
// zero-fills the rest of the destination and reads nothing beyond src_bytes.
__device__ __forceinline__ void cp_async(void* smem, const void* gmem, int size, int src_bytes) {
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    if (size == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(src_bytes));
    else if (size == 8)
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(s), "l"(gmem), "r"(src_bytes));
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(gmem), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

// ----------------------------------------------------------------------------------------------
/// A configuration: tile sizes as template constants, their relations checked at compile time.
template <class T, int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int STAGES_, int MINB_>
struct Config {
    using type = T;
    static constexpr int BM = BM_, BN = BN_, BK = BK_;  // block tile of C, depth of one stage
    static constexpr int WM = WM_, WN = WN_;            // warp tile
    static constexpr int TM = TM_, TN = TN_;            // thread tile
    static constexpr int STAGES = STAGES_, MIN_BLOCKS = MINB_;
    static constexpr int LM = WM / TM, LN = WN / TN;    // lanes of a warp along m and n
    static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN;
    static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
    static constexpr int W = gemm_detail::Vec16<T>::width;  // elements per 16-byte vector
    static constexpr std::size_t SMEM = std::size_t(STAGES) * BK * (BM + BN) * sizeof(T);
    static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles tile the block tile");
    static_assert(WM % TM == 0 && WN % TN == 0 && LM * LN == 32, "a warp is LM x LN = 32 lanes of TM x TN");
    static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4 x 4 sub-blocks");
    static_assert(BK % W == 0, "k-vectors of the transposing loads fit in one stage");
    static_assert((BK * BM / W) % THREADS == 0 && (BK * BN / W) % THREADS == 0, "every thread copies whole vectors");
    static_assert(THREADS % BM == 0 && THREADS % BN == 0, "the transposing loads cover whole k-vectors per pass");
    static_assert(STAGES >= 2, "at least double buffering");
    static GemmLaunch launch() {
        GemmLaunch l;
        l.block_x = THREADS;
        l.block_y = 1;
        l.tile_m = BM;
        l.tile_n = BN;
        l.tile_k = BK;
        l.warp_m = WM;
        l.warp_n = WN;
        l.thread_m = TM;
        l.thread_n = TN;
        l.stages = STAGES;
        return l;
    }
};

// The instantiated configurations (legal_launches lists them in this order).
#ifndef WB_GEMM_PROBE_F128  // scripts/probes/gemm_bench.cu rebuilds this file with other values
#define WB_GEMM_PROBE_F128 128, 128, 16, 64, 32, 8, 8, 3, 2
#endif
using F128 = Config<float, WB_GEMM_PROBE_F128>;                  // float, large products
using F64 = Config<float, 64, 64, 16, 32, 16, 4, 4, 3, 4>;      // float, products that fill few tiles
using D128 = Config<double, 128, 64, 16, 64, 16, 8, 4, 3, 2>;   // double, large products
using D64 = Config<double, 64, 64, 16, 32, 16, 4, 4, 3, 3>;     // double, small products

// ----------------------------------------------------------------------------------------------
/// One operand's tile loader. The tile is s[p][r] = op(X)(r0 + r, p0 + p), p < BK, r < R (R = BM
/// for op(A), BN for op(B)), k-major in shared memory. `ContigR`: X is stored with r contiguous
/// (A with op N, B with op T) -> cp.async straight into place. Otherwise p is contiguous (A with
/// op T, B with op N) -> vectors along p through registers, stored transposed.
template <class Cfg, int R, bool ContigR, bool VEC>
struct TileLoader {
    using T = typename Cfg::type;
    using V = typename gemm_detail::Vec16<T>::type;
    static constexpr int THREADS = Cfg::THREADS, BK = Cfg::BK;
    static constexpr int W = VEC ? Cfg::W : 1;            // elements per copy
    static constexpr int PER_THREAD = BK * R / W / THREADS;  // copies per thread per tile
    static constexpr int REGS = ContigR ? 1 : PER_THREAD * W;  // staging registers (transposing path)

    const T* X;
    int ldx, r0, rows, k;  // rows: extent of r in the operand (m or n); k: the reduction length
    T reg[REGS];

    // Copy number e of this thread: (p, r) of its first element.
    __device__ __forceinline__ void coords(int e, int& p, int& r) const {
        const int v = threadIdx.x + e * THREADS;
        if (ContigR) {  // W consecutive r of one p; a warp covers 32W consecutive r
            p = v / (R / W);
            r = (v % (R / W)) * W;
        } else {        // W consecutive p of one r; consecutive lanes take consecutive r
            r = v % R;
            p = (v / R) * W;
        }
    }

    /// ContigR: issue the cp.async copies of tile p0 into `s` (guarded: edge tiles).
    template <bool Guard>
    __device__ __forceinline__ void async_copy(T* s, int p0) const {
#pragma unroll
        for (int e = 0; e < PER_THREAD; ++e) {
            int p, r;
            coords(e, p, r);
            const int gp = p0 + p, gr = r0 + r;
            int bytes = W * sizeof(T);
            const T* src = X + gr + static_cast<long long>(gp) * ldx;
            if (Guard) {
                const int valid = gp < k ? min(W, max(0, rows - gr)) : 0;
                bytes = valid * static_cast<int>(sizeof(T));
                if (valid == 0) src = X;  // never form an address outside the operand
            }
            cp_async(s + p * R + r, src, W * sizeof(T), bytes);
        }
    }

    /// !ContigR: load tile p0 into registers (guarded: element by element, zeros outside).
    template <bool Guard>
    __device__ __forceinline__ void load_regs(int p0) {
#pragma unroll
        for (int e = 0; e < PER_THREAD; ++e) {
            int p, r;
            coords(e, p, r);
            const int gp = p0 + p, gr = r0 + r;
            const T* src = X + gp + static_cast<long long>(gr) * ldx;
            if (!Guard) {
                if (W == Cfg::W && W > 1) {
                    const V v = __ldg(reinterpret_cast<const V*>(src));
                    const T* pv = reinterpret_cast<const T*>(&v);
#pragma unroll
                    for (int c = 0; c < W; ++c) reg[e * W + c] = pv[c];
                } else {
#pragma unroll
                    for (int c = 0; c < W; ++c) reg[e * W + c] = __ldg(src + c);
                }
            } else {
#pragma unroll
                for (int c = 0; c < W; ++c) reg[e * W + c] = gr < rows && gp + c < k ? __ldg(src + c) : T(0);
            }
        }
    }

    /// !ContigR: store the registers transposed: s[p + c][r] (a warp writes 32 consecutive r).
    __device__ __forceinline__ void store_regs(T* s) const {
#pragma unroll
        for (int e = 0; e < PER_THREAD; ++e) {
            int p, r;
            coords(e, p, r);
#pragma unroll
            for (int c = 0; c < W; ++c) s[(p + c) * R + r] = reg[e * W + c];
        }
    }

    /// Starts the copy of tile p0 into stage `s`: cp.async, or the register loads (the
    /// transposed store follows with finish()).
    __device__ __forceinline__ void start(T* s, int p0, bool full) {
        if (ContigR) {
            if (full) async_copy<false>(s, p0);
            else async_copy<true>(s, p0);
        } else {
            if (full) load_regs<false>(p0);
            else load_regs<true>(p0);
        }
    }
    __device__ __forceinline__ void finish(T* s) const {
        if (!ContigR) store_regs(s);
    }
};

//! [tuned-gemm]
template <class Cfg, bool TransA, bool TransB, bool VEC>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS)
gemm_kernel(int m, int n, int k, typename Cfg::type alpha, const typename Cfg::type* __restrict__ A, int lda,
            const typename Cfg::type* __restrict__ B, int ldb, typename Cfg::type beta,
            typename Cfg::type* __restrict__ C, int ldc, bool vec_c) {
    using T = typename Cfg::type;
    using V = typename gemm_detail::Vec16<T>::type;
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, TM = Cfg::TM, TN = Cfg::TN, S = Cfg::STAGES;
    constexpr int LM = Cfg::LM, LN = Cfg::LN, W = Cfg::W;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* sA = reinterpret_cast<T*>(smem_raw);  // S stages of [BK][BM]
    T* sB = sA + S * BK * BM;                // S stages of [BK][BN]

    const int i0 = blockIdx.x * BM, j0 = blockIdx.y * BN;
    const bool interior = i0 + BM <= m && j0 + BN <= n;
    // op(A) rows are r = i (A stored i-contiguous when op_a = N); op(B) rows are r = j (B stored
    // j-contiguous when op_b = T).
    TileLoader<Cfg, BM, !TransA, VEC> la{A, lda, i0, m, k, {}};
    TileLoader<Cfg, BN, TransB, VEC> lb{B, ldb, j0, n, k, {}};

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wm0 = (warp % Cfg::WARPS_M) * Cfg::WM, wn0 = (warp / Cfg::WARPS_M) * Cfg::WN;
    const int lm = lane % LM, ln = lane / LM;
    const int ra = wm0 + 4 * lm, cb = wn0 + 4 * ln;  // first row / column of this thread's sub-blocks

    T acc[TM][TN];
#pragma unroll
    for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int c = 0; c < TN; ++c) acc[r][c] = 0;

    const int tiles = (k + BK - 1) / BK;
    // Prologue: tiles 0 .. S-2 in flight (one commit group per tile, empty past the end).
#pragma unroll
    for (int t = 0; t < S - 1; ++t) {
        if (t < tiles) {
            const bool full = interior && (t + 1) * BK <= k;
            la.start(sA + t * BK * BM, t * BK, full);
            lb.start(sB + t * BK * BN, t * BK, full);
            la.finish(sA + t * BK * BM);
            lb.finish(sB + t * BK * BN);
        }
        cp_async_commit();
    }

    for (int t = 0; t < tiles; ++t) {
        cp_async_wait<S - 2>();  // this thread's copies of tile t have landed
        __syncthreads();         // everyone's have; and everyone is done with tile t-1's stage
        const int tn = t + S - 1, sn = tn % S;  // the tile to start, into the stage freed above
        const bool more = tn < tiles;
        const bool full = interior && (tn + 1) * BK <= k;
        if (more) {
            la.start(sA + sn * BK * BM, tn * BK, full);
            lb.start(sB + sn * BK * BN, tn * BK, full);
        }
        cp_async_commit();

        const T* a_s = sA + (t % S) * BK * BM;
        const T* b_s = sB + (t % S) * BK * BN;
#pragma unroll
        for (int p = 0; p < BK; ++p) {
            T a[TM], b[TN];
#pragma unroll
            for (int q = 0; q < TM / 4; ++q)
#pragma unroll
                for (int v = 0; v < 4 / W; ++v)
                    *reinterpret_cast<V*>(&a[4 * q + v * W]) =
                        *reinterpret_cast<const V*>(&a_s[p * BM + ra + q * 4 * LM + v * W]);
#pragma unroll
            for (int q = 0; q < TN / 4; ++q)
#pragma unroll
                for (int v = 0; v < 4 / W; ++v)
                    *reinterpret_cast<V*>(&b[4 * q + v * W]) =
                        *reinterpret_cast<const V*>(&b_s[p * BN + cb + q * 4 * LN + v * W]);
#pragma unroll
            for (int r = 0; r < TM; ++r)
#pragma unroll
                for (int c = 0; c < TN; ++c) acc[r][c] += a[r] * b[c];
        }
        if (more) {  // the transposing loads' registers go to their stage after the FMAs
            la.finish(sA + sn * BK * BM);
            lb.finish(sB + sn * BK * BN);
        }
    }
    cp_async_wait<0>();  // nothing may be in flight when the block exits

    // Epilogue: C = alpha*acc + beta*C (C not read when beta == 0); 16-byte stores of each
    // 4-row group where C allows, element by element on the edges of C.
#pragma unroll
    for (int q = 0; q < TM / 4; ++q)
#pragma unroll
        for (int c = 0; c < TN; ++c) {
            const int i = i0 + ra + q * 4 * LM;               // first of 4 rows
            const int j = j0 + cb + (c / 4) * 4 * LN + c % 4;  // column
            T* cp = C + i + static_cast<long long>(j) * ldc;
            if (vec_c && (interior || (i + 3 < m && j < n))) {
#pragma unroll
                for (int v = 0; v < 4 / W; ++v) {
                    T out[W];
                    if (beta == T(0)) {
#pragma unroll
                        for (int e = 0; e < W; ++e) out[e] = alpha * acc[4 * q + v * W + e][c];
                    } else {
                        const V old = *reinterpret_cast<const V*>(cp + v * W);
                        const T* po = reinterpret_cast<const T*>(&old);
#pragma unroll
                        for (int e = 0; e < W; ++e) out[e] = alpha * acc[4 * q + v * W + e][c] + beta * po[e];
                    }
                    *reinterpret_cast<V*>(cp + v * W) = *reinterpret_cast<const V*>(out);
                }
            } else if (j < n) {
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    if (i + e < m) gemm_detail::store_c(C, ldc, i + e, j, alpha, acc[4 * q + e][c], beta);
            }
        }
}
//! [tuned-gemm]

template <class Cfg, bool TA, bool TB, bool VEC>
void launch(const GemmArgs<typename Cfg::type>& a, bool vec_c, cudaStream_t s, const char* fn) {
    auto kernel = gemm_kernel<Cfg, TA, TB, VEC>;
    if (Cfg::SMEM > 48 * 1024) {  // above 48 KB a kernel must opt in (once per device)
        static thread_local unsigned long long done = 0;
        int dev = 0;
        WB_CUDA(cudaGetDevice(&dev));
        if (!(done >> (dev % 64) & 1)) {
            WB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(Cfg::SMEM)));
            done |= 1ull << (dev % 64);
        }
    }
    const dim3 grid(gemm_detail::grid_dim(gemm_detail::ceil_div(a.m, Cfg::BM), 2147483647LL, fn),
                    gemm_detail::grid_dim(gemm_detail::ceil_div(a.n, Cfg::BN), 65535, fn));
    kernel<<<grid, Cfg::THREADS, Cfg::SMEM, s>>>(a.m, a.n, a.k, a.alpha, a.A, a.lda, a.B, a.ldb, a.beta, a.C, a.ldc,
                                                 vec_c);
}

template <class Cfg>
void dispatch(const GemmArgs<typename Cfg::type>& a, cudaStream_t s, const char* fn) {
    using T = typename Cfg::type;
    // 16-byte copies need both operands' base pointers 16-byte aligned and lda, ldb multiples of
    // the vector width (every column starts aligned); otherwise element-wise copies.
    const bool vec = gemm_detail::aligned16(a.A, a.lda) && gemm_detail::aligned16(a.B, a.ldb);
    const bool vec_c = gemm_detail::aligned16<T>(a.C, a.ldc);
    const bool ta = a.op_a == Op::T, tb = a.op_b == Op::T;
    if (vec) {
        if (!ta && !tb) launch<Cfg, false, false, true>(a, vec_c, s, fn);
        else if (!ta && tb) launch<Cfg, false, true, true>(a, vec_c, s, fn);
        else if (ta && !tb) launch<Cfg, true, false, true>(a, vec_c, s, fn);
        else launch<Cfg, true, true, true>(a, vec_c, s, fn);
    } else {
        if (!ta && !tb) launch<Cfg, false, false, false>(a, vec_c, s, fn);
        else if (!ta && tb) launch<Cfg, false, true, false>(a, vec_c, s, fn);
        else if (ta && !tb) launch<Cfg, true, false, false>(a, vec_c, s, fn);
        else launch<Cfg, true, true, false>(a, vec_c, s, fn);
    }
}

template <class T> struct Configs;
template <> struct Configs<float> { using Large = F128; using Small = F64; };
template <> struct Configs<double> { using Large = D128; using Small = D64; };

}  // namespace

/// The instantiated configurations of T, large first (the ladder's legal_launches).
template <class T>
std::vector<GemmLaunch> gemm_configs() {
    return {Configs<T>::Large::launch(), Configs<T>::Small::launch()};
}

/// The default rule: the large tile when it gives every SM at least one block, else the small
/// tile (more, smaller blocks: a 1024^2 float C is 64 large tiles for 132 SMs, 256 small ones).
template <class T>
GemmLaunch gemm_default(const GemmArgs<T>& a) {
    using L = typename Configs<T>::Large;
    const long long blocks = gemm_detail::ceil_div(a.m, L::BM) * gemm_detail::ceil_div(a.n, L::BN);
    if (a.m <= 0 || a.n <= 0 || blocks >= gemm_detail::sm_count()) return L::launch();
    return Configs<T>::Small::launch();
}

template <class T>
void gemm(const GemmArgs<T>& a, const GemmLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "tuned::gemm";
    using L = typename Configs<T>::Large;
    using Sm = typename Configs<T>::Small;
    const GemmLaunch large = L::launch(), small = Sm::launch();
    // 0 in a field means "the default" (the large configuration's value decides which one).
    const int tm = l.tile_m > 0 ? l.tile_m : L::BM;
    const GemmLaunch& pick = tm == Sm::BM && (l.tile_n == 0 || l.tile_n == Sm::BN) ? small : large;
    const std::string rule = "one of the instantiated configurations (" + large.str() + " | " + small.str() + ")";
    auto field = [&](const char* name, int v, int want) {
        gemm_detail::require_launch(v == 0 || v == want, fn, name, v, rule);
    };
    field("tile_m", l.tile_m, pick.tile_m);
    field("tile_n", l.tile_n, pick.tile_n);
    field("tile_k", l.tile_k, pick.tile_k);
    field("warp_m", l.warp_m, pick.warp_m);
    field("warp_n", l.warp_n, pick.warp_n);
    field("thread_m", l.thread_m, pick.thread_m);
    field("thread_n", l.thread_n, pick.thread_n);
    field("stages", l.stages, pick.stages);
    field("block_x", l.block_x, pick.block_x);
    field("block_y", l.block_y, pick.block_y);
    if (!gemm_detail::gemm_begin(a, fn, s)) return;
    if (&pick == &large) dispatch<L>(a, s, fn);
    else dispatch<Sm>(a, s, fn);
    WB_CHECK_LAUNCH();
}

template void gemm<float>(const GemmArgs<float>&, const GemmLaunch&, cudaStream_t);
template void gemm<double>(const GemmArgs<double>&, const GemmLaunch&, cudaStream_t);
template std::vector<GemmLaunch> gemm_configs<float>();
template std::vector<GemmLaunch> gemm_configs<double>();
template GemmLaunch gemm_default<float>(const GemmArgs<float>&);
template GemmLaunch gemm_default<double>(const GemmArgs<double>&);

}  // namespace wb::tuned
