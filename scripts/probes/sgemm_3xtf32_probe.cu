// sgemm_3xtf32_probe.cu — the 3xTF32 SGEMM's launches (tuned/sgemm_3xtf32.hpp: each tile, the
// kernel's own split and splits 1, 2, 4) against the tuned SGEMM's default and cuBLAS
// (CUBLAS_PEDANTIC_MATH) in one run: NN and TN at square and small-C shapes, median of CUDA-event
// timings after an L2 flush, GFLOP/s and the ratio to cuBLAS. Correctness is the gpu tests'
// ([3xtf32]). With --errors it times nothing: where the variant's error comes from. It prints the
// norm-wise error against the float64 reference (check_gemm) of the variant in 1, 4 and 16 slices of
// k, with each k-step's partial added in FP32, the tuned FMA kernel and cuBLAS, for C of 1024 x
// 1024 and k from 1024 to 65536: an error that grows with the length of each accumulation, and
// falls when the slices (summed in FP32 by the second pass) shorten it, is the tensor cores'
// accumulation, not the split's dropped term.
// Build: cmake --build build --target sgemm_3xtf32_probe   (scripts/probes/CMakeLists.txt)
// Run: ./build/bin/sgemm_3xtf32_probe [reps] | --errors
#include "buffer.hpp"
#include "gemm_problem.hpp"
#include "gemm.hpp"
#include "probe_timing.cuh"
#include "random.hpp"
#include "tuned/sgemm_3xtf32.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

int errors() {
    using wb::GemmLaunch, wb::Op;
    const auto tf32 = wb::tuned::sgemm_3xtf32_step();
    const auto tf32_sum = wb::tuned::sgemm_3xtf32_step(wb::tuned::Sgemm3xTf32Sum::kFp32);
    const auto& tuned = wb::step<wb::GemmArgs<float>>(5);
    const auto& peer = wb::peer_step<wb::GemmArgs<float>>();
    std::printf("%-22s %10s %10s %10s %10s %10s %10s\n", "shape", "3xTF32 x1", "x4", "x16", "FP32 sum", "tuned FMA",
                "cuBLAS");
    for (int k : {1024, 4096, 16384, 65536}) {
        auto p = wb::make_gemm_problem<float>(wb::GemmShape{Op::N, Op::N, 1024, 1024, k}, wb::fresh_seed(), 1.5f, 0.5f);
        const auto ref = p.reference();
        auto err = [&](const wb::Step<wb::GemmArgs<float>>& s, const GemmLaunch& l) {
            return wb::check_gemm(s, l, p, ref).rel_error;
        };
        std::vector<double> e;
        for (int split : {1, 4, 16}) {
            GemmLaunch l = tf32.default_launch(p.args());
            l.split_k = split;
            e.push_back(err(tf32, l));
        }
        e.push_back(err(tf32_sum, tf32_sum.default_launch(p.args())));
        e.push_back(err(tuned, tuned.default_launch(p.args())));
        e.push_back(err(peer, GemmLaunch{}));
        char shape[64];
        std::snprintf(shape, sizeof shape, "1024x1024x%d", k);
        std::printf("%-22s %10.2e %10.2e %10.2e %10.2e %10.2e %10.2e\n", shape, e[0], e[1], e[2], e[3], e[4], e[5]);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "--errors") == 0) return errors();
    using wb::GemmArgs, wb::GemmLaunch, wb::Op, wb::Step, wb::DeviceBuffer, wb::fill_random, wb::fresh_seed;
    namespace tuned = wb::tuned;
    namespace peer = wb::peer;
    const int reps = argc > 1 ? std::atoi(argv[1]) : 10;
    const ::DeviceInfo di = device_info();
    std::printf("%s, %d SMs\n", di.prop.name, di.sms);
    const Flush flush;
    struct Shape {
        int m, n, k;
    };
    const std::vector<Shape> shapes = {{1000, 1000, 1000}, {2048, 2048, 2048}, {4096, 4096, 4096},
                                       {8192, 8192, 8192}, {300, 20000, 3000},  {256, 256, 65536}};
    const Step<GemmArgs<float>> tf32 = tuned::sgemm_3xtf32_step();
    const Step<GemmArgs<float>> tf32_sum = tuned::sgemm_3xtf32_step(tuned::Sgemm3xTf32Sum::kFp32);
    std::printf("%-20s %-3s %-60s %10s %10s %8s\n", "shape", "op", "launch", "us", "GFLOP/s", "x cuBLAS");
    for (const Shape& s : shapes)
        for (Op oa : {Op::N, Op::T}) {
            GemmArgs<float> a;
            a.op_a = oa;
            a.m = s.m;
            a.n = s.n;
            a.k = s.k;
            a.lda = oa == Op::N ? s.m : s.k;
            a.ldb = s.k;
            a.ldc = s.m;
            a.alpha = 1.5f;
            a.beta = 0.5f;
            std::vector<float> ha(static_cast<std::size_t>(s.m) * s.k), hb(static_cast<std::size_t>(s.k) * s.n),
                hc(static_cast<std::size_t>(s.m) * s.n);
            fill_random(ha, fresh_seed());
            fill_random(hb, fresh_seed());
            fill_random(hc, fresh_seed());
            DeviceBuffer<float> da(ha), db(hb), dc(hc);
            a.A = da.data();
            a.B = db.data();
            a.C = dc.data();
            const double flops = 2.0 * s.m * s.n * s.k;
            auto row = [&](const char* what, double us, double cublas_us) {
                char shape[64];
                std::snprintf(shape, sizeof shape, "%dx%dx%d", s.m, s.n, s.k);
                std::printf("%-20s %-3s %-60s %10.1f %10.1f %8.2f\n", shape, oa == Op::N ? "NN" : "TN", what, us,
                            flops / us / 1e3, cublas_us / us);
            };
            const double cub = median_us([&] { peer::gemm<float>(a, GemmLaunch{}, nullptr); }, flush, reps);
            row("cuBLAS", cub, cub);
            const double tun = median_us([&] { tuned::gemm<float>(a, GemmLaunch{}, nullptr); }, flush, reps);
            row("tuned (default)", tun, cub);
            const double fs = median_us([&] { tf32_sum.launch(a, tf32_sum.default_launch(a), nullptr); }, flush, reps);
            row(("3xTF32 FP32 sum default " + tf32_sum.default_launch(a).str()).c_str(), fs, cub);
            std::vector<GemmLaunch> ls = tf32.legal_launches(a);
            ls.insert(ls.begin(), tf32.default_launch(a));
            for (std::size_t i = 0; i < ls.size(); ++i) {
                const double us = median_us([&] { tf32.launch(a, ls[i], nullptr); }, flush, reps);
                row(((i == 0 ? "3xTF32 default " : "3xTF32 ") + ls[i].str()).c_str(), us, cub);
            }
        }
    return 0;
}
