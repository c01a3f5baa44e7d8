// gemm_rule_sweep.cu — how far the tuned GEMM's default rule is from the best of its own launches.
//
// For 65 float shapes (the chapter's nine, the shape set's in-between classes, 40 seeded random
// ones with 2e9 ... 3e11 flops), op(A) = N and T, op(B) = N, beta 0.5, tight leading dimensions:
// the rule's pick, cuBLAS (pedantic FP32), and every configuration x split 1 ... 64 (with the
// rule's align; op(A) = A^T both read transposed and packed), each the median of 7 calls (no L2 flush: most of these are
// compute-bound). One "ROW,..." line per launch (op, m, n, k, ms, rule ms, cuBLAS ms, launch, rule
// launch), then per shape the four fastest launches.
// Build (repository root; a configured build folder, e.g. after ./workbook test):
//   cmake --build build --target gemm_rule_sweep      (scripts/probes/CMakeLists.txt: the libraries this
//   configuration found; a changed copy of a kernel: -DWB_PROBE_VARIANT=/abs/path/copy.cu)
// Run: ./build/bin/gemm_rule_sweep > sweep.txt      (about 5 minutes on an H100)
//      ./build/bin/gemm_rule_sweep --double > sweep-double.txt   (the first 45 shapes in double)
//      ./build/bin/gemm_rule_sweep --both-align > sweep.txt      (unaligned calls read in place and copied)
//      ./build/bin/gemm_rule_sweep --shape 1000,1000,1000        (one shape, float)
//      ./build/bin/gemm_rule_sweep --shape 1000,1000,1000 T      (one shape, op(A) = A^T only: N or T)
//      ./build/bin/gemm_rule_sweep --shape 1000,1000,1000 T double (one shape in double)
//      ./build/bin/gemm_rule_sweep --shape 1000,1000,1000 T rule (the rule's launch and cuBLAS only, no
//                                                                 sweep: a short program for ncu
//                                                                 --profile-from-start off)
#include "gemm.hpp"
#include "gemm_rule_common.cuh"
#include "check.hpp"
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <random>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>
using namespace wb;
static std::vector<Op> g_ops = {Op::N, Op::T};  // op(A) of every call (--shape m,n,k N|T: one)
static bool g_rule_only = false;                // --shape m,n,k N|T rule: no sweep
template <class T>
void run(const std::vector<S>& sh, bool both_align = false) {
    const Operands<T> ops(sh);
    double ls[2] = {0, 0}; int cnt = 0;
    for (S s : sh) for (Op oa : g_ops) {
        const GemmArgs<T> a = ops.call(s, oa);
        const GemmLaunch l = tuned::gemm_default(a);
        // rule mode is the short program a profiler runs: its range starts after the rule's first
        // call has measured the kernels' rates (hundreds of launches; ncu --profile-from-start off).
        if (g_rule_only) cudaProfilerStart();
        const double tt = med([&] { tuned::gemm<T>(a, l, nullptr); }, 7);
        const double tc = med([&] { peer::gemm<T>(a, {}, nullptr); }, 7);
        std::vector<std::pair<double, std::string>> all;
        if (g_rule_only) {
            std::printf("%cN %6dx%6dx%6d  rule %.4f ms (%.2fx cuBLAS %.4f)  %s\n", oa == Op::N ? 'N' : 'T', s.m, s.n, s.k, tt, tc / tt, tc, l.str().c_str());
            continue;
        }
        // op(A) = A^T: both ways of reading it (1: transposed, 2: packed first), so that the fit
        // sees the packing decision too; the launch text names "pack A" for 2.
        const std::vector<int> packs = oa == Op::T ? std::vector<int>{1, 2} : std::vector<int>{l.pack_a};
        // --both-align: an unaligned call's launches both read in place (1) and copied first (2),
        // so that the fit sees the copy decision too (median of 5 instead of 7: the sweep's time).
        const bool unaligned = l.align != 0;
        const std::vector<int> aligns = both_align && unaligned ? std::vector<int>{1, 2} : std::vector<int>{l.align};
        const int reps = both_align ? 5 : 7;
        for (int al : aligns) for (int pk : packs) for (GemmLaunch c : tuned::gemm_configs<T>()) for (int sp : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128, 256, 512}) {
            GemmLaunch x = c; x.split_k = sp; x.pack_a = pk; x.align = al; x.gemv = 1;
            try { const double t = med([&] { tuned::gemm<T>(a, x, nullptr); }, reps); all.push_back({t, x.str()}); } catch (const std::exception&) {}
        }
        for (auto& [t, str] : all) std::printf("ROW,%c,%d,%d,%d,%.5f,%.5f,%.5f,%s,%s\n", oa == Op::N ? 'N' : 'T', s.m, s.n, s.k, t, tt, tc, str.c_str(), l.str().c_str());
        std::sort(all.begin(), all.end());
        std::printf("%cN %6dx%6dx%6d  rule %.4f ms (%.2fx cuBLAS %.4f)  %s\n", oa == Op::N ? 'N' : 'T', s.m, s.n, s.k, tt, tc / tt, tc, l.str().c_str());
        for (size_t i = 0; i < std::min<size_t>(4, all.size()); ++i) std::printf("     best%zu %.4f ms (%.2fx cuBLAS)  %s\n", i, all[i].first, tc / all[i].first, all[i].second.c_str());
        ls[1] += std::log(tc / all[0].first);
        ls[0] += std::log(tc / tt);
        ++cnt;
    }
    if (cnt > 0) std::printf("geomean rule %.3f best %.3f over %d calls\n", std::exp(ls[0] / cnt), std::exp(ls[1] / cnt), cnt);
}

int main(int argc, char** argv) {
    std::vector<S> sh = shapes();
    if (argc > 2 && std::string(argv[1]) == "--shape") {  // one shape m,n,k instead of the list
        S x{};
        if (std::sscanf(argv[2], "%d,%d,%d", &x.m, &x.n, &x.k) != 3) {
            std::fprintf(stderr, "--shape takes m,n,k\n");
            return 2;
        }
        if (argc > 3) g_ops = {std::string(argv[3]) == "T" ? Op::T : Op::N};
        g_rule_only = argc > 4 && std::string(argv[4]) == "rule";
        if (argc > 4 && std::string(argv[4]) == "double") run<double>({x});
        else run<float>({x});
        return 0;
    }
    if (argc > 1 && std::string(argv[1]) == "--double") {  // the first 45 shapes, as gemm_rule_check.cu
        run<double>(std::vector<S>(sh.begin(), sh.begin() + 45));
        return 0;
    }
    run<float>(sh, argc > 1 && std::string(argv[1]) == "--both-align");
}
