// symv_offset_probe.cu — the tuned SYMV on submatrices A(k:, k:) of one 16384 lower matrix at
// chosen offsets k, in both precisions (L2 flushed before every call, median of 15), so that an
// alignment effect the submatrix experiment shows (ch05_unrolled --shapes --op symv) can be timed
// against a variant of the tuned step in one run. WB_PROBE_REPEAT runs the offset list that many times.
//
// Build (repository root; a configured build folder, e.g. after ./workbook test):
//   cmake --build build --target symv_offset_probe      (scripts/probes/CMakeLists.txt: the libraries this
//   configuration found; a changed copy of a kernel: -DWB_PROBE_VARIANT=/abs/path/copy.cu)
// Run: ./build/bin/symv_offset_probe [--offsets 0,16,32,48,64] [--parent 16384]
#include "symv_operands.cuh"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

template <class T>
void run(int parent, const std::vector<int>& offsets, const Flush& flush, int repeat) {
    const char* prec = sizeof(T) == 4 ? "float" : "double";
    SymvOperands<T> op(static_cast<size_t>(parent) * parent, parent);
    for (int r = 0; r < repeat; ++r)
        for (int k : offsets) {
            const int n = parent - k;
            const wb::SymvArgs<T> a = op.args(wb::Uplo::Lower, n, op.A + static_cast<size_t>(k) * parent + k, parent);
            const wb::SymvLaunch det = wb::tuned::symv_default(a);
            const double us = median_us([&] { wb::tuned::symv<T>(a, det, nullptr); }, flush, 15);
            const double bytes = sizeof(T) * (0.5 * n * (n + 1.0) + 3.0 * n);
            std::printf("%-6s k=%3d n=%5d shift=%2d  %8.1f us %7.1f GB/s  (%s)\n", prec, k, n,
                        wb::tuned::symv_origin_shift(a.A, a.lda, det.nb), us, bytes / us / 1e3, det.str().c_str());
        }
}

}  // namespace

int main(int argc, char** argv) {
    int parent = 16384;
    std::vector<int> offsets = {0, 16, 31, 32, 48, 63, 64, 96};
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--parent") == 0) parent = std::atoi(argv[++i]);
        else if (std::strcmp(argv[i], "--offsets") == 0) offsets = int_list(argv[++i]);
    }
    const char* rep = std::getenv("WB_PROBE_REPEAT");
    const int repeat = rep ? std::max(1, std::atoi(rep)) : 1;
    cudaDeviceProp p{};
    CHECK(cudaGetDeviceProperties(&p, 0));
    std::printf("%s, %d SMs\n", p.name, p.multiProcessorCount);
    Flush flush;
    run<float>(parent, offsets, flush, repeat);
    run<double>(parent, offsets, flush, repeat);
}
