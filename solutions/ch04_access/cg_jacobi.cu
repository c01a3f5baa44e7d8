// Solution, chapter 4 (the access pattern): the fused update of one Jacobi-preconditioned CG
// iteration, x += alpha p, r -= alpha q, z = D^-1 r and r.z, in one pass.
//
// Chapter 4's aligned, padded vectors: len is a multiple of 4 and every vector starts on 16 bytes,
// so each thread moves whole float4s (one 16-byte load or store per vector and step, a warp's
// request 512 contiguous bytes) and no thread tests an edge. A grid-stride loop over the len / 4
// float4s; the new r is used for z while still in registers (r is read once, z never read back),
// and each thread's share of r.z stays in a register. The block's shares meet through warp
// shuffles and shared memory behind a barrier; thread 0 adds the block's sum to *rz, which the
// launcher zeroed first (an atomic add per block: the order of the blocks' sums varies from run
// to run, within a float sum's rounding).
// Contract and rules: exercises/exercise_cg_jacobi.hpp.
#include "exercise_cg_jacobi.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kThreads = 256;

__global__ void pcg_update(CgJacobiArgs a) {
    __shared__ float warp_sums[kThreads / 32];
    float4* x = reinterpret_cast<float4*>(a.x);
    float4* r = reinterpret_cast<float4*>(a.r);
    float4* z = reinterpret_cast<float4*>(a.z);
    const float4* p = reinterpret_cast<const float4*>(a.p);
    const float4* q = reinterpret_cast<const float4*>(a.q);
    const float4* dinv = reinterpret_cast<const float4*>(a.dinv);
    const float alpha = a.alpha;
    const long long count = a.len / 4;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    float rz = 0.0f;
    for (long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride) {
        const float4 xo = x[k], ro = r[k], pk = p[k], qk = q[k], dk = dinv[k];
        x[k] = make_float4(xo.x + alpha * pk.x, xo.y + alpha * pk.y, xo.z + alpha * pk.z, xo.w + alpha * pk.w);
        const float4 rn = make_float4(ro.x - alpha * qk.x, ro.y - alpha * qk.y, ro.z - alpha * qk.z, ro.w - alpha * qk.w);
        const float4 zn = make_float4(dk.x * rn.x, dk.y * rn.y, dk.z * rn.z, dk.w * rn.w);
        r[k] = rn;
        z[k] = zn;
        rz += rn.x * zn.x + rn.y * zn.y + rn.z * zn.z + rn.w * zn.w;
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) rz += __shfl_xor_sync(0xffffffffu, rz, off);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = rz;
    __syncthreads();  // every warp's share is in
    if (threadIdx.x == 0) {
        float sum = 0.0f;
        for (int w = 0; w < kThreads / 32; ++w) sum += warp_sums[w];
        atomicAdd(a.rz, sum);
    }
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
