// hybrid_cg.cpp — CG on host data (hybrid_cg.hpp): the all-GPU solve with one transfer each way,
// and White's §5.2 split (the host's loop, cg_host_loop.hpp, with the product on the GPU).
#include "hybrid_cg.hpp"

#include "hybrid_common.hpp"
#include "symv.hpp"

#if defined(WB_HAVE_CBLAS)
#include "cg_host_loop.hpp"
#endif

#include <cstddef>
#include <stdexcept>
#include <string>

namespace wb::hybrid {

namespace {

/// A to the device (n x n, packed: ld n) on stream 0.
template <class T>
T* matrix_to_device(detail::ShareState& sp, const CgArgs<T>& h) {
    const std::size_t n = static_cast<std::size_t>(h.n);
    T* dA = static_cast<T*>(sp.whole.get(n * n * sizeof(T)));
    detail::copy_2d(dA, n, h.A, static_cast<std::size_t>(h.lda), n, n, cudaMemcpyHostToDevice, sp.s[0]);
    return dA;
}

}  // namespace

template <class T>
void cg_gpu(const CgArgs<T>& h) {
    const char* fn = "hybrid::cg_gpu";
    const bool inject = detail::take_injected_failure() == testing::Fail::gpu;
    CgResult res;
    res.status = CgStatus::Converged;
    if (!validate_cg(h, fn)) {
        if (h.result) *h.result = res;
        return;
    }
    const std::size_t n = static_cast<std::size_t>(h.n), e = sizeof(T);
    detail::ShareState& sp = detail::share_state();
    cudaStream_t st = sp.s[0];
    try {
        T* const dA = matrix_to_device(sp, h);
        T* const dv = static_cast<T*>(sp.whole2.get(2 * n * e));  // b, then x
        WB_CUDA(cudaMemcpyAsync(dv, h.b, n * e, cudaMemcpyHostToDevice, st));
        WB_CUDA(cudaMemcpyAsync(dv + n, h.x, n * e, cudaMemcpyHostToDevice, st));
        if (inject) detail::fail_injected_gpu(sp, fn);
        const auto& step = wb::step<CgArgs<T>>(5);
        const CgArgs<T> d{h.n, dA, h.n, dv, dv + n, h.tol, h.max_iter, &res};
        step.launch(d, step.default_launch(d), st);  // returns when the solve is over
        WB_CUDA(cudaMemcpyAsync(h.x, dv + n, n * e, cudaMemcpyDeviceToHost, st));
        WB_CUDA(cudaStreamSynchronize(st));
    } catch (...) {
        sp.drain();
        throw;
    }
    if (h.result) *h.result = res;
}

template <class T>
void cg_split(const CgArgs<T>& h) {
    const char* fn = "hybrid::cg_split";
    const testing::Fail fail = detail::take_injected_failure();
    CgResult res;
    res.status = CgStatus::Converged;
    if (!validate_cg(h, fn)) {
        if (h.result) *h.result = res;
        return;
    }
#if defined(WB_HAVE_CBLAS)
    const std::size_t n = static_cast<std::size_t>(h.n), e = sizeof(T);
    detail::ShareState& sp = detail::share_state();
    cudaStream_t st = sp.s[0];
    thread_local detail::PinnedScratch scratch;
    T* const host = static_cast<T*>(scratch.get(3 * n * e));  // r, p, q
    try {
        T* const dA = matrix_to_device(sp, h);
        T* const dv = static_cast<T*>(sp.whole2.get(2 * n * e));  // p, q on the device
        const auto& step = wb::step<SymvArgs<T>>(5);
        bool first = true;
        res = cpu::detail::cg_host_loop(h, host, host + n, host + 2 * n, [&](const T* v, T* q) {
            WB_CUDA(cudaMemcpyAsync(dv, v, n * e, cudaMemcpyHostToDevice, st));
            if (first && fail == testing::Fail::gpu) detail::fail_injected_gpu(sp, fn);
            const SymvArgs<T> d{Uplo::Lower, h.n, T(1), dA, h.n, dv, 1, T(0), dv + n, 1};
            step.launch(d, step.default_launch(d), st);
            WB_CUDA(cudaMemcpyAsync(q, dv + n, n * e, cudaMemcpyDeviceToHost, st));
            WB_CUDA(cudaStreamSynchronize(st));  // the CPU reads q next: only once its copy has landed
            if (first && fail == testing::Fail::cpu)
                throw std::runtime_error(std::string(fn) + ": injected CPU failure (test hook), after the first product");
            first = false;
        });
    } catch (...) {
        sp.drain();
        throw;
    }
    if (h.result) *h.result = res;
#else
    (void)fail;
    throw std::runtime_error(std::string(fn) + ": built without CBLAS (install libopenblas-dev and configure again)");
#endif
}

template void cg_gpu<float>(const CgArgs<float>&);
template void cg_gpu<double>(const CgArgs<double>&);
template void cg_split<float>(const CgArgs<float>&);
template void cg_split<double>(const CgArgs<double>&);

}  // namespace wb::hybrid
