// gemm_bench.cu — the GEMM ladder side by side with cuBLAS (CUBLAS_PEDANTIC_MATH) in one run.
//
// Exploration for the tuned step (chapter 5), outside the teaching kernels: it calls the ladder's
// launchers (kernels/<stage>/gemm.cu) directly, without the registry, and
//   1. checks every step and cuBLAS on odd shapes x NN/NT/TN/TT x float/double, with ld > rows
//      and base pointers offset by one element, against a float64 host reference (all elements);
//   2. times each step (CUDA events, median of the repetitions, no L2 flush: compute-bound) on
//      NN and TN at 1024, 2048, 4096, 4097, 6000, 8192 and rectangular shapes (short k, long k,
//      tall-skinny), prints GFLOP/s and the ratio to cuBLAS, and checks sampled columns of the
//      tuned result against a float64 reference; every legal tuned configuration is timed too;
//   3. prints the geometric mean of tuned / cuBLAS over the shape set.
// The slow steps (naive .. access) are timed only up to 4096.
//
// Build (repository root; a configured build folder, e.g. after ./workbook test):
//   cmake --build build --target gemm_bench      (scripts/probes/CMakeLists.txt)
// Run: ./build/bin/gemm_bench [--quick] [--tuned-only] [--large] [--beta B] [--opb-t: time NT and TT] | --profile (one tuned and one cuBLAS call, NN and TN 4096, for ncu)
//      | --sustain (NN 8192, float and double, tuned and cuBLAS: back-to-back calls for 2 s each, the rate
//        of the first calls against the last: does the card's clock fall under a GEMM's sustained load?)
// Variants of the largest float configuration: pre-include a header defining
// WB_GEMM_PROBE_F256 as BM, BN, BK, WM, WN, TM, TN, STAGES, MIN_BLOCKS (nvcc -include v.h; a -D value
// cannot hold the commas) and link that build of kernels/tuned/gemm.cu first: gemm_variants.sh.
#include "gemm.hpp"
#include "check.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace wb::tuned {
template <class T> std::vector<GemmLaunch> gemm_configs();
template <class T> GemmLaunch gemm_default(const GemmArgs<T>&);
}  // namespace wb::tuned

using namespace wb;

template <class T>
using Launcher = void (*)(const GemmArgs<T>&, const GemmLaunch&, cudaStream_t);

template <class T>
struct NamedStep {
    const char* name;
    Launcher<T> fn;
};

template <class T>
std::vector<NamedStep<T>> steps() {
    return {{"naive", naive::gemm<T>},   {"shared", shared::gemm<T>}, {"pattern", pattern::gemm<T>},
            {"access", access::gemm<T>}, {"tuned", tuned::gemm<T>},   {"cublas", peer::gemm<T>}};
}

template <class T>
void fill(std::vector<T>& v, std::mt19937_64& g) {
    std::uniform_real_distribution<double> u(0.125, 1.0);
    std::bernoulli_distribution s(0.5);
    for (auto& x : v) x = static_cast<T>(s(g) ? u(g) : -u(g));
}

