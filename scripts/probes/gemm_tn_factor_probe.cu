// gemm_tn_factor_probe.cu — the op(A) = A^T main-loop factor of each float configuration on
// different reference calls: is the rates table's (the 23 x 23 tile call, k = 1056) the factor
// a one-tile-tall call or a whole-rounds call sees?
// For each configuration (split 1 unless stated): NN and TN times (median of 7, no L2 flush) and
// NN / TN on: R1 the rates' ratio call (ceil(sqrt(4 SMs)) tiles a side, k 1056), R2 the main
// loop's whole-rounds call (SMs x 6 tiles, k 1056), R3 R1 with k = 4224, R4 one tile tall
// (m = tile_m, n = 8192, k = 8448, split for about three blocks per SM).
// Build: bash scripts/carry-build.sh gemm_tn_factor_probe     Run: ./build/bin/gemm_tn_factor_probe
#include "gemm.hpp"
#include "gemm_rule_common.cuh"

#include <cmath>
#include <cstdio>
#include <vector>

using namespace wb;

int main() {
    int sms = 0;
    WB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int side = static_cast<int>(std::ceil(std::sqrt(4.0 * sms)));
    std::vector<S> all;
    for (GemmLaunch c : tuned::gemm_configs<float>()) {
        all.push_back({side * c.tile_m, side * c.tile_n, 4224});
        all.push_back({sms * c.tile_m, 6 * c.tile_n, 1056});
        all.push_back({c.tile_m, 8192, 8448});
    }
    const Operands<float> ops(all);
    for (GemmLaunch c : tuned::gemm_configs<float>()) {
        const S shapes[4] = {{side * c.tile_m, side * c.tile_n, 1056}, {sms * c.tile_m, 6 * c.tile_n, 1056},
                             {side * c.tile_m, side * c.tile_n, 4224}, {c.tile_m, 8192, 8448}};
        std::printf("%-70s", c.str().c_str());
        for (int i = 0; i < 4; ++i) {
            GemmLaunch l = c;
            l.split_k = 1;
            l.pack_a = 1;
            l.align = 1;
            l.gemv = 1;
            if (i == 3) l.split_k = std::max(1, static_cast<int>(std::lround(3.0 * sms / (8192 / c.tile_n))));
            const GemmArgs<float> nn = ops.call(shapes[i], Op::N), tn = ops.call(shapes[i], Op::T);
            double t_nn = -1, t_tn = -1;
            try {
                t_nn = med([&] { tuned::gemm<float>(nn, l, nullptr); }, 7);
                t_tn = med([&] { tuned::gemm<float>(tn, l, nullptr); }, 7);
            } catch (const std::exception& e) { std::printf(" [%s]", e.what()); }
            std::printf("  R%d %.4f/%.4f=%.3f", i + 1, t_nn, t_tn, t_nn / t_tn);
        }
        std::printf("\n");
        std::fflush(stdout);
    }
    return 0;
}
