// hybrid_gemm.cpp — the hybrid GEMM (hybrid_gemm.hpp): op(A) to the GPU once, its columns of op(B)
// and C chunk by chunk on two streams, the CPU's columns at the same time.
#include "hybrid_gemm.hpp"

#include "cpu_peers.hpp"
#include "hybrid_common.hpp"

#include <algorithm>
#include <cstddef>

namespace wb::hybrid {

namespace {

/// Columns [c0, c0 + c) of op(B) as stored: op_b N a block of columns of B, op_b T a block of rows.
template <class T>
const T* b_columns(const GemmArgs<T>& h, int c0) {
    return h.op_b == Op::N ? h.B + static_cast<std::size_t>(c0) * static_cast<std::size_t>(h.ldb) : h.B + c0;
}

/// The GPU's share: columns [0, g) of C in chunks of `chunk`.
template <class T>
void gpu_share(const GemmArgs<T>& h, int g, int chunk, const detail::GpuCall& call) {
    chunk = std::min(chunk, g);
    const std::size_t e = sizeof(T), ra = static_cast<std::size_t>(h.rows_a());
    const std::size_t ca = static_cast<std::size_t>(h.op_a == Op::N ? h.k : h.m);  // columns of A as stored
    const std::size_t k = static_cast<std::size_t>(h.k), m = static_cast<std::size_t>(h.m);
    const std::size_t uc = static_cast<std::size_t>(chunk);
    detail::ShareState& sp = *call.sp;
    T* const dA = static_cast<T*>(sp.whole.get(std::max<std::size_t>(1, ra * ca) * e));
    T* const dB[2] = {static_cast<T*>(sp.in[0].get(std::max<std::size_t>(1, k * uc) * e)),
                      static_cast<T*>(sp.in[1].get(std::max<std::size_t>(1, k * uc) * e))};
    T* const dC[2] = {static_cast<T*>(sp.out[0].get(m * uc * e)), static_cast<T*>(sp.out[1].get(m * uc * e))};
    const auto& step = wb::step<GemmArgs<T>>(5);
    detail::run_gpu_chunks(
        call, "hybrid::gemm", g, chunk,
        [&] {  // op(A) as stored, rows_a x cols_a, packed (ld = rows_a)
            detail::copy_2d(dA, ra, h.A, static_cast<std::size_t>(h.lda), ra, ca, cudaMemcpyHostToDevice, sp.s[0]);
            detail::whole_done(sp);
        },
        [&](int c0, int c, int b) {
            cudaStream_t st = sp.s[b];
            const std::size_t ucc = static_cast<std::size_t>(c);
            GemmArgs<T> d = h;
            d.n = c;
            d.A = dA;
            d.lda = std::max(1, h.rows_a());
            if (h.op_b == Op::N) {  // k x c, ld k
                detail::copy_2d(dB[b], k, b_columns(h, c0), static_cast<std::size_t>(h.ldb), k, ucc,
                                cudaMemcpyHostToDevice, st);
                d.ldb = std::max(1, h.k);
            } else {  // c x k (rows c0 .. c0+c of B), ld c
                detail::copy_2d(dB[b], ucc, b_columns(h, c0), static_cast<std::size_t>(h.ldb), ucc, k,
                                cudaMemcpyHostToDevice, st);
                d.ldb = c;
            }
            d.B = dB[b];
            T* const hc = h.C + static_cast<std::size_t>(c0) * static_cast<std::size_t>(h.ldc);
            if (h.beta != T(0))
                detail::copy_2d(dC[b], m, hc, static_cast<std::size_t>(h.ldc), m, ucc, cudaMemcpyHostToDevice, st);
            d.C = dC[b];
            d.ldc = std::max(1, h.m);
            step.launch(d, step.default_launch(d), st);
            detail::copy_2d(hc, static_cast<std::size_t>(h.ldc), dC[b], m, m, ucc, cudaMemcpyDeviceToHost, st);
        });
}

}  // namespace

template <class T>
void gemm(const GemmArgs<T>& h, int gpu_cols, int chunk_cols) {
    const char* fn = "hybrid::gemm";
    const bool work = validate_gemm(h, fn);
    detail::check_share(fn, "gpu_cols", gpu_cols, "n", h.n, "chunk_cols", chunk_cols);
    if (!work) return;
    if (h.alpha == T(0) || h.k == 0) return detail::scale_on_host(fn, h.C, h.m, h.n, static_cast<std::size_t>(h.ldc), h.beta);
    GemmArgs<T> c = h;  // the CPU's columns [gpu_cols, n)
    c.n = h.n - gpu_cols;
    c.B = b_columns(h, gpu_cols);
    c.C = h.C + static_cast<std::size_t>(gpu_cols) * static_cast<std::size_t>(h.ldc);
    // Who issues (detail::run's rule): A (copied whole, a matrix), B and C decide.
    detail::run(fn, gpu_cols < h.n, gpu_cols > 0, {h.A, h.B, h.C}, [&] { cpu::gemm(c); },
                [&](const detail::GpuCall& call) { gpu_share(h, gpu_cols, chunk_cols, call); });
}

template void gemm<float>(const GemmArgs<float>&, int, int);
template void gemm<double>(const GemmArgs<double>&, int, int);

}  // namespace wb::hybrid
