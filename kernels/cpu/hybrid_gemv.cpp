// hybrid_gemv.cpp — the hybrid GEMV (hybrid_gemv.hpp): the GPU's share pipelined in chunks on two
// streams (hybrid_common.hpp), the CPU's share at the same time, both writing disjoint rows of y.
#include "hybrid_gemv.hpp"

#include "cpu_peers.hpp"
#include "hybrid_common.hpp"

#include <algorithm>
#include <cstddef>

namespace wb::hybrid {

namespace {

/// The GPU's share: outputs [0, g) of y in chunks of `chunk`.
template <class T>
void gpu_share(const GemvArgs<T>& h, int g, int chunk, const detail::GpuCall& call) {
    chunk = std::min(chunk, g);  // the buffers hold one chunk, never more than the share
    const bool trans = h.op == Op::T;
    const std::size_t e = sizeof(T), lda = static_cast<std::size_t>(h.lda);
    const int depth = trans ? h.m : h.n;  // the reduction length: A's extent along the other side
    const std::size_t cap = static_cast<std::size_t>(chunk) * static_cast<std::size_t>(depth);
    detail::ShareState& sp = detail::share_state();
    T* const dx = static_cast<T*>(sp.whole.get(static_cast<std::size_t>(h.len_x()) * e));
    T* const dA[2] = {static_cast<T*>(sp.in[0].get(cap * e)), static_cast<T*>(sp.in[1].get(cap * e))};
    T* const dy[2] = {static_cast<T*>(sp.out[0].get(static_cast<std::size_t>(chunk) * e)),
                      static_cast<T*>(sp.out[1].get(static_cast<std::size_t>(chunk) * e))};
    const auto& step = wb::step<GemvArgs<T>>(5);
    detail::run_gpu_chunks(
        sp, call, "hybrid::gemv", g, chunk,
        [&] { detail::copy_whole(sp, dx, h.x, static_cast<std::size_t>(h.len_x()) * e); },  // x: every chunk's
        [&](int r0, int c, int b) {
            cudaStream_t st = sp.s[b];
            const std::size_t uc = static_cast<std::size_t>(c);
            GemvArgs<T> d = h;
            if (!trans) {  // rows r0 .. r0+c of A: c elements from each of the n columns
                detail::copy_2d(dA[b], uc, h.A + r0, lda, uc, static_cast<std::size_t>(h.n), cudaMemcpyHostToDevice, st);
                d.m = c;
                d.lda = c;
            } else {  // columns r0 .. r0+c of A: m elements of each
                const std::size_t m = static_cast<std::size_t>(h.m);
                detail::copy_2d(dA[b], m, h.A + r0 * lda, lda, m, uc, cudaMemcpyHostToDevice, st);
                d.n = c;
                d.lda = std::max(1, h.m);
            }
            if (h.beta != T(0)) WB_CUDA(cudaMemcpyAsync(dy[b], h.y + r0, uc * e, cudaMemcpyHostToDevice, st));
            d.A = dA[b];
            d.x = dx;
            d.y = dy[b];
            step.launch(d, step.default_launch(d), st);
            WB_CUDA(cudaMemcpyAsync(h.y + r0, dy[b], uc * e, cudaMemcpyDeviceToHost, st));
        });
}

}  // namespace

template <class T>
void gemv(const GemvArgs<T>& h, int gpu_rows, int chunk_rows) {
    const char* fn = "hybrid::gemv";
    const bool work = validate_gemv(h, fn);
    const int len = h.len_y();
    detail::check_share(fn, "gpu_rows", gpu_rows, "len(y)", len, "chunk_rows", chunk_rows);
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
    detail::run(fn, gpu_rows < len, gpu_rows > 0, [&] { cpu::gemv(c); },
                [&](const detail::GpuCall& call) { gpu_share(h, gpu_rows, chunk_rows, call); });
}

template void gemv<float>(const GemvArgs<float>&, int, int);
template void gemv<double>(const GemvArgs<double>&, int, int);

}  // namespace wb::hybrid
