// hybrid_partition.cpp — the blocks and bands each side of a hybrid reads (hybrid_partition.hpp).
#include "hybrid_partition.hpp"

#include "launch_checks.hpp"

#include <algorithm>

namespace wb::hybrid {

namespace {
void require_range(const char* fn, const char* size_name, int size, int r0, int r1) {
    using launch_checks::num;
    if (r0 < 0 || r1 < r0 || r1 > size)
        launch_checks::fail(fn, "r0 (" + num(r0) + ") and r1 (" + num(r1) + ") must satisfy 0 <= r0 <= r1 <= " +
                                    size_name + " (" + num(size) + ")");
}
}  // namespace

//! [symv-rows-plan]
SymvRowsPlan symv_rows_plan(Uplo uplo, int n, int r0, int r1) {
    require_range("symv_rows_plan", "n", n, r0, r1);
    const int c = r1 - r0;
    SymvRowsPlan p;
    p.diag = {r0, r0, c, c};
    if (uplo == Uplo::Lower) {
        p.direct = {r0, 0, c, r0};
        p.mirrored = {r1, r0, n - r1, c};
        p.panel = {r0, r0, n - r0, c};
    } else {
        p.direct = {r0, r1, c, n - r1};
        p.mirrored = {0, r0, r0, c};
        p.panel = {0, r0, r1, c};
    }
    return p;
}
//! [symv-rows-plan]

RowRange conv2d_input_rows(int rows, int fs, int r0, int r1) {
    require_range("conv2d_input_rows", "rows", rows, r0, r1);
    if (fs < 1 || fs % 2 == 0)
        launch_checks::fail("conv2d_input_rows", "fs (" + launch_checks::num(fs) + ") must be odd and >= 1");
    const int h = fs / 2;
    if (r0 == r1) return {r0, r0};
    return {std::max(0, r0 - h), std::min(rows, r1 + h)};
}

}  // namespace wb::hybrid
