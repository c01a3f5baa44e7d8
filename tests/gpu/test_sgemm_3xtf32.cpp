// The 3xTF32 SGEMM (tuned/sgemm_3xtf32.hpp), chapter 5's named variant, both ways of summing its
// products (on the tensor cores; each k-step's partial added in FP32), against the float64
// reference under the FP32 kernels' own bound (check_gemm: it grows with sqrt(k); one TF32
// product per multiply misses it by two orders of magnitude, so a kernel that dropped the low
// parts fails): NN/NT/TN/TT x shapes 1x1x1, k = 1, primes, non-multiples of both tiles (128 x 64
// x 32, 64 x 64 x 32), short and long k; ld > rows with base pointers one element off (the 4-byte
// copies), beta 0.5 and 0 (C poisoned with NaN), alpha 0; every legal launch (each tile, split
// 1, 2, 4) on odd shapes; the kernel's own split on a small C with long k; same bits on a second
// call (its arguments' checks: tests/cpu/test_sgemm_3xtf32_default.cpp). WB_TEST_SMALL keeps small
// shapes.
// Run: ./build/bin/wb_gpu_tests "[3xtf32]"
#include "catch.hpp"

#include "gemm_problem.hpp"
#include "gemm_test_shapes.hpp"
#include "random.hpp"
#include "tuned/sgemm_3xtf32.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using wb::Op;

bool supported() {
    int dev = 0;
    return cudaGetDevice(&dev) == cudaSuccess && wb::tuned::sgemm_3xtf32_supported(dev);
}

// Ends a case visibly where the device has no TF32 tensor cores (compute capability below 8.0):
// Catch2 3.3+ marks it skipped, Catch2 2 prints a warning.
#if defined(WB_CATCH2_V3) && defined(SKIP)
#define WB_SKIP_NO_TF32() SKIP("no TF32 tensor cores on this device")
#else
#define WB_SKIP_NO_TF32()                          \
    do {                                           \
        WARN("no TF32 tensor cores on this device"); \
        return;                                    \
    } while (0)
#endif

bool small_run() { return std::getenv("WB_TEST_SMALL") != nullptr; }

using wb::test::Mnk;

void check_one(const wb::Step<wb::GemmArgs<float>>& step, const wb::GemmShape& s, float alpha, float beta,
               const wb::GemmLaunch& l) {
    auto p = wb::make_gemm_problem<float>(s, wb::fresh_seed(), alpha, beta);
    const auto ref = p.reference();
    const auto c = wb::check_gemm(step, l, p, ref);
    INFO("3xTF32 " << p.shape.str() << " alpha=" << alpha << " beta=" << beta << " launch " << l.str() << " rel err "
                   << c.rel_error << " tol " << c.tolerance << " " << c.first_bad);
    CHECK(c.ok());
}

/// The step's default launch for an m x n x k call (its tile and split depend on the shape).
wb::GemmLaunch default_for(const wb::Step<wb::GemmArgs<float>>& step, const wb::GemmShape& s) {
    wb::GemmArgs<float> a;
    a.m = s.m;
    a.n = s.n;
    a.k = s.k;
    return step.default_launch(a);
}

wb::GemmShape padded(wb::GemmShape s) {
    s.lda = std::max(1, s.rows_a()) + 3;
    s.ldb = std::max(1, s.rows_b()) + 2;
    s.ldc = std::max(1, s.m) + 5;
    s.offset = 1;
    return s;
}

}  // namespace

/// Both ways of summing the products (on the tensor cores; each k-step's partial in FP32).
std::vector<wb::Step<wb::GemmArgs<float>>> both_sums() {
    return {wb::tuned::sgemm_3xtf32_step(wb::tuned::Sgemm3xTf32Sum::kTensorCores),
            wb::tuned::sgemm_3xtf32_step(wb::tuned::Sgemm3xTf32Sum::kFp32)};
}

TEST_CASE("3xTF32 sgemm: every transpose, edge, padding and offset, within the FP32 bound", "[gpu][gemm][3xtf32]") {
    if (!supported()) WB_SKIP_NO_TF32();
    for (const auto& step : both_sums()) {
        std::vector<Mnk> shapes = {{1, 1, 1},     {7, 5, 1},      {2, 3, 2},      {37, 53, 19},   {127, 131, 67},
                                   {63, 65, 129}, {129, 127, 255}, {200, 300, 3}, {33, 17, 2000}, {1000, 9, 40},
                                   {9, 1000, 40}, {130, 258, 33},  {257, 129, 1001}};
        if (small_run()) shapes.resize(7);
        wb::test::for_each_transpose(shapes, [&](const wb::GemmShape& tight) {
            for (int variant = 0; variant < 2; ++variant)
                for (float beta : {0.5f, 0.0f}) {
                    const wb::GemmShape s = variant == 1 ? padded(tight) : tight;
                    check_one(step, s, 1.5f, beta, default_for(step, s));
                }
        });
        // alpha = 0: C = beta C without reading A or B; k = 0 the same.
        for (float beta : {0.5f, 0.0f}) {
            check_one(step, wb::GemmShape{Op::N, Op::T, 33, 17, 9}, 0.0f, beta, wb::GemmLaunch{});
            check_one(step, wb::GemmShape{Op::T, Op::N, 33, 17, 0}, 1.5f, beta, wb::GemmLaunch{});
        }
    }
}

TEST_CASE("3xTF32 sgemm: every legal launch, the kernel's own split, same bits twice", "[gpu][gemm][3xtf32]") {
    if (!supported()) WB_SKIP_NO_TF32();
    for (const auto& step : both_sums()) {
        std::vector<Mnk> shapes = {{67, 45, 97}, {301, 203, 517}};
        if (small_run()) shapes.resize(1);
        wb::test::for_each_transpose(shapes, [&](const wb::GemmShape& s) {
            for (const wb::GemmLaunch& l : step.legal_launches({})) {
                check_one(step, s, 1.25f, -0.75f, l);
                check_one(step, padded(s), 1.25f, 0.0f, l);
            }
        });
        // A C of one or two tiles with long k: the default launch splits k (the partials' pass adds
        // them), and the kernel's own choice (an empty launch) is the same.
        const int k = small_run() ? 2048 : 20000;
        for (Op oa : {Op::N, Op::T}) {
            const wb::GemmShape s{oa, Op::N, 100, 60, k};
            CHECK(default_for(step, s).split_k > 1);
            check_one(step, s, 1.5f, 0.5f, default_for(step, s));
            check_one(step, s, 1.5f, 0.0f, wb::GemmLaunch{});
        }
        // A fixed order of products and of the slices' sum: the same bits on every call.
        auto p = wb::make_gemm_problem<float>(wb::GemmShape{Op::T, Op::N, 150, 70, 4000}, wb::fresh_seed(), 1.5f, 0.5f);
        auto once = [&] {
            p.C.upload(p.hC);
            step.launch(p.args(), wb::GemmLaunch{}, nullptr);
            REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
            return p.C.download();
        };
        const auto first = once();
        CHECK(once() == first);
    }
}
