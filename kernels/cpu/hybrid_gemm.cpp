// hybrid_gemm.cpp — the hybrid GEMM (hybrid_gemm.hpp): op(A) to the GPU once, its columns of op(B)
// and C chunk by chunk on two streams, the CPU's columns at the same time (with pieces > 1, claimed
// from both ends while the call runs: hybrid_balance.hpp).
#include "hybrid_gemm.hpp"

#include "cpu_peers.hpp"
#include "hybrid_balance.hpp"
#include "hybrid_common.hpp"
#include "launch_checks.hpp"

#include <algorithm>
#include <cstddef>

namespace wb::hybrid {

namespace {

/// Columns [c0, c0 + c) of op(B) as stored: op_b N a block of columns of B, op_b T a block of rows.
template <class T>
const T* b_columns(const GemmArgs<T>& h, int c0) {
    return h.op_b == Op::N ? h.B + static_cast<std::size_t>(c0) * static_cast<std::size_t>(h.ldb) : h.B + c0;
}

/// The GPU side's buffers for chunks of up to `cap` columns of C (taken from sp), and its steps:
/// op(A) as stored to the device once, then each chunk's columns of op(B) in, its kernel, its
/// columns of C out, on one stream.
template <class T>
struct GpuColumns {
    const GemmArgs<T>& h;
    detail::ShareState& sp;
    T* dA = nullptr;
    T* dB[2] = {nullptr, nullptr};
    T* dC[2] = {nullptr, nullptr};

    GpuColumns(const GemmArgs<T>& h_, detail::ShareState& sp_, int cap) : h(h_), sp(sp_) {
        const std::size_t e = sizeof(T), ra = static_cast<std::size_t>(h.rows_a()), uc = static_cast<std::size_t>(cap);
        const std::size_t k = static_cast<std::size_t>(h.k), m = static_cast<std::size_t>(h.m);
        dA = static_cast<T*>(sp.whole.get(std::max<std::size_t>(1, ra * cols_a()) * e));
        for (int b = 0; b < 2; ++b) {
            dB[b] = static_cast<T*>(sp.in[b].get(std::max<std::size_t>(1, k * uc) * e));
            dC[b] = static_cast<T*>(sp.out[b].get(m * uc * e));
        }
    }
    std::size_t cols_a() const { return static_cast<std::size_t>(h.op_a == Op::N ? h.k : h.m); }  // as stored
    /// op(A) as stored, rows_a x cols_a, packed (ld = rows_a), on stream 0; stream 1 waits for it.
    void prologue() {
        const std::size_t ra = static_cast<std::size_t>(h.rows_a());
        detail::copy_2d(dA, ra, h.A, static_cast<std::size_t>(h.lda), ra, cols_a(), cudaMemcpyHostToDevice, sp.s[0]);
        detail::whole_done(sp);
    }
    /// Columns [c0, c0 + c) of C on stream b.
    void issue(int c0, int c, int b) {
        cudaStream_t st = sp.s[b];
        const std::size_t ucc = static_cast<std::size_t>(c), k = static_cast<std::size_t>(h.k), m = static_cast<std::size_t>(h.m);
        GemmArgs<T> d = h;
        d.n = c;
        d.A = dA;
        d.lda = std::max(1, h.rows_a());
        if (h.op_b == Op::N) {  // k x c, ld k
            detail::copy_2d(dB[b], k, b_columns(h, c0), static_cast<std::size_t>(h.ldb), k, ucc, cudaMemcpyHostToDevice, st);
            d.ldb = std::max(1, h.k);
        } else {  // c x k (rows c0 .. c0+c of B), ld c
            detail::copy_2d(dB[b], ucc, b_columns(h, c0), static_cast<std::size_t>(h.ldb), ucc, k, cudaMemcpyHostToDevice, st);
            d.ldb = c;
        }
        d.B = dB[b];
        T* const hc = h.C + static_cast<std::size_t>(c0) * static_cast<std::size_t>(h.ldc);
        if (h.beta != T(0))
            detail::copy_2d(dC[b], m, hc, static_cast<std::size_t>(h.ldc), m, ucc, cudaMemcpyHostToDevice, st);
        d.C = dC[b];
        d.ldc = std::max(1, h.m);
        const auto& step = wb::step<GemmArgs<T>>(5);
        step.launch(d, step.default_launch(d), st);
        detail::copy_2d(hc, static_cast<std::size_t>(h.ldc), dC[b], m, m, ucc, cudaMemcpyDeviceToHost, st);
    }
};

/// The CPU's columns [c0, c1) of C.
template <class T>
void cpu_columns(const GemmArgs<T>& h, int c0, int c1) {
    GemmArgs<T> c = h;
    c.n = c1 - c0;
    c.B = b_columns(h, c0);
    c.C = h.C + static_cast<std::size_t>(c0) * static_cast<std::size_t>(h.ldc);
    cpu::gemm(c);
}

}  // namespace

template <class T>
void gemm(const GemmArgs<T>& h, int gpu_cols, int chunk_cols, int pieces) {
    const char* fn = "hybrid::gemm";
    const bool work = validate_gemm(h, fn);
    detail::check_share(fn, "gpu_cols", gpu_cols, "n", h.n, "chunk_cols", chunk_cols);
    if (pieces < 1) launch_checks::fail(fn, "pieces (" + launch_checks::num(pieces) + ") must be >= 1");
    if (!work) return;
    if (h.alpha == T(0) || h.k == 0) return detail::scale_on_host(fn, h.C, h.m, h.n, static_cast<std::size_t>(h.ldc), h.beta);
    // Who issues (detail::run's rule): A (copied whole, a matrix), B and C decide.
    detail::run_balanced_share<GpuColumns<T>>(fn, h, h.n, gpu_cols, chunk_cols, pieces, {h.A, h.B, h.C},
                                              [&](int c0, int c1) { cpu_columns(h, c0, c1); });
}

template void gemm<float>(const GemmArgs<float>&, int, int, int);
template void gemm<double>(const GemmArgs<double>&, int, int, int);

}  // namespace wb::hybrid
