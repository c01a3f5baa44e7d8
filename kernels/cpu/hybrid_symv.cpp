// hybrid_symv.cpp — the hybrid SYMV (hybrid_symv.hpp): each side's rows computed from the stored
// triangle's blocks of symv_rows_plan, the GPU's in chunks on two streams, the CPU's at once.
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

/// y(rows) += alpha (direct x(direct's columns) + mirrored^T x(mirrored's rows)): the plan's two
/// GEMVs, through `gemv` (the CPU peer or the tuned step on a stream), with beta 1 (the SYMV of the
/// diagonal block ran first with the call's beta). Empty blocks are skipped: a GEMV with n == 0
/// returns without scaling y (BLAS's quick return).
template <class T, class Gemv>
void off_diagonal(const SymvRowsPlan& p, T alpha, const T* direct, int ld_direct, const T* mirrored, int ld_mirrored,
                  const T* x, T* y, Gemv gemv) {
    if (!p.direct.empty())
        gemv(GemvArgs<T>{Op::N, p.direct.rows, p.direct.cols, alpha, direct, ld_direct, x + p.direct.col0, T(1), y});
    if (!p.mirrored.empty())
        gemv(GemvArgs<T>{Op::T, p.mirrored.rows, p.mirrored.cols, alpha, mirrored, ld_mirrored, x + p.mirrored.row0,
                         T(1), y});
}

/// The GPU's share: rows [0, g) in chunks of `chunk`. Each chunk's panel (Lower) or row block
/// (Upper) also holds the chunk's columns of the CPU's off-diagonal block (Lower: A(g:n, r0:r1) in
/// the panel; Upper: A(r0:r1, g:n) in the row block), already on the device: the chunk adds their
/// part of the CPU's rows to y_low (one array of n - g on the device, the chunks in order), which
/// goes back to `low` (page-locked host memory) after the last chunk. So the CPU's share reads only
/// its diagonal block, and no element of the CPU's rows is read from host memory twice.
template <class T>
void gpu_share(const SymvArgs<T>& h, int g, int chunk, T* low, const detail::GpuCall& call) {
    chunk = std::min(chunk, g);
    const std::size_t e = sizeof(T), n = static_cast<std::size_t>(h.n), uc = static_cast<std::size_t>(chunk);
    const std::size_t lda = static_cast<std::size_t>(h.lda);
    const int n_low = h.n - g;  // the CPU's rows [g, n)
    detail::ShareState& sp = detail::share_state();
    T* const dx = static_cast<T*>(sp.whole.get(n * e));
    T* const dlow = static_cast<T*>(sp.whole2.get(static_cast<std::size_t>(n_low) * e));
    T* dP[2], *dD[2], *dy[2];  // the panel, the direct block, the chunk's y
    for (int b = 0; b < 2; ++b) {
        dP[b] = static_cast<T*>(sp.in[b].get(n * uc * e));
        dD[b] = static_cast<T*>(sp.in2[b].get(n * uc * e));
        dy[b] = static_cast<T*>(sp.out[b].get(uc * e));
    }
    const auto& sstep = wb::step<SymvArgs<T>>(5);
    const auto& gstep = wb::step<GemvArgs<T>>(5);
    auto gemv_on = [&](cudaStream_t st) {
        return [&gstep, st](const GemvArgs<T>& a) { gstep.launch(a, gstep.default_launch(a), st); };
    };
    detail::run_gpu_chunks(
        sp, call, "hybrid::symv", g, chunk, [&] { detail::copy_whole(sp, dx, h.x, n * e); },
        [&](int r0, int c, int b) {
            cudaStream_t st = sp.s[b];
            const SymvRowsPlan p = symv_rows_plan(h.uplo, h.n, r0, r0 + c);
            const int ldp = std::max(1, p.panel.rows), ldd = std::max(1, p.direct.rows);
            detail::copy_2d(dP[b], static_cast<std::size_t>(ldp), at(h.A, h.lda, p.panel.row0, p.panel.col0), lda,
                            static_cast<std::size_t>(p.panel.rows), static_cast<std::size_t>(p.panel.cols),
                            cudaMemcpyHostToDevice, st);
            detail::copy_2d(dD[b], static_cast<std::size_t>(ldd), at(h.A, h.lda, p.direct.row0, p.direct.col0), lda,
                            static_cast<std::size_t>(p.direct.rows), static_cast<std::size_t>(p.direct.cols),
                            cudaMemcpyHostToDevice, st);
            const std::size_t ucc = static_cast<std::size_t>(c);
            if (h.beta != T(0)) WB_CUDA(cudaMemcpyAsync(dy[b], h.y + r0, ucc * e, cudaMemcpyHostToDevice, st));
            SymvArgs<T> d{h.uplo, c, h.alpha, dP[b] + (p.diag.row0 - p.panel.row0), ldp, dx + r0, 1, h.beta, dy[b], 1};
            sstep.launch(d, sstep.default_launch(d), st);
            off_diagonal(p, h.alpha, dD[b], ldd, dP[b] + (p.mirrored.row0 - p.panel.row0), ldp, dx, dy[b], gemv_on(st));
            WB_CUDA(cudaMemcpyAsync(h.y + r0, dy[b], ucc * e, cudaMemcpyDeviceToHost, st));
            if (n_low == 0) return;
            // The chunk's columns of the CPU's off-diagonal block, added to y_low after the chunk before.
            const bool first = r0 == 0, last = r0 + c == g;
            if (!first) WB_CUDA(cudaStreamWaitEvent(st, sp.kernel_done[1 - b], 0));
            const T beta_low = first ? T(0) : T(1);
            if (h.uplo == Uplo::Lower)  // A(g:n, r0:r1): rows g - r0 on in the panel A(r0:n, r0:r1)
                gemv_on(st)(GemvArgs<T>{Op::N, n_low, c, h.alpha, dP[b] + (g - r0), ldp, dx + r0, beta_low, dlow});
            else  // A(r0:r1, g:n): columns g - r1 on in the row block A(r0:r1, r1:n)
                gemv_on(st)(GemvArgs<T>{Op::T, c, n_low, h.alpha,
                                        dD[b] + static_cast<std::size_t>(g - r0 - c) * static_cast<std::size_t>(ldd), ldd,
                                        dx + r0, beta_low, dlow});
            WB_CUDA(cudaEventRecord(sp.kernel_done[b], st));
            if (last) WB_CUDA(cudaMemcpyAsync(low, dlow, static_cast<std::size_t>(n_low) * e, cudaMemcpyDeviceToHost, st));
        });
}

}  // namespace

