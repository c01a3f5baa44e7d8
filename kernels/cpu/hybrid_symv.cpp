// hybrid_symv.cpp — the hybrid SYMV (hybrid_symv.hpp): the GPU's share as whole stored columns
// (symv_columns_plan) in chunks on two streams, the CPU's rows as one SYMV of their diagonal block;
// balanced (pieces > 1), the stored columns claimed from both ends in units of equal work.
#include "hybrid_symv.hpp"

#include "cpu_peers.hpp"
#include "gemv.hpp"
#include "hybrid_balance.hpp"
#include "hybrid_common.hpp"
#include "hybrid_partition.hpp"
#include "launch_checks.hpp"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace wb::hybrid {

namespace {

template <class T>
const T* at(const T* A, int lda, int row, int col) {
    return A + static_cast<std::size_t>(row) + static_cast<std::size_t>(col) * static_cast<std::size_t>(lda);
}

/// One chunk on stream st (gpu_share's and the balanced call's): its panel, the stored columns
/// cols (symv_columns_plan), copied into P (at most `cap` elements: a larger panel is a bug, thrown
/// as std::logic_error), then, once `after` has happened (none: nullptr; the chunk before adding
/// its part of acc), the SYMV of its diagonal block and the two GEMVs of its block off it, all
/// adding into acc (beta_first: the SYMV's beta on its rows of acc).
template <class T>
void chunk_on_device(const SymvArgs<T>& h, RowRange cols, T* P, std::size_t cap, const T* dx, T* acc, T beta_first,
                     cudaEvent_t after, cudaStream_t st) {
    const SymvColumnsPlan p = symv_columns_plan(h.uplo, h.n, cols.begin, cols.end);
    const std::size_t panel = static_cast<std::size_t>(p.panel.rows) * static_cast<std::size_t>(p.panel.cols);
    if (panel > cap)
        throw std::logic_error("hybrid::symv: a chunk's panel (" + std::to_string(panel) + " elements) outgrew its buffer (" +
                               std::to_string(cap) + ")");
    const int ldp = std::max(1, p.panel.rows);
    detail::copy_2d(P, static_cast<std::size_t>(ldp), at(h.A, h.lda, p.panel.row0, p.panel.col0), static_cast<std::size_t>(h.lda),
                    static_cast<std::size_t>(p.panel.rows), static_cast<std::size_t>(p.panel.cols), cudaMemcpyHostToDevice, st);
    if (after) WB_CUDA(cudaStreamWaitEvent(st, after, 0));
    const int c = cols.end - cols.begin;
    T* const yc = acc + cols.begin;
    const SymvArgs<T> d{h.uplo, c, h.alpha, P + (p.diag.row0 - p.panel.row0), ldp, dx + cols.begin, 1, beta_first, yc, 1};
    const auto& sstep = wb::step<SymvArgs<T>>(5);
    sstep.launch(d, sstep.default_launch(d), st);
    if (p.off.empty()) return;
    const auto& gstep = wb::step<GemvArgs<T>>(5);
    const T* off = P + (p.off.row0 - p.panel.row0);
    const GemvArgs<T> t{Op::T, p.off.rows, c, h.alpha, off, ldp, dx + p.off.row0, T(1), yc};
    const GemvArgs<T> nn{Op::N, p.off.rows, c, h.alpha, off, ldp, dx + cols.begin, T(1), acc + p.off.row0};
    gstep.launch(t, gstep.default_launch(t), st);
    gstep.launch(nn, gstep.default_launch(nn), st);
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
    const RowRange mine = symv_gpu_rows(h.uplo, h.n, g);
    const RowRange first = symv_gpu_chunk(h.uplo, h.n, g, 0, chunk);
    const RowRange rest = h.uplo == Uplo::Lower ? RowRange{first.end, mine.end} : RowRange{mine.begin, first.begin};
    const RowRange cpu_rows = symv_cpu_rows(h.uplo, h.n, g);
    detail::ShareState& sp = *call.sp;
    T* const dx = static_cast<T*>(sp.whole.get(n * e));
    T* const acc = static_cast<T*>(sp.whole2.get(n * e));
    T* const dP[2] = {static_cast<T*>(sp.in[0].get(n * uc * e)), static_cast<T*>(sp.in[1].get(n * uc * e))};
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
            chunk_on_device(h, cols, dP[b], n * uc, dx, acc, r0 == 0 ? h.beta : T(1), r0 > 0 ? sp.kernel_done[1 - b] : nullptr, st);
            WB_CUDA(cudaEventRecord(sp.kernel_done[b], st));
            WB_CUDA(cudaMemcpyAsync(h.y + cols.begin, acc + cols.begin, static_cast<std::size_t>(c) * e, cudaMemcpyDeviceToHost, st));
            if (r0 + c == g && span(cpu_rows) > 0)
                WB_CUDA(cudaMemcpyAsync(low, acc + cpu_rows.begin, span(cpu_rows) * e, cudaMemcpyDeviceToHost, st));
        });
}

