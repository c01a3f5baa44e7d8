/// \file access/cg.cu
/// \brief Chapter 4 — CG whose Mv is SYMV (half of A read), on aligned, padded vectors.
///
/// What changes against chapter 3 (the access pattern):
/// - The Mv becomes the SYMV ladder's access step (access::symv, lower triangle): A is symmetric,
///   so half of it is read (plus SYMV's workspace of partials, n (n/64 + 1) elements written and
///   read). The upper triangle is never read.
/// - The vectors r, p, q and a working copy of x live in the CG workspace, 256-byte aligned and
///   padded with zeros to a multiple of 64 elements: the vector kernels read and write them with
///   16-byte accesses (float4 / double2) and no edge test. x is copied in at the start and out at
///   the end (2n elements per solve, not per iteration).
/// - The rest is chapter 3's loop: fused vector kernels, scalars on the device, a status read
///   every check_every iterations.
/// Model (common/model/cg): half of A + SYMV's workspace + 13n elements, SYMV's 3 launches + 3,
/// 1/check_every round trips per iteration.
/// Follows: Nath et al. SC'11 (SYMV reads half of A), Abdelfattah et al. VECPAR'12 (the Mv).
/// Run: ./workbook run ch04 -- --op cg       (CgLaunch: block = 256, check_every = 8)
#include "cg_common.cuh"
#include "symv.hpp"

namespace wb::access {

//! [access-cg]
template <class T>
void cg(const CgArgs<T>& a, const CgLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "access::cg";
    const int block = cg_detail::vector_block(l, 256, fn);
    const int check = l.check_every > 0 ? l.check_every : 8;
    cg_detail::require_launch(check >= 1 && check <= 64, fn, "check_every", check, "in [1, 64]");
    if (!cg_detail::begin(a, fn)) return;
    const int n = a.n;
    cg_detail::Work<T> w = cg_detail::make_work<T>(n, 4, cg_detail::Vec16<T>::n);
    T *r = w.v[0], *p = w.v[1], *q = w.v[2], *x = w.v[3];
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
    WB_CUDA(cudaMemcpyAsync(x, a.x, bytes, cudaMemcpyDeviceToDevice, s));
    WB_CUDA(cudaMemcpyAsync(r, a.b, bytes, cudaMemcpyDeviceToDevice, s));
    SymvArgs<T> sa = cg_detail::mv_symv(a, T(-1), x, T(1), r);
    const SymvLaunch sl = step<SymvArgs<T>>(4).default_launch(sa);
    access::symv(sa, sl, s);  // r = b - A x0
    sa.alpha = T(1);
    sa.beta = T(0);
    auto mv = [&](const T* in, T* out) {
        sa.x = in;
        sa.y = out;
        access::symv(sa, sl, s);
    };
    T* const pads[4] = {r, p, q, x};
    cg_detail::device_loop<T>(a, w, x, r, p, q, pads, 4, mv, block, true, check, s);
    WB_CUDA(cudaMemcpyAsync(a.x, x, bytes, cudaMemcpyDeviceToDevice, s));
    WB_CUDA(cudaStreamSynchronize(s));
}
//! [access-cg]

template void cg<float>(const CgArgs<float>&, const CgLaunch&, cudaStream_t);
template void cg<double>(const CgArgs<double>&, const CgLaunch&, cudaStream_t);

}  // namespace wb::access
