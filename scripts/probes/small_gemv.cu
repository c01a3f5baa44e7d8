// small_gemv.cu — where do a double GEMV-N's last microseconds go at n = 1024-8192?
//
// Before this probe the tuned step (chapter 5) ran ~1.2 us behind the read floor (chapter tables'
// `read A only` row) at n = 1024-2048. It times, after the workbook's write flush, a stripped
// copy of the tuned N kernel (same thread layout: block BX x Q, 2 rows per thread, columns
// interleaved over the Q*Y thread rows of a tile, U loads double-buffered) finishing in
// several ways:
//   direct   Y = 1, shuffles over a warp's thread rows + shared-memory tree, beta*y loaded at
//            the start (the tuned kernel before c009e35)
//   nored    no reduction at all: each thread stores its sum (what the loads alone cost)
//   flat     every thread row's sums to shared memory, one barrier, one thread per output sums
//   flat8 / flat32 / shflat4   one barrier, then 8 or 32 threads per output and shuffles (flat8 is
//            the tuned kernel since c009e35); shflat4: warp shuffles first, then 4 per output
//   atomic / noy / vecy   (earlier rounds, not in the loop below) Y blocks per tile adding
//            their sums to y with atomics; no y at all; y through 16-byte loads and stores
//   cluster  Y blocks per tile form a cluster; ranks > 0 store their block sums into rank 0's
//            shared memory, one cluster barrier, rank 0 adds them in order (deterministic)
// beside cuBLAS DGEMV and a plain read of A's bytes (1024 x 2 and 512 x 4 threads x loads).
// Results: docs/results/h200/probe-small-gemv.txt (this revision, no argument);
// probe-small-gemv-load-order.txt (--load-order: also VAR 1-3, the next batch's loads forced
// ahead of the multiplications and x loaded once per warp by shuffles) and
// probe-small-gemv-split.txt (an earlier revision: more shapes, Y up to 8, atomic splits).
// Discussed in docs/notes/gemv.md.
//
// Build and run on a GPU machine:
//   nvcc -O3 -std=c++17 -arch=native scripts/probes/small_gemv.cu -lcublas -o small_gemv && ./small_gemv [--load-order]
#include "probe_timing.cuh"

#include <cooperative_groups.h>
#include <cublas_v2.h>

#include <cmath>
#include <cstring>
#include <string>

namespace cg = cooperative_groups;

enum Mode { kDirect = 0, kNoRed = 1, kAtomic = 2, kCluster = 3, kNoY = 4, kVecY = 5, kFlat = 6, kFlat8 = 7, kFlat32 = 8, kShufFlat4 = 9 };
static const char* mode_name[] = {"direct", "nored", "atomic", "cluster", "noy", "vecy", "flat", "flat8", "flat32", "shflat4"};
// flat8 / flat32: every thread row's sums to shared memory (transposed, padded), one barrier, then
// P = 8 or 32 threads per result add every P-th row and finish with P-lane shuffles; the thread
// that writes y loaded beta*y at the start. shflat4: shuffles over the thread rows of a warp
// first, then the same with the G = Q/R warp sums and P = 4.
template <int MODE> __host__ __device__ constexpr int flat_p() { return MODE == kFlat8 ? 8 : MODE == kFlat32 ? 32 : 4; }

