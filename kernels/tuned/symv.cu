/// \file tuned/symv.cu
/// \brief Chapter 5 — SYMV after KBLAS (Abdelfattah, Keyes, Ltaief, ACM TOMS §6): register double
///        buffers, Y blocks per block column, the diagonal tile fused into the off-diagonal
///        kernel, the tunables nb, Q and Y as template constants and launch fields, and a
///        deterministic reduction by default with an atomics mode as a tunable.
///
/// What changes against chapter 4:
/// - Tunables (KBLAS §6.2, tuning order nb -> Q -> Y of §9): a block is nb x Q threads (Q thread
///   columns, L = nb / Q elements of a tile row per thread, Eq. 7); (nb, Q) in {(32, 4), (64, 4),
///   (64, 8)} are instantiated.
/// - Y blocks per block column (KBLAS Eq. 2-6): the stored tiles of block column J are dealt to
///   Y blocks round-robin, so the long columns of a triangle no longer leave a tail of a few busy
///   SMs (§4.3.4, wave-tail oscillation). Blocks of the longest columns are launched first.
/// - Register double buffers: the next tile's L elements (and its slice of x) are loaded into the
///   second buffer before the current one is used.
/// - The diagonal tile is processed by the first of the Y blocks (mirrored in shared memory):
///   one kernel fewer than chapter 4.
/// - Reduction: deterministic (default, launch.atomics = 0): every partial has its own workspace
///   slot — W(rows of I, J) for tile (I, J), W(rows of J, nt + y) for the column sums of block y —
///   and the fixed-order pass of symv_common.cu adds them: bit-identical run to run.
///   Atomics (launch.atomics = 1, KBLAS's own design): y = beta*y first, then every partial is
///   added into y with atomicAdd: no workspace, no reduction pass, but the order of the
///   additions (and so the last bits of y) changes from run to run.
/// - Irregular n: pointer redirecting as in chapter 4.
/// Not done: KBLAS's submatrix interface (§6.6, Eq. 10: reading from an aligned origin and ignoring
/// the offset rows); a submatrix is passed as a plain pointer and lda, as BLAS passes it.
/// Model (common/model/symv): the triangle once; deterministic: n x (nt + Y) partials written and
/// read; atomics: n x (nt + Y) atomic adds to y and y read once for beta. nt x Y blocks of nb x Q.
/// Follows: KBLAS (ACM TOMS) §6.1-6.5, §9; Abdelfattah et al. VECPAR'12.
/// Run: ./workbook run ch05 -- --op symv       (SymvLaunch: nb, Q = block_y, Y = y_blocks, atomics)
#include "symv_common.cuh"

#include <vector>

