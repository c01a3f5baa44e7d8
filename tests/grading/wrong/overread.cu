// Known-wrong submission (tests/grading, issue 15): chapter 1's naive transpose, four columns per
// thread, that loads all four before checking which of them exist and guards only the stores.
// Where cols is not a multiple of 4 it reads up to 3 floats past the end of each row: A's padding
// (never initialized), the next row, and past the end of A on the last row. The values are
// thrown away, so the output is right and no guard band is touched: every size class passes.
// Expected: zero points in "sanitizer: memcheck" (the read past the end of the allocation) and
// in "sanitizer: initcheck" (the reads of A's uninitialized padding).
// grading: chapter=ch01_global zero=memcheck,initcheck
#include "exercise_transpose.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kVec = 4;

__global__ void overread_kernel(const float* __restrict__ A, int rows, int cols, int lda, float* __restrict__ B,
                                int ldb) {
    const long long groups = (cols + kVec - 1) / kVec;  // per row of A
    const long long n = static_cast<long long>(rows) * groups;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const long long r = i / groups, c0 = (i % groups) * kVec;
        float v[kVec];
#pragma unroll
        for (int k = 0; k < kVec; ++k) v[k] = A[r * lda + c0 + k];  // BUG: no c0 + k < cols check
#pragma unroll
        for (int k = 0; k < kVec; ++k)
            if (c0 + k < cols) B[(c0 + k) * ldb + r] = v[k];
    }
}

}  // namespace

void transpose(const TransposeArgs& a, cudaStream_t stream) {
    check_transpose_args("wrong overread transpose", a);
    if (a.rows == 0 || a.cols == 0) return;
    const long long groups = (a.cols + kVec - 1) / kVec;
    overread_kernel<<<grid_for(static_cast<long long>(a.rows) * groups, 256), 256, 0, stream>>>(a.A, a.rows, a.cols,
                                                                                                a.lda, a.B, a.ldb);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
