/// \file gemm_common.cu
/// \brief GEMM host pieces shared by every step: argument validation (architecture §3: each message
///        names the function, the argument, its value and the rule), GemmLaunch::str, the
///        C = beta*C kernel of the k == 0 / alpha == 0 case, and the SM count the tuned step
///        counts waves with.
#include "gemm_common.cuh"

#include <algorithm>
#include <map>

namespace wb {

std::string GemmLaunch::str() const {
    using launch_checks::dims;
    return launch_checks::LaunchText()
        .add(tile_m > 0 || tile_n > 0 || tile_k > 0, "tile=" + dims(tile_m, tile_n, tile_k))
        .add(thread_m > 0 || thread_n > 0, "thread=" + dims(thread_m, thread_n))
        .add(warp_m > 0 || warp_n > 0, "warp=" + dims(warp_m, warp_n))
        .add(stages > 0, "stages=" + launch_checks::num(stages))
        .add(block_x > 0 || block_y > 0, "block=" + dims(block_x, block_y))
        .add(split_k > 1, "split=" + launch_checks::num(split_k))
        .add(pack_a == 2, "pack A")
        .add(pack_b == 2, "pack B")
        .add(align == 2, "aligned copies")
        .add(gemv == 2, "as GEMV")
        .add(math == 2, "FP64 tensor cores")
        .str();
}

using launch_checks::fail;
using launch_checks::num;

template <class T>
bool validate_gemm(const GemmArgs<T>& a, const char* fn) {
    if (a.op_a != Op::N && a.op_a != Op::T) fail(fn, "op_a (" + num(static_cast<int>(a.op_a)) + ") must be N or T");
    if (a.op_b != Op::N && a.op_b != Op::T) fail(fn, "op_b (" + num(static_cast<int>(a.op_b)) + ") must be N or T");
    if (a.m < 0) fail(fn, "m (" + num(a.m) + ") must be >= 0");
    if (a.n < 0) fail(fn, "n (" + num(a.n) + ") must be >= 0");
    if (a.k < 0) fail(fn, "k (" + num(a.k) + ") must be >= 0");
    launch_checks::require_indexed(fn, "m", a.m, "rows of C");
    launch_checks::require_indexed(fn, "n", a.n, "columns of C");
    launch_checks::require_indexed(fn, "k", a.k, "the reduction's elements");
    const int ra = std::max(1, a.rows_a()), rb = std::max(1, a.rows_b()), rc = std::max(1, a.m);
    if (a.lda < ra)
        fail(fn, "lda (" + num(a.lda) + ") must be >= max(1, " + (a.op_a == Op::N ? "m" : "k") + ") (" + num(ra) +
                     ") for op_a = " + op_char(a.op_a));
    if (a.ldb < rb)
        fail(fn, "ldb (" + num(a.ldb) + ") must be >= max(1, " + (a.op_b == Op::N ? "k" : "n") + ") (" + num(rb) +
                     ") for op_b = " + op_char(a.op_b));
    if (a.ldc < rc) fail(fn, "ldc (" + num(a.ldc) + ") must be >= max(1, m) (" + num(rc) + ")");
    if (a.m == 0 || a.n == 0) return false;  // BLAS quick return: C is not touched
    if (a.C == nullptr) fail(fn, "C must not be null when m and n are > 0");
    const bool reads_ab = a.k > 0 && a.alpha != T(0);
    if (reads_ab && a.A == nullptr) fail(fn, "A must not be null when m, n, k > 0 and alpha != 0");
    if (reads_ab && a.B == nullptr) fail(fn, "B must not be null when m, n, k > 0 and alpha != 0");
    return true;
}

template bool validate_gemm<float>(const GemmArgs<float>&, const char*);
template bool validate_gemm<double>(const GemmArgs<double>&, const char*);

namespace {

//! [gemm-scale-c]
/// C = beta*C, or C = 0 without reading C when beta == 0 (k == 0 or alpha == 0).
template <class T>
__global__ void scale_c_kernel(int m, int n, T beta, T* C, int ldc) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    for (int j = blockIdx.y; j < n; j += gridDim.y) {
        T* c = C + i + static_cast<long long>(j) * ldc;
        *c = beta == T(0) ? T(0) : beta * *c;
    }
}
//! [gemm-scale-c]

}  // namespace

template <class T>
void gemm_scale_c(const GemmArgs<T>& a, cudaStream_t s) {
    if (a.m <= 0 || a.n <= 0) return;
    if (a.beta == T(1)) return;  // C = 1*C: nothing to do
    const dim3 block(256);
    const dim3 grid(gemm_detail::grid_dim(gemm_detail::ceil_div(a.m, 256), kMaxGridX, "gemm_scale_c"),
                    static_cast<unsigned>(std::min(a.n, kMaxGridYZ)));
    scale_c_kernel<T><<<grid, block, 0, s>>>(a.m, a.n, a.beta, a.C, a.ldc);
    WB_CHECK_LAUNCH();
}

template void gemm_scale_c<float>(const GemmArgs<float>&, cudaStream_t);
template void gemm_scale_c<double>(const GemmArgs<double>&, cudaStream_t);

}  // namespace wb
