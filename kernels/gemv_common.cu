/// \file gemv_common.cu
/// \brief Host-side pieces every GEMV step shares: argument validation (BLAS rules, messages
///        that name the argument), the empty-reduction case, GemvLaunch formatting, the workspace.
#include "gemv_common.cuh"

#include "buffer.hpp"

#include <sstream>
#include <stdexcept>

namespace wb {

std::string GemvLaunch::str() const {
    std::ostringstream os;
    os << "bx=" << block_x << " by=" << block_y << " nb=" << nb << " Q=" << Q << " Y=" << Y << " ept=" << ept;
    static const char* const cache_names[] = {"", "cached", "stream", "evict-first", "stream256"};
    if (cache >= 1 && cache <= 4) os << " cache=" << cache_names[cache];
    else if (cache != 0) os << " cache=" << cache;
    if (cluster != 0) os << " split=" << (cluster == 1 ? "global" : "cluster");
    if (loop != 0) os << " loop";
    return os.str();
}

template <class T>
bool validate_gemv(const GemvArgs<T>& a, const char* fn) {
    auto fail = [&](const std::string& what) { throw std::invalid_argument(std::string(fn) + ": " + what); };
    if (a.op != Op::N && a.op != Op::T)
        fail("op (" + std::to_string(static_cast<int>(a.op)) + ") must be N or T");
    if (a.m < 0) fail("m (" + std::to_string(a.m) + ") must be >= 0");
    if (a.n < 0) fail("n (" + std::to_string(a.n) + ") must be >= 0");
    launch_checks::require_indexed(fn, "m", a.m, "rows");
    launch_checks::require_indexed(fn, "n", a.n, "columns");
    const int min_lda = a.m > 1 ? a.m : 1;
    if (a.lda < min_lda)
        fail("lda (" + std::to_string(a.lda) + ") must be >= max(1, m) (" + std::to_string(min_lda) + ")");
    // BLAS quick return: with m == 0 or n == 0 y is left as it is (reference xGEMV and cuBLAS
    // do not scale it by beta either).
    if (a.m == 0 || a.n == 0) return false;
    if (a.y == nullptr) fail("y must not be null when len(y) (" + std::to_string(a.len_y()) + ") > 0");
    if (a.len_x() > 0 && a.alpha != T(0)) {
        if (a.A == nullptr) fail("A must not be null when m*n > 0");
        if (a.x == nullptr) fail("x must not be null when len(x) (" + std::to_string(a.len_x()) + ") > 0");
    }
    return true;
}

namespace {
template <class T>
__global__ void scale_kernel(int len, T beta, T* __restrict__ y) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < len) y[i] = beta == T(0) ? T(0) : beta * y[i];
}
}  // namespace

template <class T>
void gemv_scale_y(const GemvArgs<T>& a, cudaStream_t s) {
    const int len = a.len_y();
    if (len == 0 || a.beta == T(1)) return;
    scale_kernel<T><<<(len + 255) / 256, 256, 0, s>>>(len, a.beta, a.y);
    WB_CHECK_LAUNCH();
}

namespace detail {

struct SplitPartialTag {};
struct SplitTicketTag {};

template <class T>
SplitWorkspace<T> split_workspace(int Y, int len_y, std::size_t tiles, cudaStream_t s) {
    const int ld = (len_y + 3) / 4 * 4;
    const std::size_t partial_bytes = static_cast<std::size_t>(Y) * ld * sizeof(T);
    void* partial = workspace_of_current_device<SplitPartialTag>(s).get(partial_bytes);
    void* tickets = workspace_of_current_device<SplitTicketTag>(s).get(tiles * sizeof(unsigned), /*zero_when_grown=*/true);
    return {static_cast<T*>(partial), static_cast<unsigned*>(tickets), ld};
}

template SplitWorkspace<float> split_workspace<float>(int, int, std::size_t, cudaStream_t);
template SplitWorkspace<double> split_workspace<double>(int, int, std::size_t, cudaStream_t);

}  // namespace detail

GemvMachine gemv_machine_of_current_device() {
    // Read once per device (launch_checks::device_attribute); without a GPU, the H200's figures
    // GemvMachine starts with.
    GemvMachine mc;
    mc.sm_count = launch_checks::sm_count();
    mc.max_threads_per_sm = launch_checks::device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor, mc.max_threads_per_sm);
    return mc;
}

template bool validate_gemv<float>(const GemvArgs<float>&, const char*);
template bool validate_gemv<double>(const GemvArgs<double>&, const char*);
template void gemv_scale_y<float>(const GemvArgs<float>&, cudaStream_t);
template void gemv_scale_y<double>(const GemvArgs<double>&, cudaStream_t);

}  // namespace wb
