// gemm_pack_b_probe.cu — what transposing op(B) = B into a workspace would buy the tuned GEMM.
//
// The tuned kernels keep both operands k-major in shared memory: an operand stored with k
// contiguous (op(A) = A^T, op(B) = B) goes through the transposing path, the other straight in by
// cp.async. TN has two transposing operands, NN and TT one, NT none. Where B is small (n or k
// short) its transpose costs microseconds, and the call runs as TT (from TN) or NT (from NN)
// instead. For each shape and op(A): cuBLAS, the default rule's launch, the best launch over
// every configuration x split (op(A) = A^T read in place and packed) as called, the same on the
// call with B transposed first, and that transpose's own time. Median of 7 calls, no L2 flush.
// Build: cmake --build build --target gemm_pack_b_probe      (scripts/probes/CMakeLists.txt)
// Run:   ./build/bin/gemm_pack_b_probe
#include "gemm.hpp"
#include "gemm_rule_common.cuh"
#include "tuned/gemm_pack.hpp"

#include <cstdio>
#include <string>
#include <vector>

using namespace wb;

namespace {

double best_of(const GemmArgs<float>& a, std::string& which) {
    double best = -1;
    const std::vector<int> packs = a.op_a == Op::T ? std::vector<int>{1, 2} : std::vector<int>{0};
    for (int pk : packs)
        for (GemmLaunch c : tuned::gemm_configs<float>())
            for (int sp : {1, 2, 3, 4, 6, 8}) {
                GemmLaunch x = c;
                x.split_k = sp;
                x.pack_a = pk;
                x.align = 1;
                x.gemv = 1;
                try {
                    const double t = med([&] { tuned::gemm<float>(a, x, nullptr); }, 7);
                    if (best < 0 || t < best) {
                        best = t;
                        which = x.str();
                    }
                } catch (const std::exception&) {
                }
            }
    return best;
}

}  // namespace

int main() {
    const std::vector<S> sh = {{20000, 300, 3000}, {8192, 64, 8192}, {8192, 33, 8192}, {1000, 1000, 1000},
                               {3000, 3000, 3000}, {5000, 5000, 5000}, {300, 20000, 3000}, {64, 8192, 8192},
                               {256, 256, 262144}, {1000, 777, 3333}, {30000, 30, 4000}, {10000, 50, 10000}};
    const Operands<float> ops(sh);
    float* Bt = nullptr;  // B transposed: n x k, ld a 128-byte line
    size_t maxe = 0;
    for (S s : sh) maxe = std::max(maxe, (size_t)tuned::pack::pack_ld<float>(s.n) * s.k);
    WB_CUDA(cudaMalloc(&Bt, maxe * sizeof(float)));
    WB_CUDA(cudaMemset(Bt, 0, maxe * sizeof(float)));
    std::printf("%-20s %2s %9s %9s %9s %9s %9s %9s  %s | %s\n", "shape", "op", "cuBLAS", "rule", "best", "bestPB",
                "packB", "PB+pack", "best launch", "best launch, B packed");
    for (S s : sh)
        for (Op oa : {Op::N, Op::T}) {
            const GemmArgs<float> a = ops.call(s, oa);
            const double tc = med([&] { peer::gemm<float>(a, {}, nullptr); }, 7);
            const double tr = med([&] { tuned::gemm<float>(a, tuned::gemm_default(a), nullptr); }, 7);
            std::string w0, w1;
            const double b0 = best_of(a, w0);
            GemmArgs<float> t = a;  // B transposed: op(B) = Bt^T
            t.op_b = Op::T;
            t.B = Bt;
            t.ldb = static_cast<int>(tuned::pack::pack_ld<float>(s.n));
            const double b1 = best_of(t, w1);
            GemmArgs<float> p = a;  // the transpose of B as the pack runs it: op(A) = A^T of k x n
            p.op_a = Op::T;
            p.A = a.B;
            p.lda = a.ldb;
            p.m = s.n;
            p.k = s.k;
            const double tp = med([&] { tuned::pack::packed<float>(p, nullptr, "probe"); }, 7);
            char name[32];
            std::snprintf(name, sizeof name, "%dx%dx%d", s.m, s.n, s.k);
            std::printf("%-20s %cN %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f  %s | %s\n", name, oa == Op::N ? 'N' : 'T', tc, tr,
                        b0, b1, tp, b1 + tp, w0.c_str(), w1.c_str());
            std::printf("   x cuBLAS: rule %.3f best %.3f packed-B best %.3f\n", tc / tr, tc / b0, tc / (b1 + tp));
        }
    cudaFree(Bt);
    return 0;
}
