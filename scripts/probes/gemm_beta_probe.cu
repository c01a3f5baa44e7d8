// gemm_beta_probe.cu — the 256 x 128 float kernel at beta = 0 against beta = 0.5 (its C prefetch
// runs only where beta != 0; the rates table times beta = 0): on 4096^3 and on the
// rates' whole-rounds call (SMs x 256 by 6 x 128, k 1056), NN, TN, NT and TT, that configuration alone and the rule's
// launch, beside cuBLAS (pedantic FP32) with the same beta. Median of 9 calls, no L2 flush.
// To compare builds: build it twice (the second from a changed tree), run both alternately.
// Build: bash scripts/carry-build.sh gemm_beta_probe     Run: ./build/bin/gemm_beta_probe
#include "gemm.hpp"
#include "gemm_rule_common.cuh"

#include <cstdio>
#include <vector>

using namespace wb;

int main() {
    int sms = 0;
    WB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const GemmLaunch big = tuned::gemm_configs<float>().front();  // the 256 x 128 tile
    const std::vector<S> sh = {{4096, 4096, 4096}, {sms * big.tile_m, 6 * big.tile_n, 1056}};
    const Operands<float> ops(sh);
    for (S s : sh)
        for (Op oa : {Op::N, Op::T})
            for (Op ob : {Op::N, Op::T}) {
                for (float beta : {0.0f, 0.5f}) {
                    GemmArgs<float> a = ops.call(s, oa);
                    a.beta = beta;
                    if (ob == Op::T) {
                        a.op_b = Op::T;
                        a.ldb = s.n;
                    }
                    GemmLaunch l = big;
                    l.split_k = 1;
                    l.pack_a = 1;
                    l.pack_b = 1;
                    l.align = 1;
                    l.gemv = 1;
                    const GemmLaunch r = tuned::gemm_default(a);
                    const double t_cfg = med([&] { tuned::gemm<float>(a, l, nullptr); }, 9);
                    const double t_rule = med([&] { tuned::gemm<float>(a, r, nullptr); }, 9);
                    const double t_cub = med([&] { peer::gemm<float>(a, {}, nullptr); }, 9);
                    std::printf("%5dx%5dx%5d %c%c beta %.1f  256x128 %.4f ms (%.3fx cuBLAS)  rule %.4f ms (%.3fx) %s  cuBLAS %.4f\n",
                                s.m, s.n, s.k, oa == Op::N ? 'N' : 'T', ob == Op::N ? 'N' : 'T', beta, t_cfg,
                                t_cub / t_cfg, t_rule, t_cub / t_rule, r.str().c_str(), t_cub);
                    std::fflush(stdout);
                }
            }
    return 0;
}
