// gemm_op_rates_probe.cu — why the kernels' measured op-pair rates (tuned::gemm_kernel_rates) do
// not carry to some shapes, and how split k moves a short, wide C with a long k.
//
// Part 1: one configuration's NN, TN, NT and TT in place (no packs, no split) on its rates call
// (about four waves of side x side tiles, k = 1056, as gemm_kernel_rates.cpp times it) and on
// calls that change one thing at a time from there towards 20000 x 300 x 3000 (where run 72
// measured the 128 x 64 tile's TT at 0.93 of NN and the rates call gives 0.81): k, the shape, the
// leading dimensions; each op pair's time and its ratio to NN.
// Part 2: 10000 x 50 x 10000 (run 76: split 3 0.4450 ms, split 24 0.3636): the 128 x 64 tile at
// each split in NN, TN and TT, with the blocks per SM each split gives.
// Median of 7 calls after two, no L2 flush (compute-bound calls; the rates are timed the same way).
// Build: cmake --build build --target gemm_op_rates_probe      (scripts/probes/CMakeLists.txt)
// Run:   ./build/bin/gemm_op_rates_probe [tile_m tile_n]      (default 128 64)
#include "gemm.hpp"
#include "gemm_rule_common.cuh"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace wb;

namespace {

/// The call of shape s with op(A) = oa, op(B) = ob on the probe's buffers, tight leading
/// dimensions unless lda / ldb are given; beta 0 (the rates' main-loop calls).
GemmArgs<float> call(const Operands<float>& o, S s, Op oa, Op ob, int lda = 0, int ldb = 0) {
    GemmArgs<float> a;
    a.op_a = oa;
    a.op_b = ob;
    a.m = s.m;
    a.n = s.n;
    a.k = s.k;
    a.alpha = 1;
    a.beta = 0;
    a.A = o.A;
    a.lda = lda > 0 ? lda : (oa == Op::N ? s.m : s.k);
    a.B = o.B;
    a.ldb = ldb > 0 ? ldb : (ob == Op::N ? s.k : s.n);
    a.C = o.C;
    a.ldc = s.m;
    return a;
}

}  // namespace

int main(int argc, char** argv) {
    const int tm = argc > 2 ? std::atoi(argv[1]) : 128, tn = argc > 2 ? std::atoi(argv[2]) : 64;
    GemmLaunch cfg;
    for (const GemmLaunch& c : tuned::gemm_configs<float>())
        if (c.tile_m == tm && c.tile_n == tn) cfg = c;
    if (cfg.tile_m == 0) {
        std::fprintf(stderr, "gemm_op_rates_probe: no float configuration has a %d x %d tile\n", tm, tn);
        return 2;
    }
    cfg.pack_a = cfg.pack_b = cfg.align = cfg.gemv = 1;  // read in place, the tiles
    int sms = 0;
    WB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int side = static_cast<int>(std::ceil(std::sqrt(4.0 * sms)));
    const S rates{side * tm, side * tn, 1056};
    struct Probe {
        const char* what;
        S s;
        int lda_t = 0;  // op(A) = A^T's lda (0: k)
    };
    const std::vector<Probe> probes = {
        {"the rates call", rates},
        {"its k 3000", {rates.m, rates.n, 3000}},
        {"its A^T lda 3000", rates, 3000},
        {"m 20000, its n, k", {20000, rates.n, 1056}},
        {"20000 x 320 x 1056", {20000, 320, 1056}},
        {"20000 x 320 x 3000", {20000, 320, 3000}},
        {"20000 x 300 x 3000", {20000, 300, 3000}},
        {"10000 x 50 x 10000", {10000, 50, 10000}},
    };
    std::vector<S> all;
    for (const Probe& p : probes) all.push_back({p.s.m, p.s.n, std::max(p.s.k, p.lda_t)});
    const Operands<float> o(all);
    std::printf("%s, %d SMs: NN, TN, NT, TT in place, no split (ms; over NN)\n", cfg.str().c_str(), sms);
    for (const Probe& p : probes) {
        double t[4];
        int i = 0;
        for (Op oa : {Op::N, Op::T})
            for (Op ob : {Op::N, Op::T}) {
                const GemmArgs<float> a = call(o, p.s, oa, ob, oa == Op::T ? p.lda_t : 0);
                t[i++] = med([&] { tuned::gemm<float>(a, cfg, nullptr); }, 7);
            }
        // t: NN, NT, TN, TT
        std::printf("  %-22s %6d x %5d x %5d  NN %.4f  TN %.4f (%.3f)  NT %.4f (%.3f)  TT %.4f (%.3f)\n", p.what, p.s.m,
                    p.s.n, p.s.k, t[0], t[2], t[0] / t[2], t[1], t[0] / t[1], t[3], t[0] / t[3]);
    }
    const S wide{10000, 50, 10000};
    const long long tiles = (wide.m + tm - 1) / tm * ((wide.n + tn - 1) / tn);
    std::printf("\n%d x %d x %d, %s at each split (ms): blocks, blocks per SM\n", wide.m, wide.n, wide.k, cfg.str().c_str());
    for (int split : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64}) {
        GemmLaunch l = cfg;
        l.split_k = split;
        double t[3];
        int i = 0;
        for (const auto& [oa, ob] : {std::pair{Op::N, Op::N}, std::pair{Op::T, Op::N}, std::pair{Op::T, Op::T}}) {
            const GemmArgs<float> a = call(o, wide, oa, ob);
            t[i++] = med([&] { tuned::gemm<float>(a, l, nullptr); }, 7);
        }
        std::printf("  split %3d  NN %.4f  TN %.4f  TT %.4f   %5lld blocks, %.2f per SM\n", split, t[0], t[1], t[2],
                    tiles * split, static_cast<double>(tiles * split) / sms);
    }
    return 0;
}
