// hybrid_gemv.cpp — the hybrid GEMV (hybrid_gemv.hpp): the GPU's share pipelined in chunks on two
// streams (hybrid_common.hpp), the CPU's share at the same time, both writing disjoint rows of y;
// balanced (op N, pieces > 1), the two sides split the columns and add their partial y's.
#include "hybrid_gemv.hpp"

#include "cpu_peers.hpp"
#include "hybrid_balance.hpp"
#include "hybrid_common.hpp"
#include "launch_checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace wb::hybrid {

namespace {

/// The GPU's share with op N: rows [0, g) of A, a band g elements tall in each of A's n columns.
/// The copy engine moves a band of a column-major matrix at its full rate only when the band is
/// wide: on an H200, a band of 4 KiB of each 64 KiB column moved well below a contiguous copy's
/// rate, one of 32 KiB at the full rate (scripts/probes/copy_2d_probe.cu). Chunks of rows would
/// cut the band into ceil(g / chunk) narrower ones; so the chunks split the columns instead: as
/// many pieces, each the whole band over a slice of the columns, and each piece's kernel adds its
/// columns' part to one y on the device (the first with the call's beta, the next ones with
/// beta = 1, each after the one before on either stream). y goes back once, after the last piece.
template <class T>
void gpu_share_rows(const GemvArgs<T>& h, int g, int chunk, const detail::GpuCall& call) {
    const std::size_t e = sizeof(T), lda = static_cast<std::size_t>(h.lda), ug = static_cast<std::size_t>(g);
    // ceil(g / chunk) without overflow for any chunk >= 1 (g >= 1 here); h.n >= 1: validate_gemv saw work
    const int pieces = std::min((g - 1) / chunk + 1, h.n);
    const std::size_t piece_cols = (static_cast<std::size_t>(h.n) + pieces - 1) / static_cast<std::size_t>(pieces);
    detail::ShareState& sp = *call.sp;
    T* const dx = static_cast<T*>(sp.whole.get(static_cast<std::size_t>(h.n) * e));
    T* const dy = static_cast<T*>(sp.whole2.get(ug * e));
    T* const dA[2] = {static_cast<T*>(sp.in[0].get(ug * piece_cols * e)), static_cast<T*>(sp.in[1].get(ug * piece_cols * e))};
    const auto& step = wb::step<GemvArgs<T>>(5);
    detail::run_gpu_chunks(
        call, "hybrid::gemv", pieces, 1,
        [&] {  // x, and y where beta reads it: every piece's
            if (h.beta != T(0)) WB_CUDA(cudaMemcpyAsync(dy, h.y, ug * e, cudaMemcpyHostToDevice, sp.s[0]));
            detail::copy_whole(sp, dx, h.x, static_cast<std::size_t>(h.n) * e);
        },
        [&](int i, int, int b) {
            cudaStream_t st = sp.s[b];
            const int c0 = static_cast<int>(static_cast<std::size_t>(h.n) * i / pieces),
                      c1 = static_cast<int>(static_cast<std::size_t>(h.n) * (i + 1) / pieces);
            detail::copy_2d(dA[b], ug, h.A + static_cast<std::size_t>(c0) * lda, lda, ug, static_cast<std::size_t>(c1 - c0),
                            cudaMemcpyHostToDevice, st);
            if (i > 0) WB_CUDA(cudaStreamWaitEvent(st, sp.kernel_done[1 - b], 0));  // the piece before added its part
            GemvArgs<T> d = h;
            d.m = g;
            d.n = c1 - c0;
            d.A = dA[b];
            d.lda = g;
            d.x = dx + c0;
            d.y = dy;
            d.beta = i == 0 ? h.beta : T(1);
            step.launch(d, step.default_launch(d), st);
            WB_CUDA(cudaEventRecord(sp.kernel_done[b], st));
            if (i == pieces - 1) WB_CUDA(cudaMemcpyAsync(h.y, dy, ug * e, cudaMemcpyDeviceToHost, st));
        });
}

/// The GPU's share with op T: outputs [0, g) of y, columns [0, g) of A, in chunks of `chunk`
/// columns (each chunk's columns are contiguous: one copy at the full rate).
template <class T>
void gpu_share_columns(const GemvArgs<T>& h, int g, int chunk, const detail::GpuCall& call) {
    chunk = std::min(chunk, g);  // the buffers hold one chunk, never more than the share
    const std::size_t e = sizeof(T), lda = static_cast<std::size_t>(h.lda), m = static_cast<std::size_t>(h.m);
    const std::size_t cap = static_cast<std::size_t>(chunk) * m;
    detail::ShareState& sp = *call.sp;
    T* const dx = static_cast<T*>(sp.whole.get(static_cast<std::size_t>(h.len_x()) * e));
    T* const dA[2] = {static_cast<T*>(sp.in[0].get(cap * e)), static_cast<T*>(sp.in[1].get(cap * e))};
    T* const dy[2] = {static_cast<T*>(sp.out[0].get(static_cast<std::size_t>(chunk) * e)),
                      static_cast<T*>(sp.out[1].get(static_cast<std::size_t>(chunk) * e))};
    const auto& step = wb::step<GemvArgs<T>>(5);
    detail::run_gpu_chunks(
        call, "hybrid::gemv", g, chunk,
        [&] { detail::copy_whole(sp, dx, h.x, static_cast<std::size_t>(h.len_x()) * e); },  // x: every chunk's
        [&](int r0, int c, int b) {
            cudaStream_t st = sp.s[b];
            const std::size_t uc = static_cast<std::size_t>(c);
            GemvArgs<T> d = h;
            detail::copy_2d(dA[b], m, h.A + static_cast<std::size_t>(r0) * lda, lda, m, uc, cudaMemcpyHostToDevice, st);
            d.n = c;
            d.lda = std::max(1, h.m);
            if (h.beta != T(0)) WB_CUDA(cudaMemcpyAsync(dy[b], h.y + r0, uc * e, cudaMemcpyHostToDevice, st));
            d.A = dA[b];
            d.x = dx;
            d.y = dy[b];
            step.launch(d, step.default_launch(d), st);
            WB_CUDA(cudaMemcpyAsync(h.y + r0, dy[b], uc * e, cudaMemcpyDeviceToHost, st));
        });
}

/// The balanced call with op N (hybrid_gemv.hpp): the columns of A split between the sides, each
/// adding its columns' part alpha A(:, cols) x(cols) into a y of its own (the GPU's on the device,
/// chunk after chunk in order, then back into page-locked scratch; the CPU's in host scratch, piece
/// after piece), and y = y_gpu + y_cpu + beta y once both have stopped. A slice of whole columns is
/// one contiguous block of a column-major A: the copies run at the link's full rate, and the
/// slices can be claimed from both ends while the call runs (hybrid_balance.hpp).
template <class T>
void balanced_columns(const GemvArgs<T>& h, int gpu_cols, int unit, int pieces) {
    const std::size_t e = sizeof(T), m = static_cast<std::size_t>(h.m), lda = static_cast<std::size_t>(h.lda);
    thread_local std::vector<T> cpu_y;  // the CPU's partial y, kept from call to call like the GPU's buffers
    thread_local detail::PinnedScratch gpu_y_host;
    cpu_y.resize(m);
    T* const gpu_y = static_cast<T*>(gpu_y_host.get(m * e));
    detail::ShareState* sp = nullptr;
    T *dx = nullptr, *dy = nullptr, *dA[2] = {nullptr, nullptr};
    int chunks = 0;
    bool cpu_first = true;
    const auto& step = wb::step<GemvArgs<T>>(5);
    detail::run_balanced_now(
        "hybrid::gemv", h.n, gpu_cols, unit, pieces,
        [&](int c0, int c1) {  // the CPU's columns [c0, c1), added into its y
            GemvArgs<T> c = h;
            c.n = c1 - c0;
            c.A = h.A + static_cast<std::size_t>(c0) * lda;
            c.x = h.x + c0;
            c.y = cpu_y.data();
            c.beta = cpu_first ? T(0) : T(1);
            cpu_first = false;
            cpu::gemv(c);
        },
        [&](detail::ShareState& s, int cap) {  // x, every chunk's
            sp = &s;
            dx = static_cast<T*>(s.whole.get(static_cast<std::size_t>(h.n) * e));
            dy = static_cast<T*>(s.whole2.get(m * e));
            for (int b = 0; b < 2; ++b) dA[b] = static_cast<T*>(s.in[b].get(m * static_cast<std::size_t>(cap) * e));
            detail::copy_whole(s, dx, h.x, static_cast<std::size_t>(h.n) * e);
        },
        [&](int c0, int c, int b) {  // the GPU's columns [c0, c0 + c), added into its y after the chunk before
            cudaStream_t st = sp->s[b];
            detail::copy_2d(dA[b], m, h.A + static_cast<std::size_t>(c0) * lda, lda, m, static_cast<std::size_t>(c),
                            cudaMemcpyHostToDevice, st);
            if (chunks > 0) WB_CUDA(cudaStreamWaitEvent(st, sp->kernel_done[1 - b], 0));
            GemvArgs<T> d = h;
            d.n = c;
            d.A = dA[b];
            d.lda = std::max(1, h.m);
            d.x = dx + c0;
            d.y = dy;
            d.beta = chunks == 0 ? T(0) : T(1);
            step.launch(d, step.default_launch(d), st);
            WB_CUDA(cudaEventRecord(sp->kernel_done[b], st));
            ++chunks;
        },
        [&](int b) { WB_CUDA(cudaMemcpyAsync(gpu_y, dy, m * e, cudaMemcpyDeviceToHost, sp->s[b])); });
    for (std::size_t i = 0; i < m; ++i)  // beta == 0: y is not read (it may hold NaN)
        h.y[i] = gpu_y[i] + cpu_y[i] + (h.beta == T(0) ? T(0) : h.beta * h.y[i]);
}

}  // namespace

