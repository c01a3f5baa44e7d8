// symv_read_floor.cu — what the SYMV's "% of the read ceiling" can reach under the workbook's own
// measuring method: the read floor of the stored triangle's bytes (measure_read_floor: the
// fastest of the chapter 0 read kernels over a buffer of that size, L2 flushed before every call,
// as the GEMV chapters' "read A only" rows) beside the tuned SYMV (deterministic default, same
// harness: wb::benchmark with its flush), both as % of the measured read ceiling, which the
// ceilings measure on buffers of more than four L2s and so without a flush before them.
// The flush writes twice the L2, which leaves the L2 full of dirty lines; the timed call writes
// them back as it evicts them (docs/notes/gemv.md, item 12). Run it under both flushes:
//   WB_L2_FLUSH=write (the default) and WB_L2_FLUSH=write_read (the buffer read back: clean lines).
//
// Build (repository root; a configured build folder, e.g. after ./workbook test):
//   cmake --build build --target symv_read_floor      (scripts/probes/CMakeLists.txt: the libraries this
//   configuration found; a changed copy of a kernel: -DWB_PROBE_VARIANT=/abs/path/copy.cu)
// Run: ./build/bin/symv_read_floor [--sizes 4096,8192,16384,32768]
#include "symv_operands.cuh"

#include "bench.hpp"
#include "ceilings.hpp"
#include "memory_lab.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

template <class T>
void run(int n, double ceiling_gbs) {
    const char* prec = sizeof(T) == 4 ? "float" : "double";
    const double triangle = static_cast<double>(n) * (n + 1) / 2 * sizeof(T);
    wb::BenchOptions opt;
    opt.working_set_bytes = static_cast<std::size_t>(triangle);
    const wb::lab::CeilingRow floor = wb::lab::measure_read_floor(opt.working_set_bytes, opt);
    SymvOperands<T> op(static_cast<size_t>(n) * n, n);
    const wb::SymvArgs<T> a = op.args(wb::Uplo::Lower, n, op.A, n);
    const wb::SymvLaunch l = wb::tuned::symv_default(a);
    const wb::BenchStats s = wb::benchmark([&](cudaStream_t st) { wb::tuned::symv<T>(a, l, st); }, opt);
    const double floor_pct = 100.0 * floor.rate / ceiling_gbs;
    const double symv_gbs = triangle / (s.median_ms * 1e6);
    std::printf("%-6s %6d  triangle %8.1f MB  read floor %8.1f us %7.1f GB/s %5.1f%%  (%s)  tuned SYMV L %8.1f us "
                "%7.1f GB/s %5.1f%%  = %.2fx the floor's time\n",
                prec, n, triangle / 1e6, floor.ms * 1e3, floor.rate, floor_pct, floor.shape.c_str(),
                s.median_ms * 1e3, symv_gbs, 100.0 * symv_gbs / ceiling_gbs, s.median_ms / floor.ms);
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<int> sizes = {4096, 8192, 16384, 32768};
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) sizes = int_list(argv[++i]);
    cudaDeviceProp p{};
    CHECK(cudaGetDeviceProperties(&p, 0));
    const char* mode = std::getenv("WB_L2_FLUSH");
    const double ceiling = wb::measured_ceilings().read_gbs;
    std::printf("%s, %d SMs; L2 flush: %s; read ceiling %.1f GB/s (bytes of the triangle only)\n", p.name,
                p.multiProcessorCount, mode && *mode ? mode : "write", ceiling);
    for (int n : sizes) {
        run<float>(n, ceiling);
        run<double>(n, ceiling);
    }
    return 0;
}
