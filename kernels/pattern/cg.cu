/// \file pattern/cg.cu
/// \brief Chapter 3 — CG with fused vector kernels and the scalars kept on the device.
///
/// What changes against chapter 2 (the computation pattern: which results each kernel computes):
/// - The x and r updates and the new r.r are one pass (update_xr): r is read and written once
///   instead of being written by an AXPY and read again by a dot product. The p update is one
///   kernel. The dot p.(A p) is one kernel whose last block to finish adds the partials in a
///   fixed order and computes alpha on the device (no second launch, no host).
/// - alpha, beta, r.r and the status live on the device (cg_common.cuh, State); the host looks at
///   the status only every `check_every` iterations (default 8): one round trip per 8 iterations
///   instead of 2 per iteration. Kernels queued after convergence return at once.
/// - The Mv is chapter 3's GEMV (pattern::gemv, Q threads per row). Fusing p.(A p) into the Mv
///   would save reading p and q once more (2n elements, 2/n of A's bytes): it does not pay
///   through the chapter's own Mv launcher, so the dot stays a kernel of its own.
/// Model (common/model/cg): the whole of A + 13n elements of vector traffic, the GEMV's launches
/// + 3 per iteration, 1/check_every round trips per iteration.
/// Follows: White §5.2, with the vector operations fused (the pattern of chapter 3).
/// Run: ./workbook run ch03 -- --op cg       (CgLaunch: block = 256, check_every = 8)
#include "cg_common.cuh"
#include "gemv.hpp"

namespace wb::pattern {

//! [pattern-cg]
template <class T>
void cg(const CgArgs<T>& a, const CgLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "pattern::cg";
    const int block = cg_detail::vector_block(l, 256, fn);
    const int check = l.check_every > 0 ? l.check_every : 8;
    cg_detail::require_launch(check >= 1 && check <= 64, fn, "check_every", check, "in [1, 64]");
    if (!cg_detail::begin(a, fn)) return;
    const int n = a.n;
    cg_detail::Work<T> w = cg_detail::make_work<T>(n, 3, 1);
    T *r = w.v[0], *p = w.v[1], *q = w.v[2];
    GemvArgs<T> g = cg_detail::mv_gemv(a, T(-1), a.x, T(1), r);
    const GemvLaunch gl = step<GemvArgs<T>>(3).default_launch(g);
    WB_CUDA(cudaMemcpyAsync(r, a.b, static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyDeviceToDevice, s));
    pattern::gemv(g, gl, s);  // r = b - A x0
    g.alpha = T(1);
    g.beta = T(0);
    auto mv = [&](const T* in, T* out) {
        g.x = in;
        g.y = out;
        pattern::gemv(g, gl, s);
    };
    cg_detail::device_loop<T>(a, w, a.x, r, p, q, nullptr, 0, mv, block, false, check, s);
}
//! [pattern-cg]

template void cg<float>(const CgArgs<float>&, const CgLaunch&, cudaStream_t);
template void cg<double>(const CgArgs<double>&, const CgLaunch&, cudaStream_t);

}  // namespace wb::pattern
