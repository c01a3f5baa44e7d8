// hybrid_gemv.cpp — the hybrid GEMV (hybrid_gemv.hpp): the GPU's share pipelined in chunks on two
// streams, the CPU's share on a host thread at the same time, both writing disjoint rows of y.
#include "hybrid_gemv.hpp"

#include "buffer.hpp"
#include "check.hpp"
#include "cpu_peers.hpp"
#include "launch_checks.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <map>
#include <memory>
#include <thread>

namespace wb::hybrid {

namespace {

/// What the GPU's share reuses from call to call, per host thread and device (a library keeps its
/// workspace so; cuBLAS does): two non-blocking streams, an event and the device buffers, grown
/// as needed. Creating and freeing them in every call cost more than a small GEMV's copies and
/// kernel together (an H200 measured 0.18 ms for a whole n = 256 call), which is no part of the
/// transfer model's T_comm.
struct ShareState {
    cudaStream_t s[2] = {nullptr, nullptr};
    cudaEvent_t x_ready = nullptr;
    GrowOnlyBuffer dx, dA[2], dy[2];
    ShareState() {
        for (auto& st : s) WB_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
        WB_CUDA(cudaEventCreateWithFlags(&x_ready, cudaEventDisableTiming));
    }
    ~ShareState() {  // at thread exit, possibly after the context: errors ignored, never thrown
        for (auto& st : s)
            if (st) cudaStreamDestroy(st);
        if (x_ready) cudaEventDestroy(x_ready);
    }
    ShareState(const ShareState&) = delete;
    ShareState& operator=(const ShareState&) = delete;
    /// Waits for both streams (never throwing): before returning, also after an error, so that
    /// no copy still reads or writes the caller's host buffers once the call is over.
    void drain() {
        for (auto& st : s) cudaStreamSynchronize(st);
    }
};

ShareState& share_state() {
    thread_local std::map<int, std::unique_ptr<ShareState>> states;
    int dev = 0;
    WB_CUDA(cudaGetDevice(&dev));
    auto& p = states[dev];
    if (!p) p = std::make_unique<ShareState>();
    return *p;
}

/// The GPU's share: outputs [0, g) of y in chunks of `chunk`.
template <class T>
void gpu_share(const GemvArgs<T>& h, int g, int chunk) {
    chunk = std::min(chunk, g);  // the buffers hold one chunk, never more than the share
    const bool trans = h.op == Op::T;
    const std::size_t e = sizeof(T);
    const int depth = trans ? h.m : h.n;  // the reduction length: A's extent along the other side
    const std::size_t cap = static_cast<std::size_t>(chunk) * static_cast<std::size_t>(depth);
    ShareState& sp = share_state();
    T* const dx = static_cast<T*>(sp.dx.get(static_cast<std::size_t>(h.len_x()) * e));
    T* const dA[2] = {static_cast<T*>(sp.dA[0].get(cap * e)), static_cast<T*>(sp.dA[1].get(cap * e))};
    T* const dy[2] = {static_cast<T*>(sp.dy[0].get(static_cast<std::size_t>(chunk) * e)),
                      static_cast<T*>(sp.dy[1].get(static_cast<std::size_t>(chunk) * e))};
    try {
        // x is needed by every chunk: copied on stream 0, and stream 1 waits for it.
        WB_CUDA(cudaMemcpyAsync(dx, h.x, static_cast<std::size_t>(h.len_x()) * e, cudaMemcpyHostToDevice, sp.s[0]));
        WB_CUDA(cudaEventRecord(sp.x_ready, sp.s[0]));
        WB_CUDA(cudaStreamWaitEvent(sp.s[1], sp.x_ready, 0));
        const auto& step = wb::step<GemvArgs<T>>(5);
        for (int r0 = 0, i = 0; r0 < g; r0 += chunk, ++i) {
            const int c = std::min(chunk, g - r0);
            const int b = i & 1;
            cudaStream_t st = sp.s[b];
            const std::size_t lda = static_cast<std::size_t>(h.lda);
            GemvArgs<T> d = h;
            if (!trans) {  // rows r0 .. r0+c of A: c elements from each of the n columns
                WB_CUDA(cudaMemcpy2DAsync(dA[b], static_cast<std::size_t>(c) * e, h.A + r0, lda * e,
                                          static_cast<std::size_t>(c) * e, static_cast<std::size_t>(h.n),
                                          cudaMemcpyHostToDevice, st));
                d.m = c;
                d.lda = c;
            } else {  // columns r0 .. r0+c of A: m elements of each
                WB_CUDA(cudaMemcpy2DAsync(dA[b], static_cast<std::size_t>(h.m) * e, h.A + r0 * lda, lda * e,
                                          static_cast<std::size_t>(h.m) * e, static_cast<std::size_t>(c),
                                          cudaMemcpyHostToDevice, st));
                d.n = c;
                d.lda = std::max(1, h.m);
            }
            if (h.beta != T(0))
                WB_CUDA(cudaMemcpyAsync(dy[b], h.y + r0, static_cast<std::size_t>(c) * e, cudaMemcpyHostToDevice, st));
            d.A = dA[b];
            d.x = dx;
            d.y = dy[b];
            step.launch(d, step.default_launch(d), st);
            WB_CUDA(cudaMemcpyAsync(h.y + r0, dy[b], static_cast<std::size_t>(c) * e, cudaMemcpyDeviceToHost, st));
        }
        for (auto& st : sp.s) WB_CUDA(cudaStreamSynchronize(st));
    } catch (...) {
        sp.drain();  // nothing still touches the caller's buffers when the error surfaces
        throw;
    }
}

}  // namespace

template <class T>
void gemv(const GemvArgs<T>& h, int gpu_rows, int chunk_rows) {
    const char* fn = "hybrid::gemv";
    const bool work = validate_gemv(h, fn);
    const int len = h.len_y();
    if (gpu_rows < 0 || gpu_rows > len)
        launch_checks::fail(fn, "gpu_rows (" + launch_checks::num(gpu_rows) + ") must be in [0, len(y)] ([0, " +
                                    launch_checks::num(len) + "])");
    if (chunk_rows < 1) launch_checks::fail(fn, "chunk_rows (" + launch_checks::num(chunk_rows) + ") must be >= 1");
    if (!work) return;
    // The CPU's share, outputs [gpu_rows, len): op N a band of rows of A, op T a band of columns.
    GemvArgs<T> c = h;
    if (h.op == Op::N) {
        c.m = len - gpu_rows;
        c.A = h.A + gpu_rows;
    } else {
        c.n = len - gpu_rows;
        c.A = h.A + static_cast<std::size_t>(gpu_rows) * static_cast<std::size_t>(h.lda);
    }
    c.y = h.y + gpu_rows;
    if (gpu_rows == 0) return cpu::gemv(c);  // one side only: no second thread to start
    if (gpu_rows == len) return gpu_share(h, gpu_rows, chunk_rows);
    std::exception_ptr cpu_error, gpu_error;
    std::thread cpu_side([&] {
        try {
            cpu::gemv(c);
        } catch (...) {
            cpu_error = std::current_exception();
        }
    });
    try {
        gpu_share(h, gpu_rows, chunk_rows);
    } catch (...) {
        gpu_error = std::current_exception();
    }
    cpu_side.join();  // both sides have stopped before anything is reported
    if (gpu_error) std::rethrow_exception(gpu_error);
    if (cpu_error) std::rethrow_exception(cpu_error);
}

template void gemv<float>(const GemvArgs<float>&, int, int);
template void gemv<double>(const GemvArgs<double>&, int, int);

}  // namespace wb::hybrid