template <int U, int MODE, int VAR>
__global__ void __launch_bounds__(512) gemv_n(int n, const double* __restrict__ A, const double* __restrict__ x,
                                               double beta, double* __restrict__ y, double* __restrict__ scratch) {
    extern __shared__ double red[];  // [G][BX*2], then (cluster) [Y][BX*2]
    const int tx = threadIdx.x, ty = threadIdx.y, BX = blockDim.x, Q = blockDim.y, Y = gridDim.y;
    const int i0 = (blockIdx.x * BX + tx) * 2;
    const int S = Q * Y;
    const bool writer = ty == 0 && (MODE == kDirect || MODE == kVecY || MODE == kFlat || (MODE == kCluster && blockIdx.y == 0));
    double yb0 = 0, yb1 = 0;
    if (writer && beta != 0) {
        if (MODE == kVecY) {
            const double2 t = *reinterpret_cast<const double2*>(y + i0);
            yb0 = beta * t.x;
            yb1 = beta * t.y;
        } else {
            yb0 = beta * y[i0];
            yb1 = beta * y[i0 + 1];
        }
    }
    double ybp = 0;
    if (MODE >= kFlat8) {
        constexpr int P = flat_p<MODE>();
        const int t = ty * BX + tx, o = t / P;
        if (o < 2 * BX && t % P == 0 && beta != 0) ybp = beta * y[blockIdx.x * BX * 2 + o];
    }
    double acc0 = 0, acc1 = 0;
    int j = blockIdx.y * Q + ty;
    const long long step = static_cast<long long>(S) * n;
    const double* a = A + i0 + static_cast<long long>(j) * n;
    const double* xp = x + j;
    const int full = (n - j + S - 1) / S / U;
    // VAR bit 0: __syncwarp() after the next batch's loads (ptxas may not sink them below the
    // multiplications of this batch); bit 1: x through shuffles (lane r*U+u of a warp loads x for
    // thread row r, column u of the batch: one load and two registers instead of U of each).
    constexpr bool FENCE = VAR & 1, XSH = VAR & 2;
    double2 cur[U], nxt[U];
    double xc[U], xn[U];
    const int lane = (ty * BX + tx) & 31, R = BX < 32 ? 32 / BX : 1, r = ty % R;
    const int lsrc = lane % (R * U);
    const double* xl = x + (blockIdx.y * Q + (ty - r) + lsrc / U) + (lsrc % U) * S;
    double xv = 0, xvn = 0;
    if (full > 0) {
#pragma unroll
        for (int u = 0; u < U; ++u) {
            cur[u] = __ldcs(reinterpret_cast<const double2*>(a + u * step));
            if (!XSH) xc[u] = __ldg(xp + u * S);
        }
        if (XSH) xv = __ldg(xl);
    }
    for (int b = 0; b < full; ++b) {
        const bool more = b + 1 < full;
        if (more) {
#pragma unroll
            for (int u = 0; u < U; ++u) {
                nxt[u] = __ldcs(reinterpret_cast<const double2*>(a + (U + u) * step));
                if (!XSH) xn[u] = __ldg(xp + (U + u) * S);
            }
            if (XSH) xvn = __ldg(xl + U * S);
        }
        if (FENCE) __syncwarp();
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const double xj = XSH ? __shfl_sync(0xffffffffu, xv, r * U + u) : xc[u];
            acc0 += cur[u].x * xj;
            acc1 += cur[u].y * xj;
        }
        if (more) {
#pragma unroll
            for (int u = 0; u < U; ++u) { cur[u] = nxt[u]; xc[u] = xn[u]; }
            xv = xvn;
        }
        a += U * step;
        xp += U * S;
        xl += U * S;
    }
    for (j += full * U * S; j < n; j += S, a += step, xp += S) {
        const double2 v = __ldcs(reinterpret_cast<const double2*>(a));
        acc0 += v.x * *xp;
        acc1 += v.y * *xp;
    }
    if constexpr (MODE == kNoRed) {
        const long long t = (static_cast<long long>(blockIdx.y) * gridDim.x + blockIdx.x) * (BX * Q) + ty * BX + tx;
        scratch[t] = acc0 + acc1;
    } else if constexpr (MODE >= kFlat8) {
        constexpr int P = flat_p<MODE>();
        const int O = 2 * BX, R = BX < 32 ? 32 / BX : 1;
        int rows = Q, rowid = ty;
        bool store = true;
        if (MODE == kShufFlat4) {
            for (int off = BX; off < 32; off <<= 1) {
                acc0 += __shfl_xor_sync(0xffffffffu, acc0, off);
                acc1 += __shfl_xor_sync(0xffffffffu, acc1, off);
            }
            rows = Q / R;
            rowid = ty / R;
            store = ty % R == 0;
        }
        const int ld = rows + 1;
        if (store) {
            red[(2 * tx) * ld + rowid] = acc0;
            red[(2 * tx + 1) * ld + rowid] = acc1;
        }
        __syncthreads();
        const int t = ty * BX + tx, o = t / P, p = t % P;
        if (o < O) {
            double sum = 0;
            for (int q = p; q < rows; q += P) sum += red[o * ld + q];
#pragma unroll
            for (int off = P / 2; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
            if (p == 0) y[blockIdx.x * BX * 2 + o] = sum + ybp;
        }
    } else if constexpr (MODE == kFlat) {  // every thread row to shared memory, one barrier, ty == 0 sums in order
        red[(ty * BX + tx) * 2] = acc0;
        red[(ty * BX + tx) * 2 + 1] = acc1;
        __syncthreads();
        if (ty == 0) {
            double s0 = 0, s1 = 0;
            for (int q = 0; q < Q; ++q) { s0 += red[(q * BX + tx) * 2]; s1 += red[(q * BX + tx) * 2 + 1]; }
            y[i0] = s0 + yb0;
            y[i0 + 1] = s1 + yb1;
        }
    } else {  // shuffles over a warp's thread rows, then a tree in shared memory
        for (int off = BX; off < 32; off <<= 1) {
            acc0 += __shfl_xor_sync(0xffffffffu, acc0, off);
            acc1 += __shfl_xor_sync(0xffffffffu, acc1, off);
        }
        const int g = ty / R, G = Q / R;
        const bool leader = ty % R == 0;
        double* mine = red + (g * BX + tx) * 2;
        if (leader) { mine[0] = acc0; mine[1] = acc1; }
        __syncthreads();
        for (int active = G; active > 1;) {
            const int half = (active + 1) / 2;
            if (leader && g < active - half) { mine[0] += mine[half * BX * 2]; mine[1] += mine[half * BX * 2 + 1]; }
            active = half;
            __syncthreads();
        }
        if (ty != 0) {
            if (MODE == kCluster) cg::this_cluster().sync();
            return;
        }
        const double v0 = red[tx * 2], v1 = red[tx * 2 + 1];
        if (MODE == kDirect) {
            y[i0] = v0 + yb0;
            y[i0 + 1] = v1 + yb1;
        } else if (MODE == kVecY) {
            *reinterpret_cast<double2*>(y + i0) = make_double2(v0 + yb0, v1 + yb1);
        } else if (MODE == kNoY) {
            scratch[blockIdx.x * BX + tx] = v0 + v1;
        } else if (MODE == kAtomic) {
            atomicAdd(y + i0, v0);
            atomicAdd(y + i0 + 1, v1);
        } else {
            cg::cluster_group cl = cg::this_cluster();
            const int r = static_cast<int>(cl.block_rank());
            double* slots = red + G * BX * 2;  // rank 0's [Y][BX*2]
            if (r > 0) {
                double* dst = cl.map_shared_rank(slots, 0) + (r * BX + tx) * 2;
                dst[0] = v0;
                dst[1] = v1;
            }
            cl.sync();
            if (r == 0) {
                double s0 = v0, s1 = v1;
                for (int q = 1; q < Y; ++q) { s0 += slots[(q * BX + tx) * 2]; s1 += slots[(q * BX + tx) * 2 + 1]; }
                y[i0] = s0 + yb0;
                y[i0 + 1] = s1 + yb1;
            }
        }
    }
}
// The cluster barrier above is reached by every thread of every block: threads with ty != 0 call
// it before returning, threads with ty == 0 after their remote stores.

