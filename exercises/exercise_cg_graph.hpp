/// \file exercise_cg_graph.hpp
/// \brief Chapter 5's CG exercise: Jacobi-preconditioned CG for a fixed number of iterations,
///        its iteration captured once as a CUDA graph and replayed (the contract, the rules the
///        launcher checks, the float64 reference).
///
/// Solves A x = b, A `n x n` symmetric positive definite, dense, column-major (element (i, j) at
/// `A[i + j * lda]`, both triangles stored, `lda >= max(1, n)`), with the preconditioner
/// M = diag(A) (`dinv[k] = 1 / A(k, k)`, chapter 4's CG update). From x0 (x on entry):
///   r = b - A x,  z = dinv r,  p = z,  rz = r.z;  then `iters` times:
///     q = A p;  alpha = rz / (p.q)  (0 when p.q == 0);
///     x += alpha p;  r -= alpha q;  z = dinv r;  rz_new = r.z;
///     beta = rz_new / rz  (0 when rz == 0);  p = z + beta p;  rz = rz_new.
/// There is no convergence test: exactly `iters` iterations (0: x is left as it was), all in
/// float. So that the iteration can be replayed without the host, alpha and beta must be computed
/// on the device, from scalars kept in device memory.
///   - `work` is the launcher's workspace of cg_graph_workspace_size(n) floats (r, z, p, q and a
///     few scalars, laid out as you like), anything on entry; nothing outside it and outside x
///     [0, n) is written; A, b and dinv are only read.
///   - The step: the kernels of one iteration are captured once (stream capture, on a stream the
///     launcher creates: the legacy default stream cannot be captured) into a graph that is
///     instantiated once and launched `iters` times on the caller's stream; the grade times it
///     against the reference solution on a system small enough for the launches to matter.
///
/// Each file defines, in `namespace wb::ex::WB_EX_NS`:
/// \code
///   void cg_graph(const CgGraphArgs& args, cudaStream_t stream);
/// \endcode
/// kernels/ captures unpreconditioned CG (chapter 5's CG page); here the preconditioner adds z and
/// r.z to the iteration, and the scalars live on the device only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef WB_EX_NS
/// The namespace a compiled exercise file lands in (exercise_transpose.hpp says why).
#define WB_EX_NS submission
#endif

namespace wb::ex {

/// Arguments of one preconditioned solve (see the file comment).
struct CgGraphArgs {
    int n = 0;                    ///< >= 0
    int lda = 1;                  ///< >= max(1, n)
    int iters = 0;                ///< >= 0: the iterations to run
    const float* A = nullptr;     ///< device, n x n SPD, column-major, both triangles
    const float* b = nullptr;     ///< device, n
    const float* dinv = nullptr;  ///< device, n: 1 / A(k, k)
    float* x = nullptr;           ///< device, n: x0 on entry, the iterate on exit
    float* work = nullptr;        ///< device, cg_graph_workspace_size(n) floats
};

/// The launcher every cg_graph.cu defines.
using CgGraphFn = void (*)(const CgGraphArgs&, cudaStream_t);

/// The floats of the workspace: r, z, p and q (n each) and 8 scalars.
inline long long cg_graph_workspace_size(long long n) { return 4 * n + 8; }

/// Checks `a` before anything touches the GPU; throws std::invalid_argument naming the
/// function, the argument, its value and the rule, e.g. "ch05 cg_graph: iters (-1) must be >= 0".
inline void check_cg_graph_args(const char* fn, const CgGraphArgs& a) {
    auto fail = [fn](const std::string& what) { throw std::invalid_argument(std::string(fn) + ": " + what); };
    if (a.n < 0) fail("n (" + std::to_string(a.n) + ") must be >= 0");
    const int min_lda = a.n > 1 ? a.n : 1;
    if (a.lda < min_lda) fail("lda (" + std::to_string(a.lda) + ") must be >= max(1, n) (" + std::to_string(min_lda) + ")");
    if (a.iters < 0) fail("iters (" + std::to_string(a.iters) + ") must be >= 0");
    if (a.n == 0) return;
    const struct { const char* name; const void* ptr; } ptrs[] = {
        {"A", a.A}, {"b", a.b}, {"dinv", a.dinv}, {"x", a.x}, {"work", a.work}};
    for (const auto& p : ptrs)
        if (p.ptr == nullptr)
            fail(std::string(p.name) + " (null) must point to device memory when n (" + std::to_string(a.n) + ") > 0");
}

/// The float64 reference on host copies of A (laid out as on the device), b, dinv and x0: the
/// iterate x after `iters` iterations of the recurrence above, in double.
inline std::vector<double> cg_graph_reference(const CgGraphArgs& a, const std::vector<float>& A, const std::vector<float>& b,
                                              const std::vector<float>& dinv, const std::vector<float>& x0) {
    check_cg_graph_args("cg_graph_reference", a);
    const std::size_t n = static_cast<std::size_t>(a.n), lda = static_cast<std::size_t>(a.lda);
    const struct { const char* name; std::size_t size, need; } in[] = {
        {"A", A.size(), n == 0 ? 0 : (n - 1) * lda + n}, {"b", b.size(), n}, {"dinv", dinv.size(), n}, {"x0", x0.size(), n}};
    for (const auto& v : in)
        if (v.size < v.need)
            throw std::invalid_argument(std::string("cg_graph_reference: ") + v.name + " (" + std::to_string(v.size) +
                                        " entries) must hold " + std::to_string(v.need));
    std::vector<double> x(x0.begin(), x0.begin() + static_cast<std::ptrdiff_t>(n)), r(n), z(n), p(n), q(n);
    auto matvec = [&](const std::vector<double>& v, std::vector<double>& out) {
        for (std::size_t i = 0; i < n; ++i) {
            double s = 0;
            for (std::size_t j = 0; j < n; ++j) s += static_cast<double>(A[i + j * lda]) * v[j];
            out[i] = s;
        }
    };
    matvec(x, q);
    double rz = 0;
    for (std::size_t i = 0; i < n; ++i) {
        r[i] = static_cast<double>(b[i]) - q[i];
        z[i] = static_cast<double>(dinv[i]) * r[i];
        p[i] = z[i];
        rz += r[i] * z[i];
    }
    for (int it = 0; it < a.iters; ++it) {
        matvec(p, q);
        double pq = 0, rz_new = 0;
        for (std::size_t i = 0; i < n; ++i) pq += p[i] * q[i];
        const double alpha = pq != 0 ? rz / pq : 0.0;
        for (std::size_t i = 0; i < n; ++i) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
            z[i] = static_cast<double>(dinv[i]) * r[i];
            rz_new += r[i] * z[i];
        }
        const double beta = rz != 0 ? rz_new / rz : 0.0;
        for (std::size_t i = 0; i < n; ++i) p[i] = z[i] + beta * p[i];
        rz = rz_new;
    }
    return x;
}

}  // namespace wb::ex