// One column-major problem with padding (NaN) and a base offset.
template <class T>
struct Prob {
    Op oa, ob;
    int m, n, k, lda, ldb, ldc, off;
    T alpha, beta;
    std::vector<T> hA, hB, hC;
    T *A = nullptr, *B = nullptr, *C = nullptr;
    Prob(Op oa_, Op ob_, int m_, int n_, int k_, int pad, int off_, T al, T be, std::uint64_t seed)
        : oa(oa_), ob(ob_), m(m_), n(n_), k(k_), off(off_), alpha(al), beta(be) {
        const int ra = oa == Op::N ? m : k, ca = oa == Op::N ? k : m;
        const int rb = ob == Op::N ? k : n, cb = ob == Op::N ? n : k;
        lda = std::max(1, ra + pad);
        ldb = std::max(1, rb + pad);
        ldc = std::max(1, m + pad);
        std::mt19937_64 g(seed);
        hA.assign(size_t(lda) * ca + off, T(0));
        hB.assign(size_t(ldb) * cb + off, T(0));
        hC.assign(size_t(ldc) * n + off, T(0));
        fill(hA, g);
        fill(hB, g);
        fill(hC, g);
        const T nan = std::numeric_limits<T>::quiet_NaN();
        for (int j = 0; j < ca; ++j) for (int i = ra; i < lda; ++i) hA[off + size_t(j) * lda + i] = nan;
        for (int j = 0; j < cb; ++j) for (int i = rb; i < ldb; ++i) hB[off + size_t(j) * ldb + i] = nan;
        WB_CUDA(cudaMalloc(&A, hA.size() * sizeof(T)));
        WB_CUDA(cudaMalloc(&B, hB.size() * sizeof(T)));
        WB_CUDA(cudaMalloc(&C, hC.size() * sizeof(T)));
        WB_CUDA(cudaMemcpy(A, hA.data(), hA.size() * sizeof(T), cudaMemcpyHostToDevice));
        WB_CUDA(cudaMemcpy(B, hB.data(), hB.size() * sizeof(T), cudaMemcpyHostToDevice));
        reset_c();
    }
    ~Prob() { cudaFree(A); cudaFree(B); cudaFree(C); }
    void reset_c() {
        if (beta == T(0)) WB_CUDA(cudaMemset(C, 0xFF, hC.size() * sizeof(T)));
        else WB_CUDA(cudaMemcpy(C, hC.data(), hC.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    GemmArgs<T> args() const {
        GemmArgs<T> a;
        a.op_a = oa; a.op_b = ob; a.m = m; a.n = n; a.k = k; a.alpha = alpha;
        a.A = A + off; a.lda = lda; a.B = B + off; a.ldb = ldb; a.beta = beta; a.C = C + off; a.ldc = ldc;
        return a;
    }
    double opa(int i, int p) const { return oa == Op::N ? hA[off + i + size_t(p) * lda] : hA[off + p + size_t(i) * lda]; }
    double opb(int p, int j) const { return ob == Op::N ? hB[off + p + size_t(j) * ldb] : hB[off + j + size_t(p) * ldb]; }
    // ||C - ref|| / ||scale|| over the given columns (scale = |alpha||A||B| + |beta||C|); inf on NaN.
    double error(const std::vector<int>& cols) const {
        std::vector<T> out(hC.size());
        WB_CUDA(cudaMemcpy(out.data(), C, out.size() * sizeof(T), cudaMemcpyDeviceToHost));
        double num = 0, den = 0;
        std::vector<double> ref(m), sc(m);
        for (int j : cols) {
            std::fill(ref.begin(), ref.end(), 0.0);
            std::fill(sc.begin(), sc.end(), 0.0);
            for (int p = 0; p < k; ++p) {
                const double b = opb(p, j);
                for (int i = 0; i < m; ++i) {
                    const double a = opa(i, p);
                    ref[i] += a * b;
                    sc[i] += std::abs(a * b);
                }
            }
            for (int i = 0; i < m; ++i) {
                const double c0 = hC[off + i + size_t(j) * ldc];
                const double r = alpha * ref[i] + (beta != T(0) ? beta * c0 : 0.0);
                const double s = std::abs(alpha) * sc[i] + (beta != T(0) ? std::abs(beta * c0) : 0.0);
                const double o = out[off + i + size_t(j) * ldc];
                if (!std::isfinite(o)) return INFINITY;
                num += (o - r) * (o - r);
                den += s * s;
            }
        }
        return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
    }
};

template <class T>
double median_ms(Launcher<T> fn, const GemmArgs<T>& a, const GemmLaunch& l, int reps) {
    cudaEvent_t e0, e1;
    WB_CUDA(cudaEventCreate(&e0));
    WB_CUDA(cudaEventCreate(&e1));
    for (int w = 0; w < 2; ++w) fn(a, l, nullptr);
    std::vector<float> t;
    for (int r = 0; r < reps; ++r) {
        WB_CUDA(cudaEventRecord(e0));
        fn(a, l, nullptr);
        WB_CUDA(cudaEventRecord(e1));
        WB_CUDA(cudaEventSynchronize(e1));
        float ms = 0;
        WB_CUDA(cudaEventElapsedTime(&ms, e0, e1));
        t.push_back(ms);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

/// Back-to-back calls for about `seconds`, each timed by its own event pair (no host wait between
/// them): prints the rate of calls 2-4 (after one warm-up) and of the last three, and the ratio.
/// A clock that falls under sustained power shows as a rate that falls from the first calls to
/// the last; compare with nvidia-smi's clocks.sm sampled beside the run.
template <class T>
void sustain_one(const char* name, Launcher<T> fn, const GemmArgs<T>& a, double flops, double seconds) {
    fn(a, {}, nullptr);
    WB_CUDA(cudaDeviceSynchronize());
    cudaEvent_t probe0, probe1;
    WB_CUDA(cudaEventCreate(&probe0));
    WB_CUDA(cudaEventCreate(&probe1));
    WB_CUDA(cudaEventRecord(probe0));
    fn(a, {}, nullptr);
    WB_CUDA(cudaEventRecord(probe1));
    WB_CUDA(cudaEventSynchronize(probe1));
    float one = 0;
    WB_CUDA(cudaEventElapsedTime(&one, probe0, probe1));
    const int calls = std::max(8, static_cast<int>(seconds * 1e3 / std::max(one, 0.01f)));
    std::vector<cudaEvent_t> ev(static_cast<size_t>(calls) + 1);
    for (auto& e : ev) WB_CUDA(cudaEventCreate(&e));
    WB_CUDA(cudaEventRecord(ev[0]));
    for (int c = 0; c < calls; ++c) {
        fn(a, {}, nullptr);
        WB_CUDA(cudaEventRecord(ev[c + 1]));
    }
    WB_CUDA(cudaEventSynchronize(ev[calls]));
    std::vector<float> ms(static_cast<size_t>(calls));
    for (int c = 0; c < calls; ++c) WB_CUDA(cudaEventElapsedTime(&ms[c], ev[c], ev[c + 1]));
    auto rate = [&](int from, int to) {  // GFLOP/s over calls [from, to)
        double t = 0;
        for (int c = from; c < to; ++c) t += ms[c];
        return flops * (to - from) / t / 1e6;
    };
    const double first = rate(0, 3), last = rate(calls - 3, calls);
    float total = 0;
    WB_CUDA(cudaEventElapsedTime(&total, ev[0], ev[calls]));
    std::printf("  %-14s %4d calls in %6.0f ms: first 3 %8.0f GFLOP/s, last 3 %8.0f GFLOP/s, last/first %.3f\n", name,
                calls, total, first, last, last / first);
    std::fflush(stdout);
    for (auto& e : ev) cudaEventDestroy(e);
    cudaEventDestroy(probe0);
    cudaEventDestroy(probe1);
}

template <class T>
void sustain(double seconds) {
    Prob<T> p(Op::N, Op::N, 8192, 8192, 8192, 0, 0, T(1.5), T(0), 11);
    const double flops = 2.0 * 8192 * 8192 * 8192;
    std::printf("%s NN 8192, sustained:\n", sizeof(T) == 4 ? "float" : "double");
    sustain_one<T>("tuned", tuned::gemm<T>, p.args(), flops, seconds);
    sustain_one<T>("cuBLAS", peer::gemm<T>, p.args(), flops, seconds);
}

int g_fail = 0;
bool g_tuned_only = false;  // --tuned-only: check and time only the tuned step and cuBLAS
bool g_large = false;        // --large: time only 4096 and 8192 (with --tuned-only), for probes of the big tile
double g_beta = 0;           // --beta B: the timed calls' beta (0: C is not read; the chapters time 0.5)
bool g_opb_t = false;        // --opb-t: time op(B) = B^T (NT and TT) instead of op(B) = B (NN and TN)

template <class T>
void correctness() {
    const char* prec = sizeof(T) == 4 ? "float" : "double";
    const double tol_base = sizeof(T) == 4 ? 8 * 1.19e-7 : 8 * 2.2e-16;
    struct S { int m, n, k, pad, off; };
    const S shapes[] = {{1, 1, 1, 0, 0}, {37, 53, 19, 3, 1}, {129, 65, 200, 0, 1}, {257, 300, 131, 5, 0},
                        {128, 128, 16, 0, 0}, {200, 1, 77, 1, 1}, {1, 300, 33, 0, 0}, {513, 259, 1, 2, 0}};
    for (auto st : steps<T>())
        if (!g_tuned_only || std::strcmp(st.name, "tuned") == 0)
        for (Op oa : {Op::N, Op::T})
            for (Op ob : {Op::N, Op::T})
                for (auto s : shapes)
                    for (T beta : {T(0.5), T(0)}) {
                        Prob<T> p(oa, ob, s.m, s.n, s.k, s.pad, s.off, T(1.5), beta, 1234 + s.m + s.k);
                        std::vector<GemmLaunch> ls = {GemmLaunch{}};
                        if (std::strcmp(st.name, "tuned") == 0) ls = tuned::gemm_configs<T>();
                        for (auto& l : ls) {
                            p.reset_c();
                            st.fn(p.args(), l, nullptr);
                            WB_CUDA(cudaDeviceSynchronize());
                            std::vector<int> cols(s.n);
                            for (int j = 0; j < s.n; ++j) cols[j] = j;
                            const double e = p.error(cols);
                            const double tol = tol_base * std::sqrt(double(s.k + 1));
                            if (!(e <= tol)) {
                                ++g_fail;
                                std::printf("FAIL %s %s %c%c m=%d n=%d k=%d pad=%d off=%d beta=%g %s: err %.3g tol %.3g\n",
                                            prec, st.name, op_char(oa), op_char(ob), s.m, s.n, s.k, s.pad, s.off,
                                            double(beta), l.str().c_str(), e, tol);
                            }
                        }
                    }
    std::printf("correctness %s: %d failures so far\n", prec, g_fail);
}

struct Shape { int m, n, k; const char* tag; };

template <class T>
void timing(bool quick) {
    const bool f = sizeof(T) == 4;
    std::vector<Shape> shapes = {{1024, 1024, 1024, "1024"},  {2048, 2048, 2048, "2048"},
                                 {4096, 4096, 4096, "4096"},  {4097, 4097, 4097, "4097"},
                                 {6000, 6000, 6000, "6000"},  {8192, 8192, 8192, "8192"},
                                 {4096, 4096, 256, "short k"}, {1024, 1024, 16384, "long k"},
                                 {16384, 256, 4096, "tall-skinny"}};
    if (!f) shapes = {{2048, 2048, 2048, "2048"}, {4096, 4096, 4096, "4096"}};
    if (quick && shapes.size() > 3) shapes.resize(3);  // never grow: a default Shape has n = 0 (g() % n below)
    if (g_large) shapes = {{4096, 4096, 4096, "4096"}, {8192, 8192, 8192, "8192"}};
    double log_sum[2] = {0, 0};
    int cnt[2] = {0, 0};
    std::printf("\n%s: GFLOP/s (x cuBLAS)\n", f ? "float" : "double");
    std::printf("%-12s %-2s %14s %14s %14s %14s %14s %9s | tuned configs\n", "shape", "op", "naive", "shared",
                "pattern", "access", "tuned", "cublas");
    for (auto sh : shapes)
        for (Op oa : {Op::N, Op::T}) {
            const Op ob = g_opb_t ? Op::T : Op::N;
            Prob<T> p(oa, ob, sh.m, sh.n, sh.k, 0, 0, T(1.5), T(g_beta), 99);
            const GemmArgs<T> a = p.args();
            const double flops = 2.0 * sh.m * sh.n * sh.k;
            const int reps = flops > 5e11 ? 7 : 15;
            auto st = steps<T>();
            const double t_cublas = median_ms<T>(peer::gemm<T>, a, {}, reps);
            const double g_cublas = flops / t_cublas / 1e6;
            std::printf("%-12s %c%c", sh.tag, op_char(oa), op_char(ob));
            for (int s = 0; s < 5; ++s) {
                const bool slow = s < 4 && (flops > 2 * 4096.0 * 4096 * 4096 + 1 || sh.k > 8192 || sh.m > 8192);
                if (slow || (!f && s < 2) || (g_tuned_only && s < 4)) {
                    std::printf(" %14s", "-");
                    continue;
                }
                const double t = median_ms<T>(st[s].fn, a, {}, s < 3 ? 3 : reps);
                const double g = flops / t / 1e6;
                std::printf(" %7.0f (%.2f)", g, g / g_cublas);
                if (s == 4) {
                    log_sum[oa == Op::T] += std::log(g / g_cublas);
                    ++cnt[oa == Op::T];
                }
            }
            std::printf(" %9.0f |", g_cublas);
            for (auto& l : tuned::gemm_configs<T>()) {
                const double t = median_ms<T>(tuned::gemm<T>, a, l, reps);
                std::printf(" %dx%d: %.0f (%.2f)", l.tile_m, l.tile_n, flops / t / 1e6, flops / t / 1e6 / g_cublas);
            }
            // sampled columns of the tuned result (default launch) against float64
            p.reset_c();
            tuned::gemm<T>(a, {}, nullptr);
            WB_CUDA(cudaDeviceSynchronize());
            std::vector<int> cols;
            std::mt19937 g(7);
            for (int c = 0; c < 3; ++c) cols.push_back(int(g() % sh.n));
            cols.push_back(sh.n - 1);
            const double e = p.error(cols);
            const double tol = (f ? 8 * 1.19e-7 : 8 * 2.2e-16) * std::sqrt(double(sh.k + 1));
            if (!(e <= tol)) ++g_fail;
            std::printf("  err %.2g%s\n", e, e <= tol ? "" : " FAIL");
            std::fflush(stdout);
        }
    for (int o = 0; o < 2; ++o)
        if (cnt[o])
            std::printf("%s tuned/cublas geometric mean, %cN: %.3f over %d shapes\n", f ? "float" : "double",
                        o ? 'T' : 'N', std::exp(log_sum[o] / cnt[o]), cnt[o]);
}

int main(int argc, char** argv) {
    bool quick = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quick") == 0) quick = true;
        if (std::strcmp(argv[i], "--tuned-only") == 0) g_tuned_only = true;
        if (std::strcmp(argv[i], "--large") == 0) g_large = g_tuned_only = true;
        if (std::strcmp(argv[i], "--opb-t") == 0) g_opb_t = true;
        if (std::strcmp(argv[i], "--beta") == 0 && i + 1 < argc) g_beta = std::atof(argv[++i]);
    }
    if (argc > 1 && std::strcmp(argv[1], "--profile") == 0) {  // one call each, for ncu
        for (Op oa : {Op::N, Op::T}) {
            Prob<float> p(oa, Op::N, 4096, 4096, 4096, 0, 0, 1.5f, 0.f, 5);
            tuned::gemm<float>(p.args(), {}, nullptr);
            peer::gemm<float>(p.args(), {}, nullptr);
            WB_CUDA(cudaDeviceSynchronize());
        }
        return 0;
    }
    cudaDeviceProp prop{};
    WB_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
    if (argc > 1 && std::strcmp(argv[1], "--sustain") == 0) {
        sustain<double>(2.0);
        sustain<float>(2.0);
        return 0;
    }
    try {
        correctness<float>();
        correctness<double>();
        timing<float>(quick);
        if (!g_tuned_only) timing<double>(quick);
    } catch (const std::exception& e) {
        std::printf("exception: %s\n", e.what());
        return 2;
    }
    std::printf("%s: %d failures\n", g_fail ? "FAILED" : "OK", g_fail);
    return g_fail ? 1 : 0;
}
