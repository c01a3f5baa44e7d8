// symv_columns.cpp — what a block of stored columns of a symmetric matrix adds to y, on the host,
// reading each stored element once (cpu_peers.hpp, cpu::symv_columns): the balanced hybrid SYMV's
// CPU piece (hybrid_symv.cpp).
//
// Why not OpenBLAS. The block's part off the diagonal block feeds two products, one into the
// block's own rows (its transpose times x) and one into every row below it (Lower; above it,
// Upper). Two GEMV calls would read it twice; a SYMV kernel reads each element once and does both
// with it. So this is a SYMV kernel restricted to the block: OpenMP threads take bands of the
// block's rows (equal numbers of stored elements, so the triangle at the block's top does not
// leave threads idle), each walks every column of its band top to bottom (contiguous loads) and
// adds a_ij x_j into its own rows' y and a_ij x_i into one partial dot per column; the partial dots
// are summed in a fixed order after the threads join (the same result on every call).
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
        for (int j = c0; j < c1 && i0 < i1; ++j) {
            const T* a = A + static_cast<std::size_t>(j) * ld;
            // the band's rows strictly off the diagonal in column j, then the diagonal itself
            const int lo = uplo == Uplo::Lower ? std::max(i0, j + 1) : i0;
            const int hi = uplo == Uplo::Lower ? i1 : std::min(i1, j);
            if (lo < hi) dot[j - c0] += column_rows(a, x, y, lo, hi, alpha * x[j]);
            if (j >= i0 && j < i1) y[j] += alpha * a[j] * x[j];
        }
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
