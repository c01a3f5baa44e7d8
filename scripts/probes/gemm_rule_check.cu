// gemm_rule_check.cu — the tuned GEMM's default launch against cuBLAS on gemm_rule_sweep.cu's 65
// shapes (float; double on the first 45), op(A) = N and T, beta 0.5: to compare two rules, link
// the same source against two builds of the rule (kernels/tuned/gemm_default_rule.cpp) and run
// them alternately.
// Build: cmake --build build --target gemm_rule_check   (scripts/probes/CMakeLists.txt); a second
// rule: configure with -DWB_PROBE_VARIANT=/abs/path/changed_gemm_default_rule.cpp (it replaces
// the library's).
// Also times the rule itself on the host (gemm_default, 200 calls per shape).
// Run: ./build/bin/gemm_rule_check      (about 20 s on an H100)
#include "gemm.hpp"
#include "gemm_rule_common.cuh"
#include "check.hpp"
#include <cuda_runtime.h>
#include <algorithm>
#include <random>
#include <cmath>
#include <cstdio>
#include <chrono>
#include <vector>
using namespace wb;
template <class T>
void run(const std::vector<S>& sh) {
    const Operands<T> ops(sh);
    double ls[2] = {0, 0}; int cnt = 0;
    double host_sum = 0, host_max = 0;  // the rule's host time per call (gemm_default), us
    S host_worst{};
    for (S s : sh) for (Op oa : {Op::N, Op::T}) {
        const GemmArgs<T> a = ops.call(s, oa);
        const GemmLaunch l = tuned::gemm_default(a);
        {
            const int reps = 200;
            const auto t0 = std::chrono::steady_clock::now();
            for (int r = 0; r < reps; ++r) (void)tuned::gemm_default(a);
            const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / reps;
            host_sum += us;
            if (us > host_max) { host_max = us; host_worst = s; }
        }
        const double tt = med([&] { tuned::gemm<T>(a, l, nullptr); }, 11);
        const double tc = med([&] { peer::gemm<T>(a, {}, nullptr); }, 11);
        std::printf("%s %cN %6dx%6dx%6d  rule %.4f ms  cuBLAS %.4f ms  %.3fx  %s\n", sizeof(T) == 4 ? "float " : "double", oa == Op::N ? 'N' : 'T', s.m, s.n, s.k, tt, tc, tc / tt, l.str().c_str());

        ls[0] += std::log(tc / tt);
        if (oa == Op::N) ++cnt;
    }
    std::printf("%s geomean rule vs cuBLAS %.3f over %d calls\n", sizeof(T) == 4 ? "float" : "double", std::exp(ls[0] / (2 * cnt)), cnt * 2);
    std::printf("%s rule host time (gemm_default): mean %.2f us per call, max %.2f us (%dx%dx%d)\n", sizeof(T) == 4 ? "float" : "double",
                host_sum / (2 * cnt), host_max, host_worst.m, host_worst.n, host_worst.k);
}
int main() {
    const auto sh = shapes();
    run<float>(sh);
    std::vector<S> d(sh.begin(), sh.begin() + 45);
    run<double>(d);
}
