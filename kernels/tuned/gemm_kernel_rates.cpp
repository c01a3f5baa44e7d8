/// \file tuned/gemm_kernel_rates.cpp
/// \brief The tuned GEMM configurations' measured main-loop rates (gemm_kernel_rates.hpp).
#include "tuned/gemm_kernel_rates.hpp"

#include "check.hpp"
#include "gemm.hpp"
#include "launch_checks.hpp"
#include "tuned/gemm_default_rule.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <type_traits>
#include <vector>

namespace wb::tuned {
namespace {

/// Device buffers freed on every path.
struct DeviceBuffer {
    void* p = nullptr;
    explicit DeviceBuffer(std::size_t bytes) { WB_CUDA(cudaMalloc(&p, bytes)); }
    ~DeviceBuffer() { cudaFree(p); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

/// CUDA events freed on every path.
struct EventPair {
    cudaEvent_t start = nullptr, stop = nullptr;
    EventPair() {
        WB_CUDA(cudaEventCreate(&start));
        WB_CUDA(cudaEventCreate(&stop));
    }
    ~EventPair() {
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
    }
};

/// The median of three timed calls of `a` with launch `l` after one untimed, ms.
template <class T>
double median_ms(const GemmArgs<T>& a, const GemmLaunch& l, EventPair& ev) {
    tuned::gemm<T>(a, l, nullptr);
    double t[3];
    for (double& x : t) {
        WB_CUDA(cudaEventRecord(ev.start));
        tuned::gemm<T>(a, l, nullptr);
        WB_CUDA(cudaEventRecord(ev.stop));
        WB_CUDA(cudaEventSynchronize(ev.stop));
        float ms = 0;
        WB_CUDA(cudaEventElapsedTime(&ms, ev.start, ev.stop));
        x = ms;
    }
    std::sort(t, t + 3);
    return t[1];
}

}  // namespace

template <class T>
std::vector<GemmKernelRates> measure_gemm_kernel_rates() {
    // Whatever the caller has in flight finishes first: the timings below are the kernels' alone
    // (the first default launch may come from a worker thread whose copies are still running).
    WB_CUDA(cudaDeviceSynchronize());
    const std::vector<GemmLaunch> configs = gemm_configs<T>();
    // About four waves of one-block-per-SM tiles (more for the configurations that keep several
    // blocks per SM; every call below has the same shape, so the tail is the same in all three).
    const int side = static_cast<int>(std::ceil(std::sqrt(4.0 * launch_checks::sm_count())));
    // k = 33 x 32: whole k-tiles of every configuration, and leading dimensions that are no power
    // of two (k x 4 bytes = 33 lines of 128 bytes): columns a power of two apart share cache sets,
    // which would time the sets, not the kernels.
    constexpr int k = 1056;
    std::size_t most = 0;  // elements of the largest operand, its leading dimension one longer
    for (const GemmLaunch& c : configs)
        most = std::max({most, (static_cast<std::size_t>(side) * c.tile_m + 1) * (k + 1),
                         (static_cast<std::size_t>(side) * c.tile_n + 1) * (k + 1)});
    std::size_t most_c = 0;
    for (const GemmLaunch& c : configs) most_c = std::max(most_c, static_cast<std::size_t>(side) * c.tile_m * side * c.tile_n);
    DeviceBuffer A(most * sizeof(T)), B(most * sizeof(T)), C(most_c * sizeof(T));
    WB_CUDA(cudaMemset(A.p, 0, most * sizeof(T)));
    WB_CUDA(cudaMemset(B.p, 0, most * sizeof(T)));
    EventPair ev;
    std::vector<GemmKernelRates> out;
    for (const GemmLaunch& c : configs) {
        GemmArgs<T> a;
        a.m = side * c.tile_m;
        a.n = side * c.tile_n;
        a.k = k;
        a.alpha = T(1);
        a.beta = T(0);
        a.A = static_cast<const T*>(A.p);
        a.lda = a.m;
        a.B = static_cast<const T*>(B.p);
        a.ldb = k;
        a.C = static_cast<T*>(C.p);
        a.ldc = a.m;
        const GemmLaunch l = c;  // the configuration alone: read in place, no split, no copies
        const double nn = median_ms(a, l, ev);
        GemmArgs<T> tn = a;
        tn.op_a = Op::T;
        tn.lda = k;
        const double t = median_ms(tn, l, ev);
        GemmArgs<T> el = a;  // odd leading dimensions: columns off 16-byte boundaries, as most unaligned calls
        el.lda = a.m + 1;
        el.ldb = k + 1;
        const double e = median_ms(el, l, ev);
        out.push_back({nn / t, nn / e});
    }
    return out;
}

template <class T>
const std::vector<GemmKernelRates>& gemm_kernel_rates(bool live) {
    static const std::vector<GemmKernelRates> preset = gemm_kernel_rates_h200<T>();
    if (!live) return preset;
    int device = -1;
    if (cudaGetDevice(&device) != cudaSuccess) {
        cudaGetLastError();
        return preset;
    }
    static std::mutex mu;
    static std::map<int, std::vector<GemmKernelRates>> measured;
    std::lock_guard<std::mutex> lock(mu);
    auto it = measured.find(device);
    if (it == measured.end()) it = measured.emplace(device, measure_gemm_kernel_rates<T>()).first;
    return it->second;
}

template const std::vector<GemmKernelRates>& gemm_kernel_rates<float>(bool);
template const std::vector<GemmKernelRates>& gemm_kernel_rates<double>(bool);
template std::vector<GemmKernelRates> measure_gemm_kernel_rates<float>();
template std::vector<GemmKernelRates> measure_gemm_kernel_rates<double>();

}  // namespace wb::tuned
