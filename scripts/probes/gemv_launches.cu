// gemv_launches.cu — the tuned GEMV's explicit launches against its default and cuBLAS, on the
// shapes of the shape benchmark that stay below 0.85x cuBLAS (issue 14):
//   N 579 x 57900 (lda = 579: element loads, 19 tiles of 32 rows, the last one 3 rows), float and
//   double; T 64 x 10^6 double (short columns of 512 bytes).
// Each launch is timed after the workbook's L2 flush (median of event-timed calls), its result
// checked against a float64 host reference (max relative error over y); launches the step rejects
// are printed as `illegal` with the step's message.
//
// Build (repository root; a configured build folder, e.g. after ./workbook test):
//   cmake --build build --target gemv_launches      (scripts/probes/CMakeLists.txt: the libraries this
//   configuration found; a changed copy of a kernel: -DWB_PROBE_VARIANT=/abs/path/copy.cu)
// Run: ./build/bin/gemv_launches
#include "probe_timing.cuh"

#include "gemv.hpp"

#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using namespace wb;

template <class T>
struct Case {
    Op op;
    int m, n, lda;
    std::vector<GemvLaunch> launches;  // the default (all zero) is added first
};

GemvLaunch L(int bx, int by, int nb, int Y, int ept, int loop = 0, int cluster = 0) {
    GemvLaunch l;
    l.block_x = bx;
    l.block_y = by;
    l.nb = nb;
    l.Q = by;
    l.Y = Y;
    l.ept = ept;
    l.loop = loop;
    l.cluster = cluster;
    return l;
}

template <class T>
void run(const Case<T>& c, const Flush& flush) {
    const int ly = c.op == Op::N ? c.m : c.n, lx = c.op == Op::N ? c.n : c.m;
    const size_t elems = static_cast<size_t>(c.lda) * c.n;
    std::mt19937_64 g(42);
    std::uniform_real_distribution<double> d(-1, 1);
    std::vector<T> hA(elems), hx(lx), hy0(ly);
    for (auto& v : hA) v = static_cast<T>(d(g));
    for (auto& v : hx) v = static_cast<T>(d(g));
    for (auto& v : hy0) v = static_cast<T>(d(g));
    // beta = 0.5, as the chapter's benchmark: with beta = 0 a kernel that reads y late looks fine
    // (the short-column T kernel did: 1.03x cuBLAS here, 0.82x in the shape set).
    const T beta = T(0.5);
    std::vector<double> ref(ly);
    for (int i = 0; i < ly; ++i) ref[i] = static_cast<double>(beta) * hy0[i];
    for (int j = 0; j < c.n; ++j)
        for (int i = 0; i < c.m; ++i) {
            const double a = hA[static_cast<size_t>(j) * c.lda + i];
            if (c.op == Op::N) ref[i] += a * hx[j];
            else ref[j] += a * hx[i];
        }
    T *A, *x, *y;
    CHECK(cudaMalloc(&A, elems * sizeof(T)));
    CHECK(cudaMalloc(&x, lx * sizeof(T)));
    CHECK(cudaMalloc(&y, ly * sizeof(T)));
    CHECK(cudaMemcpy(A, hA.data(), elems * sizeof(T), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(x, hx.data(), lx * sizeof(T), cudaMemcpyHostToDevice));
    GemvArgs<T> a;
    a.op = c.op;
    a.m = c.m;
    a.n = c.n;
    a.A = A;
    a.lda = c.lda;
    a.x = x;
    a.y = y;
    a.alpha = 1;
    a.beta = beta;
    const double bytes = static_cast<double>(c.m) * c.n * sizeof(T);
    const GemvLaunch def = tuned_gemv_default_launch(gemv_shape(a), gemv_machine_of_current_device());
    const double t_cublas = median_us([&] { peer::gemv<T>(a, GemvLaunch{}, nullptr); }, flush, 30);
    std::printf("\n%s %s %d x %d lda %d: cuBLAS %.1f us %.0f GB/s; default %s\n", sizeof(T) == 4 ? "float" : "double",
                c.op == Op::N ? "N" : "T", c.m, c.n, c.lda, t_cublas, bytes / t_cublas / 1e3, def.str().c_str());
    std::vector<GemvLaunch> all{GemvLaunch{}};
    all.insert(all.end(), c.launches.begin(), c.launches.end());
    std::vector<T> hy(ly);
    for (const GemvLaunch& l : all) {
        const std::string name = l == GemvLaunch{} ? "default" : l.str();
        try {
            CHECK(cudaMemcpy(y, hy0.data(), ly * sizeof(T), cudaMemcpyHostToDevice));  // y is read: beta != 0
            tuned::gemv<T>(a, l, nullptr);
            CHECK(cudaDeviceSynchronize());
            CHECK(cudaMemcpy(hy.data(), y, ly * sizeof(T), cudaMemcpyDeviceToHost));
            double err = 0;
            for (int i = 0; i < ly; ++i) {
                const double e = std::fabs(hy[i] - ref[i]) / (std::fabs(ref[i]) + 1.0);
                err = std::isnan(e) ? INFINITY : std::max(err, e);
            }
            const double t = median_us([&] { tuned::gemv<T>(a, l, nullptr); }, flush, 30);
            std::printf("  %-52s %8.1f us %6.0f GB/s %5.2fx cuBLAS  err %.1e\n", name.c_str(), t, bytes / t / 1e3,
                        t_cublas / t, err);
        } catch (const std::exception& e) {
            cudaGetLastError();
            std::printf("  %-52s illegal: %.150s\n", name.c_str(), e.what());
        }
    }
    CHECK(cudaFree(A));
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
}

int main() {
    Flush flush;
    for (int prec = 0; prec < 2; ++prec) {
        // N 579 x 57900: the default's own launch with each split finish; tile widths 32 ... 128
        // rows; 256- and 512-thread blocks; Y around one wave; the unroll U at its largest (float
        // 16, double 8) and half of it. The default is timed again last (order effects).
        const int u = prec == 0 ? 16 : 8, h = u / 2;
        std::vector<GemvLaunch> n = {L(32, 16, 4, 7, u, 0, 1), L(32, 16, 4, 7, u, 0, 2), L(32, 16, 4, 7, h, 0, 1),
                                     L(32, 16, 4, 7, h, 0, 2), L(32, 16, 4, 6, u, 0, 1), L(32, 16, 4, 8, u, 0, 1),
                                     L(32, 8, 4, 13, u),       L(32, 8, 4, 14, u),       L(32, 8, 4, 14, h),
                                     L(64, 8, 4, 13, u),       L(64, 4, 4, 26, u),       L(128, 4, 4, 26, u),
                                     L(128, 4, 4, 26, h),      L(128, 2, 4, 53, u),      GemvLaunch{}};
        if (prec == 0) run<float>({Op::N, 579, 57900, 579, n}, flush);
        else run<double>({Op::N, 579, 57900, 579, n}, flush);
    }
    // T 64 x 10^6 double: the default (16 lanes per column, C = 4) against 8 lanes and the looping
    // kernel, then the default again.
    std::vector<GemvLaunch> t = {L(16, 16, 2, 1, 0), L(8, 32, 2, 1, 0), L(8, 32, 8, 1, 0), L(16, 16, 4, 1, 0, 1),
                                 GemvLaunch{}};
    run<double>({Op::T, 64, 1000000, 64, t}, flush);
    return 0;
}
