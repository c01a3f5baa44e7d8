// symv_columns.cpp — what a block of stored columns of a symmetric matrix adds to y, on the host,
// reading each stored element once (cpu_peers.hpp, cpu::symv_columns): the balanced hybrid SYMV's
// CPU piece (hybrid_symv.cpp).
//
// Why not OpenBLAS. The block's part off the diagonal block feeds two products, one into the
// block's own rows (its transpose times x) and one into every row below it (Lower; above it,
// Upper). Two GEMV calls would read it twice; a SYMV kernel reads each element once and does both
// with it. So this is a SYMV kernel restricted to the block: OpenMP threads take bands of the
// block's rows (equal numbers of stored elements, so the triangle at the block's top does not
// leave threads idle), each walks the columns of its band four at a time, top to bottom
// (contiguous loads), and adds a_ij x_j into its own rows' y and a_ij x_i into one partial dot
// per column; the partial dots are summed in a fixed order after the threads join (the same
// result on every call).
#include "cpu_peers.hpp"

#include "launch_checks.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace wb::cpu {

namespace {

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define WB_PANEL_VECTORS __attribute__((target_clones("avx512f", "avx2,fma", "default")))
#else
#define WB_PANEL_VECTORS
#endif

/// Rows [i0, i1) of one stored column a (indexed by row): y[i] += a[i] xj, and returns the sum of
/// a[i] x[i]. Compiled for the widest vectors the host has (target_clones picks at run time).
template <class T>
WB_PANEL_VECTORS T column_rows(const T* __restrict__ a, const T* __restrict__ x, T* __restrict__ y, int i0, int i1, T xj) {
    T s = 0;
#pragma omp simd reduction(+ : s)
    for (int i = i0; i < i1; ++i) {
        s += a[i] * x[i];
        y[i] += a[i] * xj;
    }
    return s;
}

/// Rows [i0, i1) of four stored columns a[0..3] at once: y[i] += sum_k a[k][i] xj[k], and s[k] +=
/// the sum of a[k][i] x[i]. One pass loads x[i] and y[i] once for four columns, where four passes
/// of column_rows would load them four times (OpenBLAS's SYMV kernels work on several columns per
/// pass for the same reason).
template <class T>
WB_PANEL_VECTORS void four_columns_rows(const T* __restrict__ a0, const T* __restrict__ a1, const T* __restrict__ a2,
                                        const T* __restrict__ a3, const T* __restrict__ x, T* __restrict__ y, int i0, int i1,
                                        const T* xj, T* s) {
    const T x0 = xj[0], x1 = xj[1], x2 = xj[2], x3 = xj[3];
    T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#pragma omp simd reduction(+ : s0, s1, s2, s3)
    for (int i = i0; i < i1; ++i) {
        const T xi = x[i];
        s0 += a0[i] * xi;
        s1 += a1[i] * xi;
        s2 += a2[i] * xi;
        s3 += a3[i] * xi;
        y[i] += a0[i] * x0 + a1[i] * x1 + a2[i] * x2 + a3[i] * x3;
    }
    s[0] += s0;
    s[1] += s1;
    s[2] += s2;
    s[3] += s3;
}

/// The stored elements of row i inside columns [c0, c1): Lower j in [c0, min(i, c1 - 1)], Upper
/// j in [max(i, c0), c1 - 1].
std::int64_t row_elements(Uplo uplo, int i, int c0, int c1) {
    const int lo = uplo == Uplo::Lower ? c0 : std::max(i, c0);
    const int hi = uplo == Uplo::Lower ? std::min(i, c1 - 1) : c1 - 1;
    return hi >= lo ? hi - lo + 1 : 0;
}

/// Cuts rows [r0, r1) into `parts` bands of about equal stored elements, each boundary a multiple of
/// 16 rows from r0 (two threads never write one cache line of y). Returns parts + 1 boundaries.
std::vector<int> bands(Uplo uplo, int r0, int r1, int c0, int c1, int parts) {
    std::int64_t total = 0;
    for (int i = r0; i < r1; ++i) total += row_elements(uplo, i, c0, c1);
    std::vector<int> b(static_cast<std::size_t>(parts) + 1, r1);
    b[0] = r0;
    std::int64_t seen = 0;
    int k = 1;
    for (int i = r0; i < r1 && k < parts; ++i) {
        seen += row_elements(uplo, i, c0, c1);
        // a boundary after row i where the band reached its share, at a multiple of 16 rows
        if (seen * parts >= total * k && (i + 1 - r0) % 16 == 0) b[static_cast<std::size_t>(k++)] = i + 1;
    }
    for (; k < parts; ++k) b[static_cast<std::size_t>(k)] = r1;
    return b;
}

}  // namespace