template <int U, int MODE, int VAR>
void launch(int n, int BX, int Q, int Y, const double* A, const double* x, double beta, double* y, double* scratch) {
    const int G = Q / (BX < 32 ? 32 / BX : 1);
    const size_t smem = sizeof(double) * 2 * BX *
                        (MODE == kFlat ? Q : MODE == kShufFlat4 ? G + 1 : MODE >= kFlat8 ? Q + 1 : G + (MODE == kCluster ? Y : 0));
    const dim3 grid(n / (2 * BX), Y), block(BX, Q);
    if (MODE != kCluster) {
        gemv_n<U, MODE, VAR><<<grid, block, smem>>>(n, A, x, beta, y, scratch);
        return;
    }
    static bool opted = false;
    if (!opted) {
        CHECK(cudaFuncSetAttribute(gemv_n<U, MODE, VAR>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
        opted = true;
    }
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 1;
    attr[0].val.clusterDim.y = Y;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&cfg, gemv_n<U, MODE, VAR>, n, A, x, beta, y, scratch));
}

template <int MODE, int VAR>
void launch_u(int U, int n, int BX, int Q, int Y, const double* A, const double* x, double beta, double* y, double* s) {
    if (U == 4) launch<4, MODE, VAR>(n, BX, Q, Y, A, x, beta, y, s);
    else launch<8, MODE, VAR>(n, BX, Q, Y, A, x, beta, y, s);
}

