/// \file cg_problem.hpp
/// \brief One CG problem on the device — an SPD matrix with a chosen condition number
///        (reference_cg.hpp says how it is made and what spectrum it has), a right-hand side
///        b = A x_true with a known, seeded x_true, an initial x — and the two things every consumer
///        does with a step: check it (solve to the tolerance, then the true residual
///        ||b - A x|| / ||b|| in float64 on the CPU) and time it (ms per iteration, and the time to
///        solution). Chapters, gpu tests and perf tests all go through here.
///
/// Timing. ms per iteration is (T(K2) - T(K1)) / (K2 - K1): two solves run for a fixed number of
/// iterations (tol = 0, K1 = 16 and K2 = 48, multiples of every step's chunk) timed by the harness,
/// so the set-up of a solve (r = b - A x0, the first status read) cancels. Each timed call first
/// restores x0 (one device copy of n elements, inside the timed region). The time to solution is
/// one more timing with the problem's tol and max_iter (2 to 5 calls: a solve can take a second).
#pragma once

#include "bench.hpp"
#include "buffer.hpp"
#include "cg.hpp"
#include "model/cg.hpp"
#include "memory_fit.hpp"
#include "reference_cg.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace wb {

/// The CG model's name for a step: its ladder stage, or the cuBLAS-composed peer.
template <class T>
model::CgModelStep cg_model_step(const CgStep<T>& s) {
    if (s.is_peer()) return model::kCgCublasPeer;
    return s.ladder_stage();
}

template <class T>
struct CgProblem {
    int n = 0, lda = 1;
    double kappa = 1;
    double tol = 1e-6;
    int max_iter = 1000;
    std::uint64_t seed = 0;
    bool upper_nan = false;       ///< the strict upper triangle holds NaN (for the SYMV steps only)
    bool negative = false;        ///< -A: negative definite, CG must report a breakdown
    std::vector<T> hA, hb, hx0;   ///< host copies (hA: lda x n, padding rows NaN)
    std::vector<T> hx_true;       ///< b = A x_true (rounded to T)
    DeviceBuffer<T> A, b, x, x0;  ///< x: the step's in/out; x0: the initial x kept on the device
    CgResult result;              ///< of the last call
    double rate_bytes = 0;        ///< bytes per iteration of the step timed last (model::cg_iteration_bytes)
    /// Per step label ("ch05 tuned"): "N it, T ms to solution", filled by time_cg.
    std::map<std::string, std::string> notes;
    std::map<std::string, double> solve_ms;  ///< per step label: the time to solution

    CgArgs<T> args() {
        CgArgs<T> a;
        a.n = n;
        a.A = A.data();
        a.lda = lda;
        a.b = b.data();
        a.x = x.data();
        a.tol = tol;
        a.max_iter = max_iter;
        a.result = &result;
        return a;
    }
    /// The float64 CG on the stored matrix (both triangles; computed on first use, then kept).
    /// O(iterations n^2): the tests call it, the chapters do not.
    const ref::CgReference& reference() const;

private:
    mutable ref::CgReference ref_;
    mutable bool have_ref_ = false;
};

/// Allocates and fills a problem: A from ref::spd_matrix(n, kappa, seed) in an lda x n array
/// (padding rows NaN; the strict upper triangle NaN when upper_nan; -A when negative),
/// x_true seeded random (seed + 1), b = A x_true in float64 rounded to T (b = 0 when zero_b),
/// x0 = 0 or seeded random (seed + 2) when random_x0. Throws std::invalid_argument on n < 0,
/// lda < max(1, n), kappa < 1.
template <class T>
CgProblem<T> make_cg_problem(int n, int lda, double kappa, double tol, int max_iter, std::uint64_t seed,
                             bool random_x0 = false, bool upper_nan = false, bool negative = false, bool zero_b = false);

/// The outcome of a checked solve.
struct CgCheck {
    double rel_error = 0;   ///< the true residual ||b - A x|| / ||b|| (float64, CPU)
    double tolerance = 0;   ///< cg_residual_bound for the problem
    std::string first_bad;  ///< why it failed (status, NaN in x, residual), empty when it passed
    CgResult result;        ///< what the step reported
    bool ok() const { return first_bad.empty() && rel_error <= tolerance; }
};

/// The bound the true residual of a converged solve must meet: 1.1 tol (the recursive residual
/// met tol) + the gap between recursive and true residual that rounding opens, 30 eps(T) kappa
/// (calibrated against the float CPU CG by tests/cpu/test_cg_reference.cpp).
template <class T>
double cg_residual_bound(double tol, double kappa);

/// Restores x0, runs `step` once (a whole solve) with `launch`, and checks: an SPD problem must
/// report "converged" with a true residual under cg_residual_bound and no NaN in x; a negative
/// definite problem must report "breakdown" with no NaN in x. The reported residual must match
/// the status (<= tol when converged).
template <class T>
CgCheck check_cg(const CgStep<T>& step, const CgLaunch& launch, CgProblem<T>& p);

/// ms per iteration of `step` (see the file comment), with rate_bytes set for the step and the
/// time to solution recorded in p.notes / p.solve_ms under the step's label (peer_label for the
/// peer). opt.flush_l2 etc. as the harness takes them.
template <class T>
BenchStats time_cg(const CgStep<T>& step, const CgLaunch& launch, CgProblem<T>& p, BenchOptions opt,
                   const std::string& peer_label = "cuBLAS CG");

/// The time to solution alone (a direct solver, the cuSOLVER row): ms of one call, x0 restored first.
template <class T>
BenchStats time_cg_solve(const CgStep<T>& step, const CgLaunch& launch, CgProblem<T>& p, BenchOptions opt);

/// The memory make_cg_problem, check_cg and the timed solves need at their peak for elements of
/// `elem` bytes: A (lda x n), b, x, x0 and the CG workspace (its vectors and SYMV's partials,
/// n (n / 64 + 2) elements at most) on the device; A and O(n) vectors in float64 on the host.
/// (The cuSOLVER row's copy of A is checked by that row: chapters/runner/cg_op.cpp.) Nothing is
/// allocated.
MemoryNeed cg_memory_need(std::size_t elem, int n, int lda);

}  // namespace wb