template <class T>
void symv(const SymvArgs<T>& h, int gpu_rows, int chunk_rows) {
    const char* fn = "hybrid::symv";
    const bool work = validate_symv(h, fn);
    detail::check_share(fn, "gpu_rows", gpu_rows, "n", h.n, "chunk_rows", chunk_rows);
    if (!work) return;
    const int g = gpu_rows, n_low = h.n - g;
    // With both sides, the GPU adds the off-diagonal block of the CPU's rows (gpu_share): the CPU's
    // share is the SYMV of its diagonal block alone, and y_low is added once both have stopped.
    thread_local detail::PinnedScratch scratch;  // y_low's copy back is a DMA, not staged
    T* const low = g > 0 && n_low > 0 ? static_cast<T*>(scratch.get(static_cast<std::size_t>(n_low) * sizeof(T))) : nullptr;
    auto cpu_share = [&] {  // rows [g, n)
        cpu::symv(SymvArgs<T>{h.uplo, n_low, h.alpha, at(h.A, h.lda, g, g), h.lda, h.x + g, 1, h.beta, h.y + g, 1});
    };
    detail::run(fn, n_low > 0, g > 0, cpu_share,
                [&](const detail::GpuCall& call) { gpu_share(h, g, chunk_rows, low, call); });
    if (low)
        for (int i = 0; i < n_low; ++i) h.y[g + i] += low[i];
}

template void symv<float>(const SymvArgs<float>&, int, int);
template void symv<double>(const SymvArgs<double>&, int, int);

}  // namespace wb::hybrid