template <class T>
void symv_columns(Uplo uplo, int n, T alpha, const T* A, int lda, const T* x, T* y, int c0, int c1) {
    const char* fn = "cpu::symv_columns";
    using launch_checks::num;
    if (n < 0) launch_checks::fail(fn, "n (" + num(n) + ") must be >= 0");
    if (lda < std::max(1, n)) launch_checks::fail(fn, "lda (" + num(lda) + ") must be >= max(1, n) (" + num(std::max(1, n)) + ")");
    if (c0 < 0 || c1 < c0 || c1 > n)
        launch_checks::fail(fn, "c0 (" + num(c0) + ") and c1 (" + num(c1) + ") must satisfy 0 <= c0 <= c1 <= n (" + num(n) + ")");
    if (c0 == c1 || alpha == T(0)) return;
    if (!A || !x || !y) launch_checks::fail(fn, "A, x and y must not be null");
    // The block's rows: Lower [c0, n) (the diagonal block and everything below it), Upper [0, c1).
    const int r0 = uplo == Uplo::Lower ? c0 : 0, r1 = uplo == Uplo::Lower ? n : c1;
    const int cols = c1 - c0;
    const std::int64_t elements = static_cast<std::int64_t>(r1 - r0) * cols;
    int parts = 1;
#if defined(_OPENMP)
    // A thread per 64 Ki elements of the block's rectangle at most: a small block is not worth
    // the team's fork and join (microseconds).
    parts = static_cast<int>(std::clamp<std::int64_t>(elements / 65536, 1, omp_get_max_threads()));
#endif
    const std::vector<int> b = bands(uplo, r0, r1, c0, c1, parts);
    std::vector<T> dots(static_cast<std::size_t>(parts) * static_cast<std::size_t>(cols), T(0));
    const std::size_t ld = static_cast<std::size_t>(lda);
#pragma omp parallel for schedule(static, 1) num_threads(parts) if (parts > 1)
    for (int t = 0; t < parts; ++t) {
        const int i0 = b[static_cast<std::size_t>(t)], i1 = b[static_cast<std::size_t>(t) + 1];
        T* const dot = dots.data() + static_cast<std::size_t>(t) * static_cast<std::size_t>(cols);
        struct Rows {
            int lo, hi;
        };
        // The band's rows strictly off the diagonal in column j: Lower below it, Upper above it.
        auto off_rows = [&](int j) {
            return uplo == Uplo::Lower ? Rows{std::max(i0, j + 1), i1} : Rows{i0, std::min(i1, j)};
        };
        // Column j's rows r (a part of off_rows(j)) one column at a time, and its diagonal.
        auto one_column = [&](int j, Rows r) {
            const T* a = A + static_cast<std::size_t>(j) * ld;
            if (r.lo < r.hi) dot[j - c0] += column_rows(a, x, y, r.lo, r.hi, alpha * x[j]);
            if (j >= i0 && j < i1) y[j] += alpha * a[j] * x[j];
        };
        int j = c0;
        // Four columns a pass over the rows all four have off the diagonal (Lower: from j + 4 on;
        // Upper: up to j); each column's few rows outside that range, and its diagonal, alone.
        for (; j + 4 <= c1 && i0 < i1; j += 4) {
            const Rows common = off_rows(uplo == Uplo::Lower ? j + 3 : j);
            const bool any = common.lo < common.hi;
            if (any) {
                const T xj[4] = {alpha * x[j], alpha * x[j + 1], alpha * x[j + 2], alpha * x[j + 3]};
                auto col = [&](int k) { return A + static_cast<std::size_t>(j + k) * ld; };
                four_columns_rows(col(0), col(1), col(2), col(3), x, y, common.lo, common.hi, xj, dot + (j - c0));
            }
            for (int k = 0; k < 4; ++k) {  // the column's own rows less the common ones
                const Rows own = off_rows(j + k);
                one_column(j + k, !any ? own : uplo == Uplo::Lower ? Rows{own.lo, common.lo} : Rows{common.hi, own.hi});
            }
        }
        for (; j < c1 && i0 < i1; ++j) one_column(j, off_rows(j));  // the last columns, one at a time
    }
    for (int j = c0; j < c1; ++j) {  // the partial dots in a fixed order: the same y on every call
        T s = 0;
        for (int t = 0; t < parts; ++t) s += dots[static_cast<std::size_t>(t) * static_cast<std::size_t>(cols) + (j - c0)];
        y[j] += alpha * s;
    }
}

template void symv_columns<float>(Uplo, int, float, const float*, int, const float*, float*, int, int);
template void symv_columns<double>(Uplo, int, double, const double*, int, const double*, double*, int, int);

}  // namespace wb::cpu
