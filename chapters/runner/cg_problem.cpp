/// \file cg_problem.cpp
/// \brief CG problems: inputs, checked solve and timed solves (see cg_problem.hpp).
#include "cg_problem.hpp"

#include "check.hpp"
#include "model/cg.hpp"
#include "random.hpp"
#include "report.hpp"
#include "stages.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace wb {

template <class T>
const ref::CgReference& CgProblem<T>::reference() const {
    if (!have_ref_) {
        ref_ = ref::cg<double, T>(n, hA.data(), lda, hb, hx0, tol, max_iter);
        have_ref_ = true;
    }
    return ref_;
}

template <class T>
CgProblem<T> make_cg_problem(int n, int lda, double kappa, double tol, int max_iter, std::uint64_t seed,
                             bool random_x0, bool upper_nan, bool negative, bool zero_b) {
    if (n < 0) throw std::invalid_argument("make_cg_problem: n (" + std::to_string(n) + ") must be >= 0");
    if (lda < std::max(1, n))
        throw std::invalid_argument("make_cg_problem: lda (" + std::to_string(lda) + ") must be >= max(1, n) (" +
                                    std::to_string(std::max(1, n)) + ")");
    CgProblem<T> p;
    p.n = n;
    p.lda = lda;
    p.kappa = kappa;
    p.tol = tol;
    p.max_iter = max_iter;
    p.seed = seed;
    p.upper_nan = upper_nan;
    p.negative = negative;
    const T nan = std::numeric_limits<T>::quiet_NaN();
    const std::size_t un = static_cast<std::size_t>(n);
    p.hA.assign(static_cast<std::size_t>(lda) * un, nan);
    ref::spd_matrix<T>(n, kappa, seed, p.hA.data(), lda, 3, negative);
    if (upper_nan)
        for (std::size_t j = 1; j < un; ++j)
            for (std::size_t i = 0; i < j; ++i) p.hA[i + j * static_cast<std::size_t>(lda)] = nan;
    p.hx_true = random_vector<T>(un, seed + 1);
    std::vector<double> b(un, 0.0);
    for (std::size_t j = 0; j < un; ++j)
        for (std::size_t i = 0; i < un; ++i) {
            // A(i, j) from the stored lower triangle when the upper one is NaN.
            const std::size_t ii = upper_nan && i < j ? j : i, jj = upper_nan && i < j ? i : j;
            b[i] += static_cast<double>(p.hA[ii + jj * static_cast<std::size_t>(lda)]) * p.hx_true[j];
        }
    p.hb.resize(un);
    for (std::size_t i = 0; i < un; ++i) p.hb[i] = zero_b ? T(0) : static_cast<T>(b[i]);
    p.hx0 = random_x0 ? random_vector<T>(un, seed + 2) : std::vector<T>(un, T(0));
    if (random_x0)
        for (auto& v : p.hx0) v *= T(0.5);
    p.A = DeviceBuffer<T>(p.hA);
    p.b = DeviceBuffer<T>(p.hb);
    p.x = DeviceBuffer<T>(p.hx0);
    p.x0 = DeviceBuffer<T>(p.hx0);
    return p;
}

template <class T>
double cg_residual_bound(double tol, double kappa) {
    return 1.1 * tol + 30.0 * std::numeric_limits<T>::epsilon() * kappa;
}

namespace {

/// The stored matrix with the upper triangle mirrored from the lower one (when it holds NaN).
template <class T>
double residual_of(const CgProblem<T>& p, const std::vector<T>& x) {
    if (!p.upper_nan) return ref::true_residual<T>(p.n, p.hA.data(), p.lda, p.hb.data(), x.data());
    std::vector<T> full(p.hA);
    const std::size_t un = static_cast<std::size_t>(p.n), ld = static_cast<std::size_t>(p.lda);
    for (std::size_t j = 1; j < un; ++j)
        for (std::size_t i = 0; i < j; ++i) full[i + j * ld] = full[j + i * ld];
    return ref::true_residual<T>(p.n, full.data(), p.lda, p.hb.data(), x.data());
}

template <class T>
void restore_x(CgProblem<T>& p, cudaStream_t s) {
    if (p.n > 0)
        WB_CUDA(cudaMemcpyAsync(p.x.data(), p.x0.data(), static_cast<std::size_t>(p.n) * sizeof(T),
                                cudaMemcpyDeviceToDevice, s));
}

}  // namespace

