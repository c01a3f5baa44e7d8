// symv_probe.cu — where the tuned SYMV's time goes at large n: the deterministic default, the same
// launch in atomics mode, a read of the triangle's bytes with no arithmetic (the floor), and
// cuBLAS's two modes, side by side in one run (L2 flushed before every call, median of 15).
// With --once: one call of each (no timing), for `ncu --metrics gpu__time_duration.sum,...`, which
// splits the deterministic call into its SYMV kernel and its reduction pass.
//
// Build (repository root; a configured build folder, e.g. after ./workbook test):
//   cmake --build build --target symv_probe      (scripts/probes/CMakeLists.txt: the libraries this
//   configuration found; a changed copy of a kernel: -DWB_PROBE_VARIANT=/abs/path/copy.cu)
// Run: ./build/bin/symv_probe [--once] [--fast: the tuned step's modes and cuBLAS only] [--sizes 16384,32768]
//        [--y 8,16,32: the deterministic default with each Y too] [--pad P: lda = n + P, default 0]
#include "symv_operands.cuh"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

/// Reads the lower triangle's columns once (16-byte loads where the column allows), no arithmetic
/// but an XOR that keeps the loads: the bytes the SYMV must read, at the card's streaming rate.
template <class T>
__global__ void triangle_read_kernel(const T* A, int n, int lda, unsigned* sink) {
    constexpr int U = 8;  // loads in flight per thread
    unsigned acc = 0;
    for (int j = blockIdx.x; j < n; j += gridDim.x) {
        const T* c = A + static_cast<long long>(j) * lda;
        for (int i0 = j + threadIdx.x; i0 < n; i0 += U * blockDim.x) {
            T v[U];
#pragma unroll
            for (int k = 0; k < U; ++k) {
                const int i = i0 + k * blockDim.x;
                v[k] = i < n ? __ldg(c + i) : T(0);
            }
#pragma unroll
            for (int k = 0; k < U; ++k) acc ^= *reinterpret_cast<const unsigned*>(&v[k]);
        }
    }
    if (acc == 0x9e3779b9u) *sink = acc;
}

template <class T>
void run(int n, bool once, bool fast, const std::vector<int>& ys, int pad) {
    const char* prec = sizeof(T) == 4 ? "float" : "double";
    const int lda = n + pad;
    SymvOperands<T> op(static_cast<size_t>(lda) * n, n);
    unsigned* sink;
    CHECK(cudaMalloc(&sink, sizeof(unsigned)));
    const double bytes = (static_cast<double>(n) * (n + 1) / 2 + 3.0 * n) * sizeof(T);
    Flush flush;
    for (wb::Uplo up : {wb::Uplo::Lower, wb::Uplo::Upper}) {
        const wb::SymvArgs<T> a = op.args(up, n, op.A, lda);
        const wb::SymvLaunch det = wb::tuned::symv_default(a);
        wb::SymvLaunch atom = det;
        atom.atomics = 1;
        wb::SymvLaunch cub_atom;
        cub_atom.atomics = 1;
        struct Row { const char* name; std::function<void()> f; };
        std::vector<Row> rows = {
            {"tuned det", [&] { wb::tuned::symv<T>(a, det, nullptr); }},
            {"tuned atomics", [&] { wb::tuned::symv<T>(a, atom, nullptr); }},
            {"cuBLAS", [&] { wb::peer::symv<T>(a, {}, nullptr); }},
            {"cuBLAS atomics", [&] { wb::peer::symv<T>(a, cub_atom, nullptr); }},
            {"triangle read", [&] { triangle_read_kernel<T><<<8 * 132, 256>>>(op.A, n, lda, sink); }},
        };
        if (fast) rows.resize(3);  // the tuned step's two modes and cuBLAS's default
        std::vector<std::string> names;
        names.reserve(ys.size());  // the rows keep pointers into it
        for (int yb : ys) {
            names.push_back("tuned det Y=" + std::to_string(yb));
            wb::SymvLaunch l = det;
            l.y_blocks = yb;
            rows.push_back({names.back().c_str(), [&a, l] { wb::tuned::symv<T>(a, l, nullptr); }});
        }
        for (auto& r : rows) {
            if (once) {
                r.f();
                CHECK(cudaDeviceSynchronize());
                continue;
            }
            const double us = median_us(r.f, flush, 15);
            std::printf("%-6s %c %6d  %-15s %9.1f us %8.1f GB/s  (%s)\n", prec, wb::uplo_char(up), n, r.name, us,
                        bytes / us / 1e3, det.str().c_str());
        }
    }
    CHECK(cudaFree(sink));
}

}  // namespace

int main(int argc, char** argv) {
    bool once = false, fast = false;
    std::vector<int> sizes = {16384, 32768}, ys;
    int pad = 0;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--once") == 0) once = true;
        if (std::strcmp(argv[i], "--fast") == 0) fast = true;
        if (std::strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) sizes = int_list(argv[++i]);
        if (std::strcmp(argv[i], "--pad") == 0 && i + 1 < argc) pad = std::atoi(argv[++i]);
        if (std::strcmp(argv[i], "--y") == 0 && i + 1 < argc) ys = int_list(argv[++i]);
    }
    cudaDeviceProp p{};
    CHECK(cudaGetDeviceProperties(&p, 0));
    std::printf("%s, %d SMs; lda = n + %d\n", p.name, p.multiProcessorCount, pad);
    for (int n : sizes) {
        run<float>(n, once, fast, ys, pad);
        run<double>(n, once, fast, ys, pad);
    }
    return 0;
}
