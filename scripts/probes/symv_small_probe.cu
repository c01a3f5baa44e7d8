// symv_small_probe.cu — where reading the triangle twice in one kernel (kernels/tuned/symv_small.cuh)
// beats the tuned SYMV's two kernels (the KBLAS walk, then the deterministic pass): both timed side by
// side at small n (L2 flushed before every call, median of 25), and the small kernel's y checked
// against the tuned step's (max relative difference; the tests compare both with a float64 reference).
//
// Build (repository root; a configured build folder, e.g. after ./workbook test):
//   cmake --build build --target symv_small_probe      (scripts/probes/CMakeLists.txt: the libraries this
//   configuration found; a changed copy of a kernel: -DWB_PROBE_VARIANT=/abs/path/copy.cu)
// Run: ./build/bin/symv_small_probe [--sizes 256,1024,2048,4096]
#include "symv_operands.cuh"

#include "tuned/symv_small.cuh"

#ifndef WB_PROBE_ROWS
#define WB_PROBE_ROWS 8  // rows per block (-DWB_PROBE_ROWS=16: the 16-row panels)
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

template <class T>
void small_symv(const wb::SymvArgs<T>& a) {
    constexpr int R = WB_PROBE_ROWS;
    const int blocks = (a.n + R - 1) / R;
    wb::tuned::small::symv_kernel<T, R><<<blocks, wb::tuned::small::kThreads>>>(a.uplo == wb::Uplo::Lower, a.n, a.alpha,
                                                                                 a.A, a.lda, a.x, a.beta, a.y);
}

template <class T>
void run(int n, const Flush& flush) {
    const char* prec = sizeof(T) == 4 ? "float" : "double";
    const int lda = n + 3;  // not a multiple of anything
    SymvOperands<T> op(static_cast<size_t>(lda) * n, n);
    T* y0;
    CHECK(cudaMalloc(&y0, n * sizeof(T)));
    CHECK(cudaMemcpy(y0, op.y, n * sizeof(T), cudaMemcpyDeviceToDevice));
    for (wb::Uplo up : {wb::Uplo::Lower, wb::Uplo::Upper}) {
        wb::SymvArgs<T> a = op.args(up, n, op.A, lda);
        const wb::SymvLaunch det = wb::tuned::symv_default(a);
        // Correctness: both from the same y.
        std::vector<T> ys(n), yt(n);
        CHECK(cudaMemcpy(op.y, y0, n * sizeof(T), cudaMemcpyDeviceToDevice));
        small_symv<T>(a);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(ys.data(), op.y, n * sizeof(T), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(op.y, y0, n * sizeof(T), cudaMemcpyDeviceToDevice));
        wb::tuned::symv<T>(a, det, nullptr);
        CHECK(cudaMemcpy(yt.data(), op.y, n * sizeof(T), cudaMemcpyDeviceToHost));
        double err = 0, scale = 0;
        for (int i = 0; i < n; ++i) {
            err = std::max(err, std::abs(static_cast<double>(ys[i]) - yt[i]));
            scale = std::max(scale, std::abs(static_cast<double>(yt[i])));
        }
        const double t_tuned = median_us([&] { wb::tuned::symv<T>(a, det, nullptr); }, flush, 25);
        const double t_small = median_us([&] { small_symv<T>(a); }, flush, 25);
        std::printf("%-6s %c %6d  tuned %7.2f us  small %7.2f us  small/tuned %5.2fx  max |diff| / max |y| %.1e  (%s)\n",
                    prec, wb::uplo_char(up), n, t_tuned, t_small, t_tuned / t_small, err / std::max(scale, 1e-300),
                    det.str().c_str());
    }
    CHECK(cudaFree(y0));
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<int> sizes = {128, 256, 512, 1000, 1024, 1536, 2048, 3000, 4096, 6144};
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) sizes = int_list(argv[++i]);
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    std::printf("%s, %d SMs; lda = n + 3\n", p.name, p.multiProcessorCount);
    Flush flush;
    for (int n : sizes) {
        run<float>(n, flush);
        run<double>(n, flush);
    }
    return 0;
}
