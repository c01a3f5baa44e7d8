/// \file exercise_cg_jacobi.hpp
/// \brief Chapter 4's CG exercise: the fused update of one Jacobi-preconditioned CG iteration on
///        aligned, padded vectors (the contract, the rules the launcher checks, the float64
///        reference of the same step).
///
/// Preconditioned CG with M = D = diag(A) solves A x = b; in each iteration, after the caller has
/// computed q = A p and alpha = (r.z) / (p.q), this step does, for every k < len:
///   - `x[k] += alpha * p[k]`
///   - `r[k] -= alpha * q[k]`
///   - `z[k]  = dinv[k] * r[k]` (with the new r; dinv[k] = 1 / A(k, k): z = D^-1 r)
/// and writes `*rz = sum_k r[k] * z[k]` (the new r and z: the next iteration's beta = rz / rz_old
/// is the caller's), all in float. The vectors are the padded, aligned ones chapter 4's CG keeps
/// in its workspace:
///   - x, r, p, q, dinv and z have `len` entries each, `len` a multiple of 4 and `>= n`, and each
///     starts at a 16-byte aligned address: they can be read and written as float4, with no edge
///     test inside the vectors;
///   - entries [n, len) of x, r, p, q and dinv are zero on entry, so the padding adds nothing to rz
///     and x, r and z are zero there on exit;
///   - nothing outside [0, len) of x, r and z is written; `*rz` (one float, device) is set, not
///     added to (its old value is never read).
/// When len is 0, *rz = 0 and nothing else is touched.
///
/// Each file defines, in `namespace wb::ex::WB_EX_NS`:
/// \code
///   void cg_jacobi(const CgJacobiArgs& args, cudaStream_t stream);
/// \endcode
/// kernels/ has the unpreconditioned update (x, r and r.r); here the preconditioner joins the same
/// pass, so r is read once and z never read back: 5 vectors read, 3 written, one reduction.
#pragma once

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef WB_EX_NS
/// The namespace a compiled exercise file lands in (exercise_transpose.hpp says why).
#define WB_EX_NS submission
#endif

namespace wb::ex {

/// Arguments of the fused preconditioned update (see the file comment).
struct CgJacobiArgs {
    int n = 0;                    ///< the system's size; >= 0
    int len = 0;                  ///< the vectors' padded length: a multiple of 4, >= n
    float alpha = 0;              ///< this iteration's step, (r.z) / (p.q); finite
    float* x = nullptr;           ///< device, len entries, 16-byte aligned: updated
    float* r = nullptr;           ///< device, len entries, 16-byte aligned: updated
    const float* p = nullptr;     ///< device, len entries, 16-byte aligned
    const float* q = nullptr;     ///< device, len entries, 16-byte aligned: A p
    const float* dinv = nullptr;  ///< device, len entries, 16-byte aligned: 1 / A(k, k)
    float* z = nullptr;           ///< device, len entries, 16-byte aligned: written
    float* rz = nullptr;          ///< device, one float: written (r.z of the new r and z)
};

/// The launcher every cg_jacobi.cu defines.
using CgJacobiFn = void (*)(const CgJacobiArgs&, cudaStream_t);

/// Checks `a` before anything touches the GPU; throws std::invalid_argument naming the
/// function, the argument, its value and the rule, e.g.
/// "ch04 cg_jacobi: len (6) must be a multiple of 4".
inline void check_cg_jacobi_args(const char* fn, const CgJacobiArgs& a) {
    auto fail = [fn](const std::string& what) { throw std::invalid_argument(std::string(fn) + ": " + what); };
    if (a.n < 0) fail("n (" + std::to_string(a.n) + ") must be >= 0");
    if (a.len < a.n) fail("len (" + std::to_string(a.len) + ") must be >= n (" + std::to_string(a.n) + ")");
    if (a.len % 4 != 0) fail("len (" + std::to_string(a.len) + ") must be a multiple of 4");
    if (!std::isfinite(a.alpha)) fail("alpha must be finite");
    if (a.rz == nullptr) fail("rz (null) must point to device memory");
    if (a.len == 0) return;
    const struct { const char* name; const void* ptr; } vectors[] = {
        {"x", a.x}, {"r", a.r}, {"p", a.p}, {"q", a.q}, {"dinv", a.dinv}, {"z", a.z}};
    for (const auto& v : vectors) {
        if (v.ptr == nullptr)
            fail(std::string(v.name) + " (null) must point to device memory when len (" + std::to_string(a.len) + ") > 0");
        if (reinterpret_cast<std::uintptr_t>(v.ptr) % 16 != 0) {
            std::ostringstream at;
            at << v.ptr;
            fail(std::string(v.name) + " (" + at.str() + ") must be 16-byte aligned");
        }
    }
}

/// The float64 reference of the step on host copies of x, r, p, q and dinv (len entries each, or
/// more): the new x, r and z (len entries each, in that order, one after the other) and, last,
/// r.z, all computed in double from the float inputs.
inline std::vector<double> cg_jacobi_reference(const CgJacobiArgs& a, const std::vector<float>& x,
                                               const std::vector<float>& r, const std::vector<float>& p,
                                               const std::vector<float>& q, const std::vector<float>& dinv) {
    check_cg_jacobi_args("cg_jacobi_reference", a);
    const std::size_t len = static_cast<std::size_t>(a.len);
    const struct { const char* name; const std::vector<float>* v; } inputs[] = {
        {"x", &x}, {"r", &r}, {"p", &p}, {"q", &q}, {"dinv", &dinv}};
    for (const auto& in : inputs)
        if (in.v->size() < len)
            throw std::invalid_argument(std::string("cg_jacobi_reference: ") + in.name + " (" +
                                        std::to_string(in.v->size()) + " entries) must hold len (" +
                                        std::to_string(len) + ")");
    std::vector<double> out(3 * len + 1);
    double rz = 0;
    for (std::size_t k = 0; k < len; ++k) {
        const double rk = static_cast<double>(r[k]) - static_cast<double>(a.alpha) * q[k];
        const double zk = dinv[k] * rk;
        out[k] = static_cast<double>(x[k]) + static_cast<double>(a.alpha) * p[k];
        out[len + k] = rk;
        out[2 * len + k] = zk;
        rz += rk * zk;
    }
    out[3 * len] = rz;
    return out;
}

}  // namespace wb::ex
