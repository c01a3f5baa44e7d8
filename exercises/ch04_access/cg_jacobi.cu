// Exercise, chapter 4 (the access pattern): the fused update of one Jacobi-preconditioned CG
// iteration, x += alpha p, r -= alpha q, z = D^-1 r and r.z, in one pass.
//
// Contract, rules and the float64 reference: exercises/exercise_cg_jacobi.hpp. What is given: the
// launcher (argument checks, *rz zeroed, blocks of 256 threads, a grid from grid_for() over the
// len / 4 float4s). What you write: the kernel, with chapter 4's step: the vectors are padded to a
// multiple of 4 and aligned on 16 bytes, so read and write them as float4 (one 16-byte access per
// vector and step) with no edge test. In one pass over the vectors: x += alpha p, r -= alpha q,
// z = dinv r from the new r while it is still in registers, and each thread's share of r.z (the
// new r and z) in a register. Then the block's shares meet (warp shuffles, shared memory, a
// barrier: every warp's share in before they are added) and one thread adds the block's sum to *rz
// with an atomic add. Mind the end of the vectors (len / 4 float4s, nothing after them), and a
// grid smaller than len / 4 (a grid-stride loop).
#include "exercise_cg_jacobi.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kThreads = 256;

__global__ void pcg_update(CgJacobiArgs a) {
    (void)a;  // TODO: x += alpha p, r -= alpha q, z = dinv r, *rz += the block's sum of r z
}

}  // namespace

void cg_jacobi(const CgJacobiArgs& a, cudaStream_t stream) {
    check_cg_jacobi_args("ch04 cg_jacobi", a);
    WB_CUDA(cudaMemsetAsync(a.rz, 0, sizeof(float), stream));  // the blocks add their sums to it
    if (a.len == 0) return;
    pcg_update<<<grid_for(a.len / 4, kThreads), kThreads, 0, stream>>>(a);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