template <int VAR>
void launch_m(int mode, int U, int n, int BX, int Q, int Y, const double* A, const double* x, double beta, double* y,
              double* s) {
    switch (mode) {
        case kDirect: return launch_u<kDirect, VAR>(U, n, BX, Q, Y, A, x, beta, y, s);
        case kNoRed: return launch_u<kNoRed, VAR>(U, n, BX, Q, Y, A, x, beta, y, s);
        case kFlat: return launch_u<kFlat, VAR>(U, n, BX, Q, Y, A, x, beta, y, s);
        case kAtomic: return launch_u<kAtomic, VAR>(U, n, BX, Q, Y, A, x, beta, y, s);
        case kNoY: return launch_u<kNoY, VAR>(U, n, BX, Q, Y, A, x, beta, y, s);
        case kVecY: return launch_u<kVecY, VAR>(U, n, BX, Q, Y, A, x, beta, y, s);
        case kFlat8: return launch_u<kFlat8, VAR>(U, n, BX, Q, Y, A, x, beta, y, s);
        case kFlat32: return launch_u<kFlat32, VAR>(U, n, BX, Q, Y, A, x, beta, y, s);
        case kShufFlat4: return launch_u<kShufFlat4, VAR>(U, n, BX, Q, Y, A, x, beta, y, s);
        default: return launch_u<kCluster, VAR>(U, n, BX, Q, Y, A, x, beta, y, s);
    }
}

void launch_any(int var, int mode, int U, int n, int BX, int Q, int Y, const double* A, const double* x, double beta,
                double* y, double* s) {
    switch (var) {
        case 0: return launch_m<0>(mode, U, n, BX, Q, Y, A, x, beta, y, s);
        case 1: return launch_m<1>(mode, U, n, BX, Q, Y, A, x, beta, y, s);
        case 2: return launch_m<2>(mode, U, n, BX, Q, Y, A, x, beta, y, s);
        default: return launch_m<3>(mode, U, n, BX, Q, Y, A, x, beta, y, s);
    }
}

template <int UR>
__global__ void __launch_bounds__(1024) read_kernel(const double2* __restrict__ a, long long n2, double* out) {
    const long long T = static_cast<long long>(gridDim.x) * blockDim.x;
    long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    double s = 0;
    for (; i + (UR - 1) * T < n2; i += UR * T) {
        double2 v[UR];
#pragma unroll
        for (int k = 0; k < UR; ++k) v[k] = __ldcs(a + i + k * T);
#pragma unroll
        for (int k = 0; k < UR; ++k) s += v[k].x + v[k].y;
    }
    for (; i < n2; i += T) s += __ldcs(a + i).x;
    if (s == 1.2345) out[0] = s;
}

