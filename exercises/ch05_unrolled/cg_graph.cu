// Exercise, chapter 5 (unrolled, fewer launches): Jacobi-preconditioned CG, its iteration
// captured once as a CUDA graph and replayed.
//
// Contract, rules and the float64 reference: exercises/exercise_cg_graph.hpp. What is given: the
// workspace layout (Work: r, z, p, q, then the scalars s[0] = rz, s[1] = p.q, s[2] = the new rz),
// a block sum that ends in one atomic add, the Mv (q = A v and v.q), the start (r, z, p and rz
// from x0) and the one-thread kernel that begins each iteration (rz = the new rz, both sums
// zeroed), and the launcher up to the start. What you write: the update kernel (alpha = rz / p.q
// read from the workspace, then chapter 4's fused pass: x += alpha p, r -= alpha q, z = dinv r,
// the new rz), the direction kernel (beta = new rz / rz, p = z + beta p), and chapter 5's step in
// the launcher: capture one iteration -- next_scalars, the Mv of p, update, direction -- once, on
// a stream the launcher creates (cudaStreamBeginCapture ... cudaStreamEndCapture: the legacy
// default stream, which the caller may pass, cannot be captured), instantiate it once, launch it
// `iters` times on the caller's stream, and release the graph, its executable and the stream.
// Nothing of the iteration may go through the host (no copies of alpha or beta back to it).
// Mind alpha and beta when p.q or rz is 0 (the contract says 0), and the end of the vectors.
// (The kernels of the iteration are marked [[maybe_unused]] until your graph launches them.)
#include "exercise_cg_graph.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kThreads = 256, kWarps = kThreads / 32;

// The workspace: r, z, p, q (n each), then the scalars.
struct Work {
    float *r, *z, *p, *q, *s;  // s[0] rz, s[1] p.q, s[2] the new rz
};
Work work_of(const CgGraphArgs& a) {
    float* w = a.work;
    const long long n = a.n;
    return {w, w + n, w + 2 * n, w + 3 * n, w + 4 * n};
}

// *target += the sum of every thread's v over the block (one atomic add per block).
__device__ void block_sum_to(float v, float* target) {
    __shared__ float warp_sums[kWarps];
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();  // every warp's share is in
    if (threadIdx.x == 0) {
        float sum = 0.0f;
        for (int w = 0; w < kWarps; ++w) sum += warp_sums[w];
        atomicAdd(target, sum);
    }
}

// q = A v (a warp per row i, reading column i: A is symmetric); *vq += v.q.
__global__ void matvec_dot(CgGraphArgs a, const float* v, float* q, float* vq) {
    const long long n = a.n, lane = threadIdx.x % 32;
    const long long warps = static_cast<long long>(gridDim.x) * kWarps;
    float mine = 0.0f;
    for (long long i = static_cast<long long>(blockIdx.x) * kWarps + threadIdx.x / 32; i < n; i += warps) {
        const float* col = a.A + i * a.lda;
        float s = 0.0f;
        for (long long j = lane; j < n; j += 32) s += col[j] * v[j];
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
        if (lane == 0) {
            q[i] = s;
            mine += v[i] * s;
        }
    }
    block_sum_to(mine, vq);
}

// r = b - q (q = A x0), z = dinv r, p = z, s[2] += r.z.
__global__ void start(CgGraphArgs a, Work w) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    float rz = 0.0f;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n; i += stride) {
        const float r = a.b[i] - w.q[i], z = a.dinv[i] * r;
        w.r[i] = r;
        w.z[i] = z;
        w.p[i] = z;
        rz += r * z;
    }
    block_sum_to(rz, w.s + 2);
}

// The first node of an iteration: rz = the new rz of the last one; the sums start at zero.
[[maybe_unused]] __global__ void next_scalars(Work w) {
    w.s[0] = w.s[2];
    w.s[1] = 0.0f;
    w.s[2] = 0.0f;
}

// alpha = rz / pq; x += alpha p, r -= alpha q, z = dinv r; s[2] += r.z.
[[maybe_unused]] __global__ void update(CgGraphArgs a, Work w) {
    (void)a;  // TODO: alpha from w.s, chapter 4's fused pass, block_sum_to(the thread's r.z, w.s + 2)
    (void)w;
}

// beta = rz_new / rz; p = z + beta p.
[[maybe_unused]] __global__ void direction(CgGraphArgs a, Work w) {
    (void)a;  // TODO: beta from w.s, p = z + beta p
    (void)w;
}

}  // namespace

void cg_graph(const CgGraphArgs& a, cudaStream_t stream) {
    check_cg_graph_args("ch05 cg_graph", a);
    if (a.n == 0 || a.iters == 0) return;
    const Work w = work_of(a);
    const unsigned rows_grid = grid_for(a.n, kWarps), vec_grid = grid_for(a.n, kThreads);
    // The start, launched as usual: r, z, p and rz from x0.
    WB_CUDA(cudaMemsetAsync(w.s, 0, 3 * sizeof(float), stream));
    matvec_dot<<<rows_grid, kThreads, 0, stream>>>(a, a.x, w.q, w.s + 1);
    WB_CHECK_LAUNCH();
    start<<<vec_grid, kThreads, 0, stream>>>(a, w);
    WB_CHECK_LAUNCH();
    // TODO: capture one iteration (next_scalars<<<1, 1>>>, matvec_dot of p into q adding p.q to
    // w.s + 1, update, direction) once on a stream of your own, instantiate the graph, launch it
    // a.iters times on `stream`, release what you created.
}

}  // namespace wb::ex::WB_EX_NS
