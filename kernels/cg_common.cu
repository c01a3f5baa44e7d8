/// \file cg_common.cu
/// \brief CG host pieces shared by every step (argument validation naming the function, the
///        argument, its value and the rule; CgLaunch::str; the workspace; the status read; the
///        result) and the vector kernels of chapters 3 and 4 (cg_common.cuh).
#include "cg_common.cuh"

#include "buffer.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace wb {

std::string CgLaunch::str() const {
    using launch_checks::num;
    return launch_checks::LaunchText()
        .add(block > 0, "block=" + num(block))
        .add(check_every > 0, "check=" + num(check_every))
        .add(schedule >= 0, schedule == 0 ? "stream" : schedule == 1 ? "graph" : "persistent")
        .str();
}

using launch_checks::fail;
using launch_checks::num;

template <class T>
bool validate_cg(const CgArgs<T>& a, const char* fn) {
    if (a.n < 0) fail(fn, "n (" + num(a.n) + ") must be >= 0");
    const int rn = std::max(1, a.n);
    if (a.lda < rn) fail(fn, "lda (" + num(a.lda) + ") must be >= max(1, n) (" + num(rn) + ")");
    if (a.max_iter < 0) fail(fn, "max_iter (" + num(a.max_iter) + ") must be >= 0");
    if (!(a.tol >= 0) || !std::isfinite(a.tol)) {
        std::ostringstream os;
        os << "tol (" << a.tol << ") must be finite and >= 0";
        fail(fn, os.str());
    }
    if (a.n == 0) return false;
    if (a.A == nullptr) fail(fn, "A must not be null when n > 0");
    if (a.b == nullptr) fail(fn, "b must not be null when n > 0");
    if (a.x == nullptr) fail(fn, "x must not be null when n > 0");
    if (static_cast<const void*>(a.x) == static_cast<const void*>(a.b))
        fail(fn, "x must not be the same array as b (x is overwritten during the solve)");
    return true;
}

template bool validate_cg<float>(const CgArgs<float>&, const char*);
template bool validate_cg<double>(const CgArgs<double>&, const char*);

