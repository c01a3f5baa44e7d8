// Exercise, chapter 5 (unrolled, fewer launches): Jacobi-preconditioned CG, its iteration
// captured once as a CUDA graph and replayed.
//
// Contract, rules and the float64 reference: exercises/exercise_cg_graph.hpp. What is given: the
// workspace layout (Work: r, z, p, q, then the scalars s[0] = rz, s[1] = p.q, s[2] = the new rz),
// a block sum that ends in one atomic add (block_sum_to), the one-thread kernel that begins each
// iteration (rz = the new rz, both sums zeroed), and the launcher up to the start. What you write:
//   - the kernels: the Mv with its dot (q = A v, v.q added to a scalar; chapter 3's several
//     threads per result), the start (r = b - A x0, z = dinv r, p = z, r.z), the update (alpha =
//     rz / p.q read from the workspace, then chapter 4's fused pass: x += alpha p, r -= alpha q,
//     z = dinv r, the new rz) and the direction (beta = new rz / rz, p = z + beta p);
//   - chapter 5's step, in the launcher: capture one iteration -- next_scalars, the Mv of p,
//     update, direction -- once, on a stream the launcher creates (cudaStreamBeginCapture ...
//     cudaStreamEndCapture: the legacy default stream, which the caller may pass, cannot be
//     captured), instantiate it once, launch it `iters` times on the caller's stream, and
//     release the graph, its executable and the stream.
// Nothing of the iteration may go through the host (no copies of alpha or beta back to it).
// Mind alpha and beta when p.q or rz is 0 (the contract says 0), the end of the vectors, and a
// grid smaller than the rows or entries (grid-stride loops).
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
[[maybe_unused]] __device__ void block_sum_to(float v, float* target) {
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

// q = A v; *vq += v.q. (A is symmetric: row i is column i, which a warp reads contiguously.)
__global__ void matvec_dot(CgGraphArgs a, const float* v, float* q, float* vq) {
    (void)a;  // TODO: q[i] = sum_j A(i, j) v[j] for every row i; block_sum_to(the thread's share of v.q, vq)
    (void)v;
    (void)q;
    (void)vq;
}

// r = b - q (q = A x0), z = dinv r, p = z, s[2] += r.z.
__global__ void start(CgGraphArgs a, Work w) {
    (void)a;  // TODO: r, z and p from b, q and dinv; block_sum_to(the thread's share of r.z, w.s + 2)
    (void)w;
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
