// hybrid_symv.cpp — the hybrid SYMV (hybrid_symv.hpp): the GPU's share as whole stored columns
// (symv_columns_plan) in chunks on two streams, the CPU's rows as one SYMV of their diagonal block.
#include "hybrid_symv.hpp"

#include "cpu_peers.hpp"
#include "gemv.hpp"
#include "hybrid_common.hpp"
#include "hybrid_partition.hpp"

#include <algorithm>
#include <cstddef>

namespace wb::hybrid {

namespace {

template <class T>
const T* at(const T* A, int lda, int row, int col) {
    return A + static_cast<std::size_t>(row) + static_cast<std::size_t>(col) * static_cast<std::size_t>(lda);
}

/// The GPU's share: g whole stored columns (symv_columns_plan), chunk by chunk in symv_gpu_chunk's
/// order on the two streams. Every chunk copies its panel and adds its three products into one
/// array acc of n on the device, each chunk's kernels after the chunk before's (events across the
/// streams): its rows of acc are then complete and go back into y at once; the CPU's rows of acc
/// (what the GPU's columns add to them) go back to `low` (page-locked) after the last chunk.
/// beta: acc starts as y's GPU rows, scaled by beta on the device before the first chunk, except
/// the first chunk's rows, which its SYMV scales (no scaling pass when one chunk holds every row: the
/// all-GPU call is a copy in, one SYMV, a copy out); the CPU's rows of acc start at 0.
template <class T>
void gpu_share(const SymvArgs<T>& h, int g, int chunk, T* low, const detail::GpuCall& call) {
    chunk = std::min(chunk, g);
    const std::size_t e = sizeof(T), n = static_cast<std::size_t>(h.n), uc = static_cast<std::size_t>(chunk);
    const std::size_t lda = static_cast<std::size_t>(h.lda);
    const RowRange mine = symv_gpu_rows(h.uplo, h.n, g);
    const RowRange first = symv_gpu_chunk(h.uplo, h.n, g, 0, chunk);
    const RowRange rest = h.uplo == Uplo::Lower ? RowRange{first.end, mine.end} : RowRange{mine.begin, first.begin};
    const RowRange cpu_rows = symv_cpu_rows(h.uplo, h.n, g);
    detail::ShareState& sp = *call.sp;
    T* const dx = static_cast<T*>(sp.whole.get(n * e));
    T* const acc = static_cast<T*>(sp.whole2.get(n * e));
    T* const dP[2] = {static_cast<T*>(sp.in[0].get(n * uc * e)), static_cast<T*>(sp.in[1].get(n * uc * e))};
    const auto& sstep = wb::step<SymvArgs<T>>(5);
    const auto& gstep = wb::step<GemvArgs<T>>(5);
    auto span = [](const RowRange& r) { return static_cast<std::size_t>(r.end - r.begin); };
    detail::run_gpu_chunks(
        call, "hybrid::symv", g, chunk,
        [&] {  // acc as above, then x: every chunk's
            cudaStream_t s0 = sp.s[0];
            if (h.beta != T(0)) {
                WB_CUDA(cudaMemcpyAsync(acc + mine.begin, h.y + mine.begin, span(mine) * e, cudaMemcpyHostToDevice, s0));
                if (h.beta != T(1) && span(rest) > 0)
                    symv_scale_y(SymvArgs<T>{h.uplo, rest.end - rest.begin, T(0), nullptr, 1, nullptr, 1, h.beta,
                                             acc + rest.begin, 1},
                                 s0);
            } else if (span(rest) > 0) {
                WB_CUDA(cudaMemsetAsync(acc + rest.begin, 0, span(rest) * e, s0));
            }
            if (span(cpu_rows) > 0) WB_CUDA(cudaMemsetAsync(acc + cpu_rows.begin, 0, span(cpu_rows) * e, s0));
            detail::copy_whole(sp, dx, h.x, n * e);
        },
        [&](int r0, int c, int b) {
            cudaStream_t st = sp.s[b];
            const RowRange cols = symv_gpu_chunk(h.uplo, h.n, g, r0, c);
            const SymvColumnsPlan p = symv_columns_plan(h.uplo, h.n, cols.begin, cols.end);
            const int ldp = std::max(1, p.panel.rows);
            T* const P = dP[b];
            detail::copy_2d(P, static_cast<std::size_t>(ldp), at(h.A, h.lda, p.panel.row0, p.panel.col0), lda,
                            static_cast<std::size_t>(p.panel.rows), static_cast<std::size_t>(p.panel.cols),
                            cudaMemcpyHostToDevice, st);
            if (r0 > 0) WB_CUDA(cudaStreamWaitEvent(st, sp.kernel_done[1 - b], 0));  // the chunk before added its part
            T* const yc = acc + cols.begin;
            SymvArgs<T> d{h.uplo, c, h.alpha, P + (p.diag.row0 - p.panel.row0), ldp, dx + cols.begin, 1,
                          r0 == 0 ? h.beta : T(1), yc, 1};
            sstep.launch(d, sstep.default_launch(d), st);
            if (!p.off.empty()) {
                const T* off = P + (p.off.row0 - p.panel.row0);
                const GemvArgs<T> t{Op::T, p.off.rows, c, h.alpha, off, ldp, dx + p.off.row0, T(1), yc};
                const GemvArgs<T> nn{Op::N, p.off.rows, c, h.alpha, off, ldp, dx + cols.begin, T(1), acc + p.off.row0};
                gstep.launch(t, gstep.default_launch(t), st);
                gstep.launch(nn, gstep.default_launch(nn), st);
            }
            WB_CUDA(cudaEventRecord(sp.kernel_done[b], st));
            WB_CUDA(cudaMemcpyAsync(h.y + cols.begin, yc, static_cast<std::size_t>(c) * e, cudaMemcpyDeviceToHost, st));
            if (r0 + c == g && span(cpu_rows) > 0)
                WB_CUDA(cudaMemcpyAsync(low, acc + cpu_rows.begin, span(cpu_rows) * e, cudaMemcpyDeviceToHost, st));
        });
}

}  // namespace

template <class T>
void symv(const SymvArgs<T>& h, int gpu_rows, int chunk_rows) {
    const char* fn = "hybrid::symv";
    const bool work = validate_symv(h, fn);
    detail::check_share(fn, "gpu_rows", gpu_rows, "n", h.n, "chunk_rows", chunk_rows);
    if (!work) return;
    const int g = gpu_rows;
    if (h.alpha == T(0)) return detail::scale_on_host(fn, h.y, h.n, 1, static_cast<std::size_t>(h.n), h.beta);
    // With both sides, the GPU adds what its columns give the CPU's rows (gpu_share): the CPU's
    // share is the SYMV of its diagonal block alone, and `low` is added once both have stopped.
    const RowRange cpu_rows = symv_cpu_rows(h.uplo, h.n, g);
    const int c0 = cpu_rows.begin, n_low = cpu_rows.end - cpu_rows.begin;
    thread_local detail::PinnedScratch scratch;  // low's copy back is a DMA, not staged
    T* const low = g > 0 && n_low > 0 ? static_cast<T*>(scratch.get(static_cast<std::size_t>(n_low) * sizeof(T))) : nullptr;
    auto cpu_share = [&] {
        cpu::symv(SymvArgs<T>{h.uplo, n_low, h.alpha, at(h.A, h.lda, c0, c0), h.lda, h.x + c0, 1, h.beta, h.y + c0, 1});
    };
    // Who issues (detail::run's rule): A and y decide; x, a vector, is staged in microseconds.
    detail::run(fn, n_low > 0, g > 0, {h.A, h.y}, cpu_share,
                [&](const detail::GpuCall& call) { gpu_share(h, g, chunk_rows, low, call); },
                [&] {
                    if (low)
                        for (int i = 0; i < n_low; ++i) h.y[c0 + i] += low[i];
                });
}

template void symv<float>(const SymvArgs<float>&, int, int);
template void symv<double>(const SymvArgs<double>&, int, int);

}  // namespace wb::hybrid
