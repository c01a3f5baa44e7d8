// Solution, chapter 5 (unrolled, fewer launches): Jacobi-preconditioned CG, its iteration
// captured once as a CUDA graph and replayed.
//
// Chapter 5's CG step: on a system small enough to sit in L2, an iteration is a few microseconds
// of work in four kernels, and launching them one by one from the host costs about as much. So
// the launcher captures one iteration once (stream capture on a stream of its own: the legacy
// default stream cannot be captured), instantiates it, and launches the graph `iters` times: one
// host call per iteration, the four kernels submitted by the GPU's front end back to back. For
// that, nothing of the iteration may live on the host: rz, p.q and the new rz sit in the
// workspace, each kernel reads alpha = rz / pq or beta = rz_new / rz from there, and a one-thread
// kernel starts each iteration by moving rz_new into rz and zeroing the two sums, which the other
// kernels add to (one atomic add per block after a shuffle-and-shared-memory block sum).
// The Mv reads column i of the symmetric A for row i (a warp per row: coalesced), and adds its
// share of p.q on the way; the update is chapter 4's fused one (x, r, z and r.z in one pass).
// Contract and rules: exercises/exercise_cg_graph.hpp.
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
__global__ void next_scalars(Work w) {
    w.s[0] = w.s[2];
    w.s[1] = 0.0f;
    w.s[2] = 0.0f;
}

// alpha = rz / pq; x += alpha p, r -= alpha q, z = dinv r; s[2] += r.z.
__global__ void update(CgGraphArgs a, Work w) {
    const float pq = w.s[1], alpha = pq != 0.0f ? w.s[0] / pq : 0.0f;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    float rz = 0.0f;
    for (long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; k < a.n; k += stride) {
        a.x[k] += alpha * w.p[k];
        const float r = w.r[k] - alpha * w.q[k], z = a.dinv[k] * r;
        w.r[k] = r;
        w.z[k] = z;
        rz += r * z;
    }
    block_sum_to(rz, w.s + 2);
}

// beta = rz_new / rz; p = z + beta p.
__global__ void direction(CgGraphArgs a, Work w) {
    const float rz = w.s[0], beta = rz != 0.0f ? w.s[2] / rz : 0.0f;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n; i += stride)
        w.p[i] = w.z[i] + beta * w.p[i];
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
    // One iteration, captured once on a stream of this launcher's own.
    cudaStream_t cs = nullptr;
    WB_CUDA(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    cudaGraph_t graph = nullptr;
    WB_CUDA(cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal));
    next_scalars<<<1, 1, 0, cs>>>(w);
    matvec_dot<<<rows_grid, kThreads, 0, cs>>>(a, w.p, w.q, w.s + 1);
    update<<<vec_grid, kThreads, 0, cs>>>(a, w);
    direction<<<vec_grid, kThreads, 0, cs>>>(a, w);
    WB_CUDA(cudaStreamEndCapture(cs, &graph));
    WB_CHECK_LAUNCH();
    cudaGraphExec_t exec = nullptr;
    WB_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    WB_CUDA(cudaGraphDestroy(graph));
    // Replayed on the caller's stream, after the start.
    for (int it = 0; it < a.iters; ++it) WB_CUDA(cudaGraphLaunch(exec, stream));
    WB_CUDA(cudaGraphExecDestroy(exec));  // freed once the launches are done
    WB_CUDA(cudaStreamDestroy(cs));
}

}  // namespace wb::ex::WB_EX_NS
