// hybrid_partition.cpp — the blocks and bands each side of a hybrid reads (hybrid_partition.hpp).
#include "hybrid_partition.hpp"

#include "launch_checks.hpp"

#include <algorithm>
#include <string>

namespace wb::hybrid {

namespace {
void require_range(const char* fn, const char* size_name, int size, int r0, int r1, const char* lo = "r0",
                   const char* hi = "r1") {
    using launch_checks::num;
    const std::string l = lo, h = hi;
    if (r0 < 0 || r1 < r0 || r1 > size)
        launch_checks::fail(fn, l + " (" + num(r0) + ") and " + h + " (" + num(r1) + ") must satisfy 0 <= " + l + " <= " +
                                    h + " <= " + size_name + " (" + num(size) + ")");
}
void require_share(const char* fn, int n, int g) {
    using launch_checks::num;
    if (g < 0 || g > n) launch_checks::fail(fn, "g (" + num(g) + ") must be in [0, n] ([0, " + num(n) + "])");
}
}  // namespace

//! [symv-columns-plan]
SymvColumnsPlan symv_columns_plan(Uplo uplo, int n, int c0, int c1) {
    require_range("symv_columns_plan", "n", n, c0, c1, "c0", "c1");
    const int c = c1 - c0;
    SymvColumnsPlan p;
    p.diag = {c0, c0, c, c};
    if (uplo == Uplo::Lower) {
        p.off = {c1, c0, n - c1, c};  // below the diagonal block
        p.panel = {c0, c0, n - c0, c};
    } else {
        p.off = {0, c0, c0, c};  // above it
        p.panel = {0, c0, c1, c};
    }
    return p;
}

RowRange symv_gpu_rows(Uplo uplo, int n, int g) {
    require_share("symv_gpu_rows", n, g);
    return uplo == Uplo::Lower ? RowRange{0, g} : RowRange{n - g, n};
}

RowRange symv_cpu_rows(Uplo uplo, int n, int g) {
    require_share("symv_cpu_rows", n, g);
    return uplo == Uplo::Lower ? RowRange{g, n} : RowRange{0, n - g};
}

RowRange symv_gpu_chunk(Uplo uplo, int n, int g, int r0, int c) {
    using launch_checks::num;
    require_share("symv_gpu_chunk", n, g);
    if (r0 < 0 || c < 0 || r0 > g - c)  // r0 + c <= g without overflow
        launch_checks::fail("symv_gpu_chunk", "r0 (" + num(r0) + ") and c (" + num(c) +
                                                  ") must satisfy 0 <= r0 <= r0 + c <= g (" + num(g) + ")");
    return uplo == Uplo::Lower ? RowRange{r0, r0 + c} : RowRange{n - r0 - c, n - r0};
}
//! [symv-columns-plan]

namespace {
/// Twice the stored elements of the first k ordinals: k (2n - k + 1).
long long twice_work(int n, int k) { return static_cast<long long>(k) * (2LL * n - k + 1); }
void require_n(const char* fn, int n) {
    if (n < 0) launch_checks::fail(fn, "n (" + launch_checks::num(n) + ") must be >= 0");
}
void require_index(const char* fn, const char* name, int v, int n) {
    using launch_checks::num;
    if (v < 0 || v > n) launch_checks::fail(fn, std::string(name) + " (" + num(v) + ") must be in [0, n] ([0, " + num(n) + "])");
}
}  // namespace

int symv_ordinal_at(int n, int u) {
    require_n("symv_ordinal_at", n);
    require_index("symv_ordinal_at", "u", u, n);
    const long long want = static_cast<long long>(u) * (n + 1LL);  // twice u units' elements
    int lo = 0, hi = n;  // the first k with twice_work(k) >= want: twice_work(n) = n (n + 1) >= want
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (twice_work(n, mid) >= want) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

int symv_units_of(int n, int k) {
    require_n("symv_units_of", n);
    require_index("symv_units_of", "k", k, n);
    if (n == 0) return 0;
    return static_cast<int>((2 * twice_work(n, k) + (n + 1LL)) / (2 * (n + 1LL)));  // twice_work / (n + 1), rounded
}

RowRange symv_ordinal_columns(Uplo uplo, int n, int o0, int o1) {
    require_n("symv_ordinal_columns", n);
    require_range("symv_ordinal_columns", "n", n, o0, o1, "o0", "o1");
    return uplo == Uplo::Lower ? RowRange{o0, o1} : RowRange{n - o1, n - o0};
}

RowRange conv2d_input_rows(int rows, int fs, int r0, int r1) {
    require_range("conv2d_input_rows", "rows", rows, r0, r1);
    if (fs < 1 || fs % 2 == 0)
        launch_checks::fail("conv2d_input_rows", "fs (" + launch_checks::num(fs) + ") must be odd and >= 1");
    const int h = fs / 2;
    if (r0 == r1) return {r0, r0};
    return {std::max(0, r0 - h), std::min(rows, r1 + h)};
}

}  // namespace wb::hybrid