namespace cg_detail {

namespace {

template <class T>
__device__ __forceinline__ T dot16(float4 a, float4 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
template <class T>
__device__ __forceinline__ T dot16(double2 a, double2 b) {
    return a.x * b.x + a.y * b.y;
}
__device__ __forceinline__ float4 axpy16(float s, float4 a, float4 b) {  // s a + b
    return make_float4(fmaf(s, a.x, b.x), fmaf(s, a.y, b.y), fmaf(s, a.z, b.z), fmaf(s, a.w, b.w));
}
__device__ __forceinline__ double2 axpy16(double s, double2 a, double2 b) {
    return make_double2(fma(s, a.x, b.x), fma(s, a.y, b.y));
}

//! [cg-init]
/// p = r, rr = r.r, bb = b.b; the padding [n, len) of the vectors in `zero` set to 0.
template <class T>
__global__ void init_kernel(int n, int len, const T* __restrict__ b, const T* __restrict__ r, T* __restrict__ p,
                            T* const* zero, int nzero, T tol2, State<T>* st, T* part) {
    T rr = 0, bb = 0;
    const int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < len; i += stride) {
        if (i < n) {
            const T ri = r[i], bi = b[i];
            p[i] = ri;
            rr += ri * ri;
            bb += bi * bi;
        } else {
            for (int z = 0; z < nzero; ++z) zero[z][i] = T(0);
        }
    }
    rr = block_sum(rr);
    bb = block_sum(bb);
    if (threadIdx.x == 0) {
        part[2 * blockIdx.x] = rr;
        part[2 * blockIdx.x + 1] = bb;
    }
    if (!last_block(&st->counter)) return;
    rr = sum_partials(part, gridDim.x, 2, 0);
    bb = sum_partials(part, gridDim.x, 2, 1);
    if (threadIdx.x == 0) {
        st->rr = rr;
        st->bb = bb;
        st->thresh2 = tol2 * bb;
        st->iter = 0;
        st->alpha = st->beta = st->pq = 0;
        if (bb == T(0)) st->status = kConverged;  // x = 0 (finish)
        else if (!isfinite(rr) || !isfinite(bb)) st->status = kBreakdown;
        else st->status = rr <= tol2 * bb ? kConverged : kRunning;
        st->counter = 0;
    }
}
//! [cg-init]

//! [cg-dot-pq]
/// pq = p.q; the last block computes alpha = rr / pq, or flags a breakdown.
template <class T, bool VEC>
__global__ void dot_pq_kernel(int len, const T* __restrict__ p, const T* __restrict__ q, State<T>* st, T* part) {
    if (st->status != kRunning) return;
    T acc = 0;
    const int stride = gridDim.x * blockDim.x;
    const int t0 = blockIdx.x * blockDim.x + threadIdx.x;
    if constexpr (VEC) {
        using V = typename Vec16<T>::type;
        const V* p4 = reinterpret_cast<const V*>(p);
        const V* q4 = reinterpret_cast<const V*>(q);
        for (int i = t0; i < len / Vec16<T>::n; i += stride) acc += dot16<T>(p4[i], q4[i]);
    } else {
        for (int i = t0; i < len; i += stride) acc += p[i] * q[i];
    }
    acc = block_sum(acc);
    if (threadIdx.x == 0) part[blockIdx.x] = acc;
    if (!last_block(&st->counter)) return;
    const T pq = sum_partials(part, gridDim.x, 1, 0);
    if (threadIdx.x == 0) {
        st->pq = pq;
        if (!(pq > T(0)) || !isfinite(pq)) st->status = kBreakdown;
        else st->alpha = st->rr / pq;
        st->counter = 0;
    }
}
//! [cg-dot-pq]

//! [cg-update-xr]
/// x += alpha p, r -= alpha q and r.r in one pass; the last block counts the iteration, computes
/// beta and tests convergence.
template <class T, bool VEC>
__global__ void update_xr_kernel(int len, const T* __restrict__ p, const T* __restrict__ q, T* __restrict__ x,
                                 T* __restrict__ r, State<T>* st, T* part) {
    if (st->status != kRunning) return;
    const T alpha = st->alpha;
    T acc = 0;
    const int stride = gridDim.x * blockDim.x;
    const int t0 = blockIdx.x * blockDim.x + threadIdx.x;
    if constexpr (VEC) {
        using V = typename Vec16<T>::type;
        const V* p4 = reinterpret_cast<const V*>(p);
        const V* q4 = reinterpret_cast<const V*>(q);
        V* x4 = reinterpret_cast<V*>(x);
        V* r4 = reinterpret_cast<V*>(r);
        for (int i = t0; i < len / Vec16<T>::n; i += stride) {
            x4[i] = axpy16(alpha, p4[i], x4[i]);
            const V ri = axpy16(-alpha, q4[i], r4[i]);
            r4[i] = ri;
            acc += dot16<T>(ri, ri);
        }
    } else {
        for (int i = t0; i < len; i += stride) {
            x[i] += alpha * p[i];
            const T ri = r[i] - alpha * q[i];
            r[i] = ri;
            acc += ri * ri;
        }
    }
    acc = block_sum(acc);
    if (threadIdx.x == 0) part[blockIdx.x] = acc;
    if (!last_block(&st->counter)) return;
    const T rr = sum_partials(part, gridDim.x, 1, 0);
    if (threadIdx.x == 0) {
        st->iter += 1;
        st->beta = rr / st->rr;
        st->rr = rr;
        if (!isfinite(rr)) st->status = kBreakdown;
        else if (rr <= st->thresh2) st->status = kConverged;
        st->counter = 0;
    }
}
//! [cg-update-xr]

//! [cg-update-p]
/// p = r + beta p.
template <class T, bool VEC>
__global__ void update_p_kernel(int len, const T* __restrict__ r, T* __restrict__ p, const State<T>* st) {
    if (st->status != kRunning) return;
    const T beta = st->beta;
    const int stride = gridDim.x * blockDim.x;
    const int t0 = blockIdx.x * blockDim.x + threadIdx.x;
    if constexpr (VEC) {
        using V = typename Vec16<T>::type;
        const V* r4 = reinterpret_cast<const V*>(r);
        V* p4 = reinterpret_cast<V*>(p);
        for (int i = t0; i < len / Vec16<T>::n; i += stride) p4[i] = axpy16(beta, p4[i], r4[i]);
    } else {
        for (int i = t0; i < len; i += stride) p[i] = r[i] + beta * p[i];
    }
}
//! [cg-update-p]

}  // namespace

struct CgWorkspaceTag {};

void* workspace(std::size_t bytes) {
    // Zero-filled when it grows: nothing uninitialized is ever read (initcheck).
    return workspace_of_current_device<CgWorkspaceTag>().get(bytes, /*zero_when_grown=*/true);
}

void* pinned_state(std::size_t bytes) {
    thread_local void* p = nullptr;
    thread_local std::size_t have = 0;
    if (have < bytes) {
        if (p) WB_CUDA(cudaFreeHost(p));
        p = nullptr;
        WB_CUDA(cudaMallocHost(&p, bytes));
        have = bytes;
    }
    return p;
}

template <class T>
Work<T> make_work(int n, int nvec, int pad, std::size_t extra) {
    const int unit = std::max(64, pad);  // 64 elements: 256 bytes for float, 512 for double
    const int len = pad > 1 ? static_cast<int>(ceil_div(n, unit) * unit) : n;
    const std::size_t vec_bytes = static_cast<std::size_t>(ceil_div(static_cast<long long>(len) * sizeof(T), 256)) * 256;
    const std::size_t head = 512 + 2 * kMaxGrid * sizeof(T);
    char* base = static_cast<char*>(
        workspace(head + static_cast<std::size_t>(nvec) * vec_bytes + extra * sizeof(T)));
    Work<T> w;
    w.st = reinterpret_cast<State<T>*>(base);
    w.partials = reinterpret_cast<T*>(base + 512);
    for (int k = 0; k < nvec && k < 4; ++k) w.v[k] = reinterpret_cast<T*>(base + head + k * vec_bytes);
    if (extra > 0) w.extra = reinterpret_cast<T*>(base + head + static_cast<std::size_t>(nvec) * vec_bytes);
    w.len = len;
    return w;
}

int vector_grid(int len, int block, int per_thread) {
    const long long want = ceil_div(std::max(1, len), static_cast<long long>(block) * per_thread);
    return static_cast<int>(std::max(1LL, std::min<long long>({want, 2LL * sm_count(), kMaxGrid})));
}

int vector_block(const CgLaunch& l, int def, const char* fn) {
    const int b = l.block > 0 ? l.block : def;
    require_launch(b >= 64 && b <= 1024 && b % 32 == 0, fn, "block", b, "a multiple of 32 in [64, 1024]");
    return b;
}

template <class T>
void set_result(const CgArgs<T>& a, int iterations, double residual, CgStatus status) {
    if (!a.result) return;
    a.result->iterations = iterations;
    a.result->residual = residual;
    a.result->status = status;
}

template <class T>
bool begin(const CgArgs<T>& a, const char* fn) {
    if (validate_cg(a, fn)) return true;
    set_result(a, 0, 0.0, CgStatus::Converged);  // n == 0: nothing to solve
    return false;
}

template <class T>
State<T> read_state(const State<T>* st, cudaStream_t s) {
    void* h = pinned_state(sizeof(State<T>));
    WB_CUDA(cudaMemcpyAsync(h, st, sizeof(State<T>), cudaMemcpyDeviceToHost, s));
    WB_CUDA(cudaStreamSynchronize(s));
    State<T> out;
    std::memcpy(&out, h, sizeof(State<T>));
    return out;
}

template <class T>
void zero_solution(const CgArgs<T>& a, T* x, cudaStream_t s) {
    WB_CUDA(cudaMemsetAsync(x, 0, static_cast<std::size_t>(a.n) * sizeof(T), s));
    WB_CUDA(cudaStreamSynchronize(s));
    set_result(a, 0, 0.0, CgStatus::Converged);
}

template <class T>
void finish(const CgArgs<T>& a, const State<T>& st, T* x, cudaStream_t s) {
    if (st.bb == T(0) && st.status == kConverged) return zero_solution(a, x, s);
    const double res = st.bb > T(0) ? std::sqrt(static_cast<double>(st.rr) / static_cast<double>(st.bb)) : 0.0;
    const CgStatus status = st.status == kConverged   ? CgStatus::Converged
                            : st.status == kBreakdown ? CgStatus::Breakdown
                                                      : CgStatus::MaxIter;
    set_result(a, st.iter, res, status);
}

template <class T>
void launch_init(int n, int len, const T* b, Work<T>& w, T* const* zero, int nzero, double tol, int block,
                 cudaStream_t s) {
    // The pointers of the vectors to pad go to the device through the state's tail (no extra allocation).
    T** dz = reinterpret_cast<T**>(reinterpret_cast<char*>(w.st) + 256);
    if (nzero > 0)
        WB_CUDA(cudaMemcpyAsync(dz, zero, static_cast<std::size_t>(nzero) * sizeof(T*), cudaMemcpyHostToDevice, s));
    WB_CUDA(cudaMemsetAsync(w.st, 0, sizeof(State<T>), s));
    const int grid = vector_grid(len, block, 1);
    init_kernel<T><<<grid, block, 0, s>>>(n, len, b, w.v[0], w.v[1], dz, len > n ? nzero : 0,
                                          static_cast<T>(tol * tol), w.st, w.partials);
    WB_CHECK_LAUNCH();
}

template <class T>
void launch_dot_pq(const Work<T>& w, const T* p, const T* q, int block, bool vec, cudaStream_t s) {
    const int per = vec ? Vec16<T>::n : 1;
    const int grid = vector_grid(w.len, block, per);
    if (vec) dot_pq_kernel<T, true><<<grid, block, 0, s>>>(w.len, p, q, w.st, w.partials);
    else dot_pq_kernel<T, false><<<grid, block, 0, s>>>(w.len, p, q, w.st, w.partials);
    WB_CHECK_LAUNCH();
}

template <class T>
void launch_update_xr(const Work<T>& w, const T* p, const T* q, T* x, T* r, int block, bool vec, cudaStream_t s) {
    const int per = vec ? Vec16<T>::n : 1;
    const int grid = vector_grid(w.len, block, per);
    if (vec) update_xr_kernel<T, true><<<grid, block, 0, s>>>(w.len, p, q, x, r, w.st, w.partials);
    else update_xr_kernel<T, false><<<grid, block, 0, s>>>(w.len, p, q, x, r, w.st, w.partials);
    WB_CHECK_LAUNCH();
}

template <class T>
void launch_update_p(const Work<T>& w, const T* r, T* p, int block, bool vec, cudaStream_t s) {
    const int per = vec ? Vec16<T>::n : 1;
    const int grid = vector_grid(w.len, block, per);
    if (vec) update_p_kernel<T, true><<<grid, block, 0, s>>>(w.len, r, p, w.st);
    else update_p_kernel<T, false><<<grid, block, 0, s>>>(w.len, r, p, w.st);
    WB_CHECK_LAUNCH();
}

#define WB_CG_COMMON(T)                                                                                         \
    template Work<T> make_work<T>(int, int, int, std::size_t);                                                              \
    template bool begin<T>(const CgArgs<T>&, const char*);                                                     \
    template void set_result<T>(const CgArgs<T>&, int, double, CgStatus);                                      \
    template State<T> read_state<T>(const State<T>*, cudaStream_t);                                            \
    template void zero_solution<T>(const CgArgs<T>&, T*, cudaStream_t);                                         \
    template void finish<T>(const CgArgs<T>&, const State<T>&, T*, cudaStream_t);                              \
    template void launch_init<T>(int, int, const T*, Work<T>&, T* const*, int, double, int, cudaStream_t);     \
    template void launch_dot_pq<T>(const Work<T>&, const T*, const T*, int, bool, cudaStream_t);               \
    template void launch_update_xr<T>(const Work<T>&, const T*, const T*, T*, T*, int, bool, cudaStream_t);    \
    template void launch_update_p<T>(const Work<T>&, const T*, T*, int, bool, cudaStream_t);
WB_CG_COMMON(float)
WB_CG_COMMON(double)
#undef WB_CG_COMMON

}  // namespace cg_detail
}  // namespace wb