namespace wb::tuned {
namespace {

//! [tuned-symv]
/// Loads row tx of tile (I, J) (L elements at the column offsets coff) and x(row) into a register
/// buffer; rows beyond n are redirected to row n - 1 with x = 0.
template <class T, int NB, int L>
__device__ __forceinline__ void load_tile(const T* __restrict__ A, const T* __restrict__ x, int n, int I,
                                          const long long (&coff)[L], T (&buf)[L], T& xi) {
    const int r = I * NB + static_cast<int>(threadIdx.x);
    const int rr = min(r, n - 1);
    xi = r < n ? x[r] : T(0);
#pragma unroll
    for (int k = 0; k < L; ++k) buf[k] = A[rr + coff[k]];
}

/// Uses one buffered tile: A_IJ x_J (row sums, reduced over the Q thread columns and written or
/// added) and A_IJ^T x_I (accumulated in registers for the block's own rows).
template <class T, int NB, int Q, int L>
__device__ __forceinline__ void use_tile(const T (&buf)[L], T xi, const T (&xj)[L], T (&acc)[L], T (*part)[NB], int I,
                                         int J, int n, bool atomics, T alpha, T* __restrict__ W, T* __restrict__ y) {
    const int tx = threadIdx.x, ty = threadIdx.y;
    T rs = 0;
#pragma unroll
    for (int k = 0; k < L; ++k) {
        rs += buf[k] * xj[k];
        acc[k] += buf[k] * xi;
    }
    part[ty][tx] = rs;
    __syncthreads();
    const int row = I * NB + tx;
    if (ty == 0 && row < n) {
        const T s = symv_detail::sum_parts(part, Q, tx);
        if (atomics) atomicAdd(y + row, alpha * s);
        else W[row + static_cast<long long>(J) * n] = s;  // W(rows of I, J)
    }
    __syncthreads();
}

template <class T, int NB, int Q>
__global__ void __launch_bounds__(NB * Q) symv_kernel(bool lower, bool atomics, int n, int nt, int Y, T alpha,
                                                      const T* __restrict__ A, int lda, const T* __restrict__ x,
                                                      T* __restrict__ W, T* __restrict__ y) {
    constexpr int L = NB / Q;        // elements of a tile row per thread (KBLAS Eq. 7)
    constexpr int kWarps = NB / 32;  // warps along one thread column
    static_assert(NB % 32 == 0 && NB % Q == 0 && L >= 1, "tile relations");
    __shared__ T tile[NB][NB + 1];   // the diagonal tile, mirrored (block y == 0 only)
    __shared__ T part[Q][NB];        // reduction space over the thread columns (KBLAS Eq. 8)
    __shared__ T colsum[kWarps][NB];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int b = static_cast<int>(blockIdx.x) / Y, yb = static_cast<int>(blockIdx.x) % Y;
    const int J = lower ? b : nt - 1 - b;  // the longest columns first
    const int col0 = J * NB + ty * L;
    T xj[L], acc[L];
    long long coff[L];
#pragma unroll
    for (int k = 0; k < L; ++k) {
        const int c = col0 + k;
        xj[k] = c < n ? x[c] : T(0);
        coff[k] = static_cast<long long>(min(c, n - 1)) * lda;  // redirected beyond n (upper)
        acc[k] = 0;
    }
    // This block's tiles: I = i0 + yb, i0 + yb + Y, ... < i1, two at a time through the two
    // register buffers (a0, a1): the next tile loads while the current one is used.
    const int i0 = (lower ? J + 1 : 0) + yb, i1 = lower ? nt : J;
    T a0[L], a1[L], x0 = 0, x1 = 0;
    if (i0 < i1) load_tile<T, NB, L>(A, x, n, i0, coff, a0, x0);
    for (int I = i0; I < i1; I += 2 * Y) {
        if (I + Y < i1) load_tile<T, NB, L>(A, x, n, I + Y, coff, a1, x1);
        use_tile<T, NB, Q, L>(a0, x0, xj, acc, part, I, J, n, atomics, alpha, W, y);
        if (I + Y >= i1) break;
        if (I + 2 * Y < i1) load_tile<T, NB, L>(A, x, n, I + 2 * Y, coff, a0, x0);
        use_tile<T, NB, Q, L>(a1, x1, xj, acc, part, I + Y, J, n, atomics, alpha, W, y);
    }
    // The diagonal tile (block yb == 0): mirrored in shared memory, its row sums kept in part.
    T dsum = 0;
    if (yb == 0) {
        const int r0 = J * NB;
        for (int c = ty; c < NB; c += Q)
            if (lower ? tx >= c : tx <= c) {
                const T v = A[min(r0 + tx, n - 1) + static_cast<long long>(min(r0 + c, n - 1)) * lda];
                tile[tx][c] = v;
                tile[c][tx] = v;
            }
        __syncthreads();
        for (int c = ty; c < NB; c += Q) {
            const int gc = r0 + c;
            dsum += tile[tx][c] * (gc < n ? x[gc] : T(0));
        }
    }
    part[ty][tx] = dsum;
    // Column sums of the walk: shuffles within a warp, then the warps of a thread column.
    symv_detail::warp_column_sums<T, NB, L>(acc, colsum);
    __syncthreads();
    const int t = ty * NB + tx;
    if (t < NB && J * NB + t < n) {
        const T s = symv_detail::sum_parts(colsum, kWarps, t) + symv_detail::sum_parts(part, Q, t);
        if (atomics) atomicAdd(y + J * NB + t, alpha * s);
        else W[J * NB + t + static_cast<long long>(nt + yb) * n] = s;  // W(rows of J, nt + yb)
    }
}
//! [tuned-symv]

SymvLaunch config(int nb, int q, int yblocks, int atomics) {
    SymvLaunch l;
    l.nb = nb;
    l.block_x = nb;
    l.block_y = q;
    l.y_blocks = yblocks;
    l.atomics = atomics;
    return l;
}

template <class T, int NB, int Q>
void launch(const SymvArgs<T>& a, int Y, bool atomics, cudaStream_t s, const char* fn) {
    const bool lower = a.uplo == Uplo::Lower;
    const int nt = static_cast<int>(symv_detail::ceil_div(a.n, NB));
    T* W = nullptr;
    if (atomics) symv_scale_y(a, s);  // y = beta*y (0 without reading y when beta == 0)
    else W = symv_detail::workspace<T>(static_cast<std::size_t>(a.n) * (nt + Y));
    const unsigned grid = symv_detail::grid_dim(static_cast<long long>(nt) * Y, 2147483647LL, fn);
    symv_kernel<T, NB, Q><<<grid, dim3(NB, Q), 0, s>>>(lower, atomics, a.n, nt, Y, a.alpha, a.A, a.lda, a.x, W, a.y);
    WB_CHECK_LAUNCH();
    // Deterministic: row tile b gathers its off-diagonal tiles' partials (lower W(., 0 .. b-1),
    // upper W(., b+1 .. nt-1): the diagonal slot is unused) and the Y column sums W(., nt + y).
    if (!atomics) symv_detail::reduce(a, W, NB, nt, /*from_start=*/lower, /*skip=*/1, /*extra=*/Y, s);
}

}  // namespace

template <class T>
std::vector<SymvLaunch> symv_configs() {
    std::vector<SymvLaunch> v;
    for (int atomics : {0, 1})
        for (auto [nb, q] : {std::pair{32, 4}, {64, 4}, {64, 8}})
            for (int yb : {1, 2, 4, 8}) v.push_back(config(nb, q, yb, atomics));
    return v;
}

/// The default (provisional until a sweep on the GPU, chapter 6): float (64, 4), double (64, 8)
/// (L = 16 and 8: 64 bytes of a tile row per thread and buffer), deterministic, and the smallest Y
/// in {1, 2, 4, 8} that cuts the longest column's walk (nt - 1 tiles / Y) to about the average
/// work of one resident block (the triangle's tiles over SMs x 8 resident blocks).
template <class T>
SymvLaunch symv_default(const SymvArgs<T>& a) {
    const int nb = 64, q = sizeof(T) == 4 ? 4 : 8;
    const long long nt = symv_detail::ceil_div(std::max(1, a.n), nb);
    const long long tiles = nt * (nt - 1) / 2, slots = 8LL * symv_detail::sm_count();
    const long long target = std::max(2LL, symv_detail::ceil_div(tiles, slots));
    int yb = 1;
    while (yb < 8 && symv_detail::ceil_div(nt - 1, yb) > target) yb *= 2;
    return config(nb, q, yb, 0);
}

template <class T>
void symv(const SymvArgs<T>& a, const SymvLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "tuned::symv";
    const SymvLaunch d = symv_default(a);
    const int nb = l.nb > 0 ? l.nb : d.nb;
    const int q = l.block_y > 0 ? l.block_y : (l.nb > 0 ? (nb == 32 ? 4 : d.block_y) : d.block_y);
    const int bx = l.block_x > 0 ? l.block_x : nb;
    const int yb = l.y_blocks > 0 ? l.y_blocks : d.y_blocks;
    symv_detail::require_launch(nb == 32 || nb == 64, fn, "nb", nb, "one of the instantiated tiles (32, 64)");
    symv_detail::require_launch(bx == nb, fn, "block_x", bx, "nb (" + std::to_string(nb) + "): one thread per tile row");
    symv_detail::require_launch((nb == 32 && q == 4) || (nb == 64 && (q == 4 || q == 8)), fn, "block_y", q,
                                "Q of an instantiated (nb, Q): (32, 4), (64, 4) or (64, 8)");
    symv_detail::require_launch(yb == 1 || yb == 2 || yb == 4 || yb == 8, fn, "y_blocks", yb, "1, 2, 4 or 8");
    symv_detail::require_launch(l.atomics == 0 || l.atomics == 1, fn, "atomics", l.atomics,
                                "0 (deterministic) or 1 (atomics)");
    if (!symv_detail::symv_begin(a, fn, s)) return;
    const bool atomics = l.atomics == 1;
    if (nb == 32) launch<T, 32, 4>(a, yb, atomics, s, fn);
    else if (q == 4) launch<T, 64, 4>(a, yb, atomics, s, fn);
    else launch<T, 64, 8>(a, yb, atomics, s, fn);
}

template void symv<float>(const SymvArgs<float>&, const SymvLaunch&, cudaStream_t);
template void symv<double>(const SymvArgs<double>&, const SymvLaunch&, cudaStream_t);
template std::vector<SymvLaunch> symv_configs<float>();
template std::vector<SymvLaunch> symv_configs<double>();
template SymvLaunch symv_default<float>(const SymvArgs<float>&);
template SymvLaunch symv_default<double>(const SymvArgs<double>&);

}  // namespace wb::tuned