template <class T>
void gemv(const GemvArgs<T>& h, int gpu_rows, int chunk_rows, int pieces) {
    const char* fn = "hybrid::gemv";
    const bool work = validate_gemv(h, fn);
    const int len = h.len_y();
    detail::check_share(fn, "gpu_rows", gpu_rows, "len(y)", len, "chunk_rows", chunk_rows);
    if (pieces < 1) launch_checks::fail(fn, "pieces (" + launch_checks::num(pieces) + ") must be >= 1");
    if (!work) return;
    if (h.alpha == T(0)) return detail::scale_on_host(fn, h.y, len, 1, static_cast<std::size_t>(len), h.beta);
    if (h.op == Op::N && pieces > 1) {  // the plan's share of the rows, as a share of the columns
        const double f = static_cast<double>(gpu_rows) / len;
        const int gpu_cols = static_cast<int>(std::llround(f * h.n));
        const int unit = static_cast<int>(std::max(1LL, std::llround(static_cast<double>(chunk_rows) * h.n / len)));
        if (detail::balances(h.n, gpu_cols, pieces, {h.A, h.y})) return balanced_columns(h, gpu_cols, unit, pieces);
    }
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
    // Who issues (detail::run's rule): A and y decide; x, a vector, is staged in microseconds.
    detail::run(fn, gpu_rows < len, gpu_rows > 0, {h.A, h.y}, [&] { cpu::gemv(c); },
                [&](const detail::GpuCall& call) {
                    if (h.op == Op::N) gpu_share_rows(h, gpu_rows, chunk_rows, call);
                    else gpu_share_columns(h, gpu_rows, chunk_rows, call);
                });
}

template void gemv<float>(const GemvArgs<float>&, int, int, int);
template void gemv<double>(const GemvArgs<double>&, int, int, int);

}  // namespace wb::hybrid
