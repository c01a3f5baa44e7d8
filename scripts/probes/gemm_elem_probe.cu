// gemm_elem_probe.cu — what an operand whose columns are not 16-byte aligned costs the tuned GEMM.
//
// For a few shapes (a square compute-bound one and the 130-call list's slowest unaligned ones),
// each transpose combination, float, beta 0.5, leading dimensions rounded up to 4 elements (every
// column aligned), and the base pointers of A, B, both or neither moved by one element (every
// column then unaligned): the rule's pick, that pick with align = 1 (the main loop's element
// copies) and with align = 2 (the unaligned operands copied to aligned columns first), and cuBLAS
// (pedantic FP32) on the same arguments. Median of 11 calls after two, no L2 flush.
// To compare two builds of the tuned GEMM: build it twice, the second time configured with
// -DWB_PROBE_VARIANT=/abs/path/changed_copy.cu, a changed copy of the translation unit that holds
// the kernels in question (kernels/tuned/gemm_instances_*.cu; scripts/probes/CMakeLists.txt; copy
// the first binary aside before), and run them alternately.
// Build (repository root; a configured build folder, e.g. after ./workbook test):
//   cmake --build build --target gemm_elem_probe      (scripts/probes/CMakeLists.txt: the libraries this
//   configuration found; a changed copy of a kernel: -DWB_PROBE_VARIANT=/abs/path/copy.cu)
// Run: ./build/bin/gemm_elem_probe             (about 20 s on an H100)
//      ./build/bin/gemm_elem_probe --configs [--double]   (each configuration's element / 16-byte rate)
#include "gemm.hpp"
#include "gemm_rule_common.cuh"
#include "check.hpp"
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>
using namespace wb;

/// --configs [--double]: every float (double) configuration (split 1, align 1) on 4096 x 4096 x 2048, each transpose
/// combination, aligned and with both base pointers moved by one element: the element path's
/// rate against the 16-byte path's, per configuration (the default rule's RATE_ELEM / RATE).
/// The four placements of the operands' bases (off: bit 0 moves A, bit 1 moves B by one element).
constexpr const char* kOffsetName[4] = {"none", "A+1", "B+1", "both"};

template <class T>
int configs() {
    const S s{4096, 4096, 2048};
    const Operands<T> ops(std::vector<S>{{s.m + 4, s.n + 4, s.k + 4}});
    for (GemmLaunch l : tuned::gemm_configs<T>()) {
        l.split_k = 1; l.align = 1; l.pack_a = 1; l.gemv = 1;
        double lg = 0;
        for (Op oa : {Op::N, Op::T})
            for (Op ob : {Op::N, Op::T}) {
                GemmArgs<T> a;
                a.op_a = oa; a.op_b = ob; a.m = s.m; a.n = s.n; a.k = s.k; a.alpha = T(1.5); a.beta = T(0.5);
                a.lda = a.rows_a(); a.ldb = a.rows_b(); a.ldc = s.m; a.C = ops.C;
                double t[2];
                for (int off = 0; off < 2; ++off) {
                    a.A = ops.A + off; a.B = ops.B + off;
                    t[off] = med([&] { tuned::gemm<T>(a, l, nullptr); }, sizeof(T) == 4 ? 11 : 5);
                }
                std::printf("config %c%c %-60s  16-byte %.4f ms  element %.4f ms  ratio %.3f\n", oa == Op::N ? 'N' : 'T',
                            ob == Op::N ? 'N' : 'T', l.str().c_str(), t[0], t[1], t[0] / t[1]);
                lg += std::log(t[0] / t[1]);
            }
        std::printf("config %-63s  element / 16-byte rate, geomean over 4: %.3f\n", l.str().c_str(), std::exp(lg / 4));
    }
    return 0;
}

int main(int argc, char** argv) {
    if (argc > 1 && std::string(argv[1]) == "--configs") return argc > 2 && std::string(argv[2]) == "--double" ? configs<double>() : configs<float>();
    const std::vector<S> sh = {{4096, 4096, 4096}, {2000, 2000, 2000}, {1973, 230, 3764}, {9745, 589, 273},
                               {3176, 104, 6597}, {1000, 777, 3333},   {777, 9999, 555},  {309, 5042, 695}};
    auto up4 = [](int x) { return (x + 3) / 4 * 4; };
    std::vector<S> big;  // the operands as large as the padded ones, plus the one-element offset
    for (S s : sh) big.push_back({up4(s.m) + 4, up4(s.n) + 4, up4(s.k) + 4});
    const Operands<float> ops(big);
    double lg[4][3] = {};  // per offset: log(cuBLAS / launch) summed, for align 0 (rule), 1, 2
    int cnt = 0;
    for (S s : sh)
        for (Op oa : {Op::N, Op::T})
            for (Op ob : {Op::N, Op::T}) {
                GemmArgs<float> a;
                a.op_a = oa; a.op_b = ob; a.m = s.m; a.n = s.n; a.k = s.k; a.alpha = 1.5f; a.beta = 0.5f;
                a.lda = up4(a.rows_a()); a.ldb = up4(a.rows_b()); a.ldc = up4(s.m); a.C = ops.C;
                ++cnt;
                for (int off = 0; off < 4; ++off) {  // 0 none, 1 A, 2 B, 3 both
                    a.A = ops.A + (off & 1); a.B = ops.B + (off >> 1 & 1);
                    const GemmLaunch rule = tuned::gemm_default(a);
                    GemmLaunch l1 = rule, l2 = rule;
                    l1.align = 1; l2.align = 2;
                    const double tr = med([&] { tuned::gemm<float>(a, rule, nullptr); }, 11);
                    const double t1 = off ? med([&] { tuned::gemm<float>(a, l1, nullptr); }, 11) : tr;
                    const double t2 = off ? med([&] { tuned::gemm<float>(a, l2, nullptr); }, 11) : tr;
                    const double tc = med([&] { peer::gemm<float>(a, {}, nullptr); }, 11);
                    std::printf("%c%c %5dx%5dx%5d off %-4s  cuBLAS %.4f  rule %.4f (%.3fx)  elem %.4f (%.3fx)  copy %.4f (%.3fx)  %s\n",
                                oa == Op::N ? 'N' : 'T', ob == Op::N ? 'N' : 'T', s.m, s.n, s.k, kOffsetName[off], tc, tr, tc / tr,
                                t1, tc / t1, t2, tc / t2, rule.str().c_str());
                    lg[off][0] += std::log(tc / tr); lg[off][1] += std::log(tc / t1); lg[off][2] += std::log(tc / t2);
                }
            }
    for (int off = 0; off < 4; ++off)
        std::printf("geomean x cuBLAS, offset %-4s: rule %.3f  elem %.3f  copy %.3f  (%d calls)\n", kOffsetName[off],
                    std::exp(lg[off][0] / cnt), std::exp(lg[off][1] / cnt), std::exp(lg[off][2] / cnt), cnt);
}
