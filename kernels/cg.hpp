/// \file cg.hpp
/// \brief The conjugate gradient method (CG, White §5.2) for a dense symmetric positive definite
///        system A x = b: an algorithm, not a kernel. A step's launcher runs a whole solve on one
///        stream (architecture page, "An algorithm is a step too") and returns when it is over,
///        having written the solution into x and, when `result` is set, the outcome into *result.
///
/// The solve. From the given x (x0), r = b - A x, p = r; each iteration q = A p, alpha = r.r / p.q,
/// x += alpha p, r -= alpha q, beta = r.r(new) / r.r(old), p = r + beta p. It stops when the
/// recursive residual satisfies ||r|| <= tol ||b|| (converged; checked before the first iteration
/// too), or after max_iter iterations (max_iter), or when p.q <= 0 (breakdown: A is not positive
/// definite, or positive definiteness was lost to rounding; x keeps the last iterate, never NaN).
/// n == 0 converges at once; b == 0 gives x = 0 (the solution of A x = 0 for SPD A) at once.
///
/// Storage: A is n x n column-major, lda >= max(1, n). The steps whose Mv is GEMV (chapters 1-3
/// and the cuBLAS peer) read the whole matrix; the steps whose Mv is SYMV (chapters 4 and 5) read
/// only the lower triangle (the upper one may hold anything, NaN included).
#pragma once

#include "cg_status.hpp"
#include "device_profile.hpp"
#include "step.hpp"

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace wb {

/// The outcome of one solve, written by every step's launcher when CgArgs::result is set.
struct CgResult {
    int iterations = 0;     ///< iterations done (Mv products after the initial residual)
    double residual = 0;    ///< final recursive residual ||r|| / ||b|| (0 when b == 0 or n == 0)
    CgStatus status = CgStatus::MaxIter;
};

/// The tunables every CG step understands. A field a step does not use stays 0; 0 in a field the
/// step uses means "the step's default". The Mv inside each step runs with its own step's default
/// launch (kernels/gemv_ladder.cpp, kernels/symv_ladder.cpp).
struct CgLaunch {
    int block = 0;        ///< threads per block of the vector kernels (shared, pattern, access, tuned)
    int check_every = 0;  ///< pattern, access: iterations between host convergence checks;
                          ///< tuned: iterations per CUDA graph (and per status read)
    int schedule = -1;    ///< tuned: 1 = iterations launched as CUDA graphs, 0 = the same kernels as
                          ///< stream launches, 2 = one persistent cooperative kernel for the whole
                          ///< solve (its own SYMV, a share of A kept in shared memory); -1: the
                          ///< default launch's schedule (where the persistent kernel can run, else 1)
    std::string str() const;  ///< e.g. "block=256 check=8 graph"
    bool operator==(const CgLaunch& o) const {
        return block == o.block && check_every == o.check_every && schedule == o.schedule;
    }
};

template <class T>
struct CgArgs {
    using Launch = CgLaunch;
    using value_type = T;
    int n = 0;
    const T* A = nullptr;  ///< device pointer: n x n SPD, leading dimension lda
    int lda = 1;
    const T* b = nullptr;  ///< device pointer: n elements
    T* x = nullptr;        ///< device pointer: n elements, x0 on entry, the solution on return
    double tol = 1e-6;     ///< relative residual target, ||r|| <= tol ||b||; 0 runs max_iter iterations
    int max_iter = 1000;   ///< >= 0
    CgResult* result = nullptr;  ///< host pointer: the outcome (may be null)
};

template <class T> using CgStep = Step<CgArgs<T>>;

/// Validates before the GPU is touched; throws std::invalid_argument naming `fn`, the argument,
/// its value and the rule, e.g. "cg: lda (5) must be >= max(1, n) (8)". Returns false when there
/// is nothing to do (n == 0), true otherwise.
template <class T>
bool validate_cg(const CgArgs<T>& a, const char* fn = "cg");

// One launcher per stage. Each validates, handles n == 0, runs the solve and returns after it.
namespace naive   { template <class T> void cg(const CgArgs<T>&, const CgLaunch&, cudaStream_t); }
namespace shared  { template <class T> void cg(const CgArgs<T>&, const CgLaunch&, cudaStream_t); }
namespace pattern { template <class T> void cg(const CgArgs<T>&, const CgLaunch&, cudaStream_t); }
namespace access  { template <class T> void cg(const CgArgs<T>&, const CgLaunch&, cudaStream_t); }
namespace tuned {
template <class T> void cg(const CgArgs<T>&, const CgLaunch&, cudaStream_t);
/// The share of the lower triangle's 64 x 64 tiles the persistent kernel (schedule 2) keeps in
/// shared memory at n on the current device, as the launcher plans it (model::cg_persistent_plan
/// predicts the same from a DeviceProfile; the default launch takes the persistent kernel where
/// the CG model predicts it the faster: model::cg_tuned_schedule).
template <class T> double cg_persistent_onchip_share(int n);
/// The tuned launcher's check of a launch's own fields, before anything runs (no device call;
/// chapter 6's cpu tests run it on every derived launch): block (a multiple of 32 in [64, 1024],
/// 256 with schedule 2), check_every and schedule in their ranges. Returns the vector kernels'
/// block (256 where launch.block is 0); throws std::invalid_argument naming `fn`, the field, its
/// value and the rule.
int check_cg_launch(const CgLaunch& l, const char* fn);
/// The tuned step's default launch on profile `dev` (tuned/cg_default_rule.cpp): chapter 6's
/// derivation (derive::derive_cg): the vector kernels' block, the check interval and the schedule
/// (1 graphs or 2 persistent). Its Mv is tuned::symv_default, the same derivation's. Uncached.
CgLaunch cg_derived_launch(const DeviceProfile& dev, long long n, long long lda, int elem_bytes);
/// cg_derived_launch on the current device's profile (derive::default_profile), cached per
/// device and call shape: the step's default_launch.
template <class T> CgLaunch cg_default(const CgArgs<T>& a);
}  // namespace tuned

namespace peer {
/// The peer: CG composed of cuBLAS calls (GEMV, DOT with the result returned to the host, AXPY,
/// SCAL), what a user writes first (the cuda-samples recipe).
template <class T> void cg(const CgArgs<T>&, const CgLaunch&, cudaStream_t);
/// The direct solve for the time to solution: cuSOLVER potrf + potrs (lower) on a copy of A.
/// result->iterations = 0, residual = NaN (no recursive residual), status Breakdown when potrf
/// finds A not positive definite. Throws std::runtime_error when the build has no cuSOLVER.
template <class T> void cg_cholesky(const CgArgs<T>&, const CgLaunch&, cudaStream_t);
/// Whether cg_cholesky was compiled in (CMake found CUDA::cusolver).
bool have_cusolver();
}  // namespace peer

/// The registration (kernels/cg_ladder.cpp) behind ladder<CgArgs<T>>(), step<...>(), peer_step<...>().
template <> std::vector<Step<CgArgs<float>>> make_ladder<CgArgs<float>>();
template <> std::vector<Step<CgArgs<double>>> make_ladder<CgArgs<double>>();
template <> Step<CgArgs<float>> make_peer<CgArgs<float>>();
template <> Step<CgArgs<double>> make_peer<CgArgs<double>>();

}  // namespace wb