int main(int argc, char** argv) {
    // --load-order: also the VAR 1-3 variants (forced load order, x by shuffles) of every shape.
    const bool load_order = argc > 1 && std::strcmp(argv[1], "--load-order") == 0;
    const std::vector<int> vars = load_order ? std::vector<int>{0, 1, 2, 3} : std::vector<int>{0};
    int dev = 0, sms = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, dev));
    Flush flush;
    const int nmax = 8192;
    const size_t elems = static_cast<size_t>(nmax) * nmax;
    std::vector<double> hA(elems), hx(nmax), hy(nmax);
    unsigned s = 12345u;
    auto rnd = [&] { s = s * 1664525u + 1013904223u; return (static_cast<double>(s >> 8) / 16777216.0) - 0.5; };
    for (auto& v : hA) v = rnd();
    for (auto& v : hx) v = rnd();
    for (auto& v : hy) v = rnd();
    double *A, *x, *y, *y0, *scratch;
    CHECK(cudaMalloc(&A, elems * sizeof(double)));
    CHECK(cudaMalloc(&x, nmax * sizeof(double)));
    CHECK(cudaMalloc(&y, nmax * sizeof(double)));
    CHECK(cudaMalloc(&y0, nmax * sizeof(double)));
    CHECK(cudaMalloc(&scratch, 4 * 1024 * 1024 * sizeof(double)));
    CHECK(cudaMemcpy(x, hx.data(), nmax * sizeof(double), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(y0, hy.data(), nmax * sizeof(double), cudaMemcpyHostToDevice));
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) { std::fprintf(stderr, "cublasCreate failed\n"); return 1; }
    const double beta = 0.75, one = 1.0;
    std::printf("double GEMV-N probe on %s (%d SMs); write flush before every call; median of 31 (us)\n", prop.name, sms);
    std::printf("%6s %-8s %4s %4s %3s %2s %3s %6s %9s %9s\n", "n", "variant", "BX", "Q", "Y", "U", "var", "blocks", "us", "relerr");
    const int reps = 31;
    for (int n : {1024, 2048, 4096, 8192}) {
        // A as an n x n matrix with lda = n: the first n*n values of hA.
        CHECK(cudaMemcpy(A, hA.data(), static_cast<size_t>(n) * n * sizeof(double), cudaMemcpyHostToDevice));
        std::vector<double> ref(n);
        for (int i = 0; i < n; ++i) ref[i] = beta * hy[i];
        for (int jj = 0; jj < n; ++jj)
            for (int i = 0; i < n; ++i) ref[i] += hA[static_cast<size_t>(jj) * n + i] * hx[jj];
        auto relerr = [&] {
            std::vector<double> got(n);
            CHECK(cudaMemcpy(got.data(), y, n * sizeof(double), cudaMemcpyDeviceToHost));
            double num = 0, den = 0;
            for (int i = 0; i < n; ++i) { num += (got[i] - ref[i]) * (got[i] - ref[i]); den += ref[i] * ref[i]; }
            return std::sqrt(num / den);
        };
        auto reset_y = [&] { CHECK(cudaMemcpy(y, y0, n * sizeof(double), cudaMemcpyDeviceToDevice)); };
        const long long n2 = static_cast<long long>(n) * n / 2;
        double us = median_us([&] { read_kernel<2><<<2 * sms, 1024>>>(reinterpret_cast<const double2*>(A), n2, scratch); }, flush, reps);
        std::printf("%6d %-8s %4d %4d %3s %2d %3s %6d %9.2f %9s\n", n, "read", 1024, 1, "-", 2, "-", 2 * sms, us, "-");
        us = median_us([&] { read_kernel<4><<<4 * sms, 512>>>(reinterpret_cast<const double2*>(A), n2, scratch); }, flush, reps);
        std::printf("%6d %-8s %4d %4d %3s %2d %3s %6d %9.2f %9s\n", n, "read", 512, 1, "-", 4, "-", 4 * sms, us, "-");
        reset_y();
        us = median_us([&] { cublasDgemv(h, CUBLAS_OP_N, n, n, &one, A, n, x, 1, &beta, y, 1); }, flush, reps);
        reset_y();
        cublasDgemv(h, CUBLAS_OP_N, n, n, &one, A, n, x, 1, &beta, y, 1);
        std::printf("%6d %-8s %4s %4s %3s %2s %3s %6s %9.2f %9.1e\n", n, "cublas", "-", "-", "-", "-", "-", "-", us, relerr());
        const int shapes[][2] = {{8, 64}, {16, 32}, {8, 32}, {32, 16}, {32, 8}};
        for (int pass = 0; pass < 2; ++pass)
            for (const auto& sh : shapes)
                for (int Y : {1, 2})
                    for (int U : {8})
                        for (int var : vars)
                            for (int mode : {kDirect, kNoRed, kFlat, kFlat8, kFlat32, kShufFlat4, kCluster}) {
                                const int BX = sh[0], Q = sh[1];
                                if (mode >= kFlat8) {
                                    const int P = mode == kFlat8 ? 8 : mode == kFlat32 ? 32 : 4;
                                    const int rows = mode == kShufFlat4 ? Q / (BX < 32 ? 32 / BX : 1) : Q;
                                    if (2 * BX * P > BX * Q || (2 * BX * P) % 32 != 0 || P > rows) continue;
                                }
                                if ((mode == kCluster) != (Y == 2)) continue;
                                if ((var & 2) && U * (BX < 32 ? 32 / BX : 1) > 32) continue;
                                if (n % (Q * Y * U) != 0) continue;
                                const int blocks = n / (2 * BX) * Y;
                                us = median_us([&] { launch_any(var, mode, U, n, BX, Q, Y, A, x, beta, y, scratch); },
                                               flush, reps);
                                CHECK(cudaGetLastError());
                                std::string err = "-";
                                if (mode != kNoRed) {
                                    reset_y();
                                    launch_any(var, mode, U, n, BX, Q, Y, A, x, beta, y, scratch);
                                    CHECK(cudaDeviceSynchronize());
                                    char buf[32];
                                    std::snprintf(buf, sizeof buf, "%.1e", relerr());
                                    err = buf;
                                }
                                std::printf("%6d %-8s %4d %4d %3d %2d %3d %6d %9.2f %9s\n", n, mode_name[mode], BX, Q, Y,
                                            U, var, blocks, us, err.c_str());
                            }
    }
    CHECK(cudaDeviceSynchronize());
    cublasDestroy(h);
    return 0;
}
