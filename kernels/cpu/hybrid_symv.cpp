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

/// The GPU's share: rows [0, g) in chunks of `chunk`.
template <class T>
void gpu_share(const SymvArgs<T>& h, int g, int chunk, const detail::GpuCall& call) {
    chunk = std::min(chunk, g);
    const std::size_t e = sizeof(T), n = static_cast<std::size_t>(h.n), uc = static_cast<std::size_t>(chunk);
    const std::size_t lda = static_cast<std::size_t>(h.lda);
    detail::ShareState& sp = detail::share_state();
    T* const dx = static_cast<T*>(sp.whole.get(n * e));
    T* dP[2], *dD[2], *dy[2];  // the panel, the direct block, the chunk's y
    for (int b = 0; b < 2; ++b) {
        dP[b] = static_cast<T*>(sp.in[b].get(n * uc * e));
        dD[b] = static_cast<T*>(sp.in2[b].get(n * uc * e));
        dy[b] = static_cast<T*>(sp.out[b].get(uc * e));
    }
    const auto& sstep = wb::step<SymvArgs<T>>(5);
    const auto& gstep = wb::step<GemvArgs<T>>(5);
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
            off_diagonal(p, h.alpha, dD[b], ldd, dP[b] + (p.mirrored.row0 - p.panel.row0), ldp, dx, dy[b],
                         [&](const GemvArgs<T>& a) { gstep.launch(a, gstep.default_launch(a), st); });
            WB_CUDA(cudaMemcpyAsync(h.y + r0, dy[b], ucc * e, cudaMemcpyDeviceToHost, st));
        });
}

}  // namespace

template <class T>
void symv(const SymvArgs<T>& h, int gpu_rows, int chunk_rows) {
    const char* fn = "hybrid::symv";
    const bool work = validate_symv(h, fn);
    detail::check_share(fn, "gpu_rows", gpu_rows, "n", h.n, "chunk_rows", chunk_rows);
    if (!work) return;
    auto cpu_share = [&] {  // rows [g, n): the diagonal block's SYMV with the call's beta, then the rest
        const int g = gpu_rows;
        const SymvRowsPlan p = symv_rows_plan(h.uplo, h.n, g, h.n);
        cpu::symv(SymvArgs<T>{h.uplo, h.n - g, h.alpha, at(h.A, h.lda, g, g), h.lda, h.x + g, 1, h.beta, h.y + g, 1});
        off_diagonal(p, h.alpha, at(h.A, h.lda, p.direct.row0, p.direct.col0), h.lda,
                     at(h.A, h.lda, p.mirrored.row0, p.mirrored.col0), h.lda, h.x, h.y + g,
                     [](const GemvArgs<T>& a) { cpu::gemv(a); });
    };
    detail::run(fn, gpu_rows < h.n, gpu_rows > 0, cpu_share,
                [&](const detail::GpuCall& call) { gpu_share(h, gpu_rows, chunk_rows, call); });
}

template void symv<float>(const SymvArgs<float>&, int, int);
template void symv<double>(const SymvArgs<double>&, int, int);

}  // namespace wb::hybrid