template <class T>
CgCheck check_cg(const CgStep<T>& step, const CgLaunch& launch, CgProblem<T>& p) {
    p.x.upload(p.hx0);
    p.result = CgResult{-1, NAN, CgStatus::MaxIter};
    step.launch(p.args(), launch, nullptr);
    WB_CUDA(cudaDeviceSynchronize());
    const std::vector<T> x = p.x.download();
    CgCheck c;
    c.result = p.result;
    c.tolerance = cg_residual_bound<T>(p.tol, p.kappa);
    for (std::size_t i = 0; i < x.size() && c.first_bad.empty(); ++i)
        if (!std::isfinite(static_cast<double>(x[i]))) c.first_bad = "x[" + std::to_string(i) + "] is not finite";
    const std::string st = cg_status_name(p.result.status);
    if (p.negative) {
        c.rel_error = 0;
        if (p.result.status != CgStatus::Breakdown && p.n > 0)
            c.first_bad = "status " + st + " on a negative definite matrix (expected breakdown)";
        return c;
    }
    c.rel_error = p.n > 0 ? residual_of(p, x) : 0.0;
    if (!std::isfinite(c.rel_error)) c.rel_error = INFINITY;
    if (c.first_bad.empty() && p.result.status != CgStatus::Converged)
        c.first_bad = "status " + st + " after " + std::to_string(p.result.iterations) + " iterations (residual " +
                      std::to_string(p.result.residual) + ")";
    // A direct solver (cuSOLVER) has no recursive residual: it reports NaN after 0 iterations.
    const bool direct = std::isnan(p.result.residual) && p.result.iterations == 0;
    // (1 + 1e-6): the threshold (tol^2 b.b) is rounded to T on the device.
    if (c.first_bad.empty() && !direct && !(p.result.residual <= p.tol * (1 + 1e-6)))
        c.first_bad = "reported residual " + std::to_string(p.result.residual) + " above tol with status converged";
    if (c.first_bad.empty() && p.result.iterations < 0) c.first_bad = "result not written";
    return c;
}

template <class T>
BenchStats time_cg_solve(const CgStep<T>& step, const CgLaunch& launch, CgProblem<T>& p, BenchOptions opt) {
    opt.working_set_bytes = static_cast<std::size_t>(static_cast<double>(p.n) * p.n * sizeof(T));
    CgArgs<T> a = p.args();
    BenchStats s = benchmark(
        [&](cudaStream_t stream) {
            restore_x(p, stream);
            step.launch(a, launch, stream);
        },
        opt);
    p.x.upload(p.hx0);
    return s;
}

template <class T>
BenchStats time_cg(const CgStep<T>& step, const CgLaunch& launch, CgProblem<T>& p, BenchOptions opt,
                   const std::string& peer_label) {
    constexpr int kK1 = 16, kK2 = 48;
    const std::string label = step_label(step.chapter, peer_label);
    p.rate_bytes = model::cg_iteration_bytes(cg_model_step(step), p.n, sizeof(T));
    opt.working_set_bytes = static_cast<std::size_t>(p.rate_bytes);
    auto fixed = [&](int iters, int& done) {
        CgArgs<T> a = p.args();
        a.tol = 0;
        a.max_iter = iters;
        const BenchStats s = benchmark(
            [&](cudaStream_t stream) {
                restore_x(p, stream);
                step.launch(a, launch, stream);
            },
            opt);
        done = p.result.iterations;
        return s;
    };
    int it1 = 0, it2 = 0;
    const BenchStats s1 = fixed(kK1, it1);
    BenchStats s2 = fixed(kK2, it2);
    BenchStats out = s2;
    if (it2 > it1) {
        const double d = static_cast<double>(it2 - it1);
        out.median_ms = (s2.median_ms - s1.median_ms) / d;
        out.min_ms = (s2.min_ms - s1.min_ms) / d;
        out.max_ms = (s2.max_ms - s1.max_ms) / d;
        out.mean_ms = (s2.mean_ms - s1.mean_ms) / d;
    } else {  // converged at once (n tiny): the whole call per iteration
        const double d = std::max(1, it2);
        out.median_ms /= d;
        out.min_ms /= d;
        out.max_ms /= d;
        out.mean_ms /= d;
    }
    // Time to solution: the problem's tol and max_iter, fewer repetitions (a solve is long).
    BenchOptions so = opt;
    so.min_reps = std::min(so.min_reps, 2);
    so.max_reps = std::min(so.max_reps, 5);
    so.max_seconds = std::min(so.max_seconds, 0.5);
    so.warmup = 0;  // the fixed-iteration timings just ran the same step
    const BenchStats sol = time_cg_solve(step, launch, p, so);
    const CgResult r = p.result;
    p.solve_ms[label] = sol.median_ms;
    p.notes[label] = std::to_string(r.iterations) + " it, " +
                     (r.status == CgStatus::Converged ? std::string() : std::string(cg_status_name(r.status)) + ", ") +
                     fmt(sol.median_ms, 3) + " ms to solution";
    p.x.upload(p.hx0);
    return out;
}

#define WB_CG_PROBLEM(T)                                                                                          \
    template struct CgProblem<T>;                                                                                 \
    template CgProblem<T> make_cg_problem<T>(int, int, double, double, int, std::uint64_t, bool, bool, bool, bool); \
    template double cg_residual_bound<T>(double, double);                                                         \
    template CgCheck check_cg<T>(const CgStep<T>&, const CgLaunch&, CgProblem<T>&);                               \
    template BenchStats time_cg<T>(const CgStep<T>&, const CgLaunch&, CgProblem<T>&, BenchOptions, const std::string&); \
    template BenchStats time_cg_solve<T>(const CgStep<T>&, const CgLaunch&, CgProblem<T>&, BenchOptions);
WB_CG_PROBLEM(float)
WB_CG_PROBLEM(double)
#undef WB_CG_PROBLEM

MemoryNeed cg_memory_need(std::size_t elem, int n, int lda) {
    const double s = static_cast<double>(elem), dn = std::max(0, n);
    const double a = s * static_cast<double>(std::max(1, lda)) * dn;
    MemoryNeed need;
    need.device_bytes = a + s * dn * (dn / 64 + 2) + s * 16 * (dn + 64);
    need.host_bytes = a + 16 * 8.0 * dn;
    return need;
}

}  // namespace wb