/// The balanced call (hybrid_symv.hpp): n units of equal work (symv_ordinal_at), the GPU's chunks
/// from the first ordinal, the CPU's pieces from the last. Each side adds everything its stored
/// columns give every row into a y of its own, both starting at 0 (the GPU's acc on the device,
/// back into page-locked scratch once every unit is claimed; the CPU's in host memory, by
/// cpu::symv_columns, one read of each element), and y = y_gpu + y_cpu + beta y once both have
/// stopped. Every stored element is read once, by one side.
template <class T>
void balanced_columns(const SymvArgs<T>& h, int g_units, int unit, int pieces) {
    const int n = h.n;
    const std::size_t e = sizeof(T), un = static_cast<std::size_t>(n);
    thread_local std::vector<T> cpu_y;
    thread_local detail::PinnedScratch gpu_y_host;
    cpu_y.assign(un, T(0));
    T* const gpu_y = static_cast<T*>(gpu_y_host.get(un * e));
    detail::ShareState* sp = nullptr;
    T *dx = nullptr, *acc = nullptr, *dP[2] = {nullptr, nullptr};
    std::size_t cap_elems = 0;
    int chunks = 0, last_b = 0;
    auto columns = [&](int u0, int u1) {
        return symv_ordinal_columns(h.uplo, n, symv_ordinal_at(n, u0), symv_ordinal_at(n, u1));
    };
    detail::run_balanced_now(
        "hybrid::symv", n, g_units, unit, pieces,
        [&](int u0, int u1) {  // the CPU's units [u0, u1): their stored columns, added into its y
            const RowRange cols = columns(u0, u1);
            cpu::symv_columns(h.uplo, n, h.alpha, h.A, h.lda, h.x, cpu_y.data(), cols.begin, cols.end);
        },
        [&](detail::ShareState& s, int cap) {  // x, every chunk's; acc at 0
            sp = &s;
            // A chunk of at most cap units holds fewer than cap (n + 1) / 2 + n stored elements,
            // and its panel (a rectangle) at most twice its stored ones: (cap + 2) (n + 1) bound it.
            cap_elems = std::min(un * un, (static_cast<std::size_t>(cap) + 2) * (un + 1));
            dx = static_cast<T*>(s.whole.get(un * e));
            acc = static_cast<T*>(s.whole2.get(un * e));
            for (int b = 0; b < 2; ++b) dP[b] = static_cast<T*>(s.in[b].get(cap_elems * e));
            WB_CUDA(cudaMemsetAsync(acc, 0, un * e, s.s[0]));
            detail::copy_whole(s, dx, h.x, un * e);  // stream 1 waits for both
        },
        [&](int u0, int c, int b) {  // the GPU's units [u0, u0 + c): their columns, after the chunk before
            const RowRange cols = columns(u0, u0 + c);
            if (cols.end == cols.begin) return;  // units inside one column's share: nothing to add
            cudaStream_t st = sp->s[b];
            chunk_on_device(h, cols, dP[b], cap_elems, dx, acc, T(1), chunks > 0 ? sp->kernel_done[last_b] : nullptr, st);
            WB_CUDA(cudaEventRecord(sp->kernel_done[b], st));
            ++chunks;
            last_b = b;
        },
        [&](int b) {  // after the last chunk with products, wherever it ran
            cudaStream_t st = sp->s[b];
            if (chunks > 0 && last_b != b) WB_CUDA(cudaStreamWaitEvent(st, sp->kernel_done[last_b], 0));
            WB_CUDA(cudaMemcpyAsync(gpu_y, acc, un * e, cudaMemcpyDeviceToHost, st));
        });
    // What the GPU took, as stored columns (the share the model's rows count), not as units.
    detail::side_times_slot().gpu_outputs = symv_ordinal_at(n, detail::side_times_slot().gpu_outputs);
    for (std::size_t i = 0; i < un; ++i)  // beta == 0: y is not read (it may hold NaN)
        h.y[i] = gpu_y[i] + cpu_y[i] + (h.beta == T(0) ? T(0) : h.beta * h.y[i]);
}

}  // namespace

template <class T>
void symv(const SymvArgs<T>& h, int gpu_rows, int chunk_rows, int pieces) {
    const char* fn = "hybrid::symv";
    const bool work = validate_symv(h, fn);
    detail::check_share(fn, "gpu_rows", gpu_rows, "n", h.n, "chunk_rows", chunk_rows);
    if (pieces < 1) launch_checks::fail(fn, "pieces (" + launch_checks::num(pieces) + ") must be >= 1");
    if (!work) return;
    const int g = gpu_rows;
    if (h.alpha == T(0)) return detail::scale_on_host(fn, h.y, h.n, 1, static_cast<std::size_t>(h.n), h.beta);
    if (pieces > 1 && g > 0 && g < h.n) {  // the plan's rows as units of work, its chunks as many
        const int g_units = symv_units_of(h.n, g);
        const int chunks = (g - 1) / chunk_rows + 1;
        const int unit = std::max(1, (g_units + chunks - 1) / chunks);
        if (detail::balances(h.n, g_units, pieces, {h.A, h.y})) return balanced_columns(h, g_units, unit, pieces);
    }
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

template void symv<float>(const SymvArgs<float>&, int, int, int);
template void symv<double>(const SymvArgs<double>&, int, int, int);

}  // namespace wb::hybrid
