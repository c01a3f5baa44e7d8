// Misaligned bases: each op's tuned step (chapter 5, its default launch) with every base pointer
// one element into its allocation (a submatrix view, as A(2:, 2:) or an image's window gives it:
// the address aligned to one element only, so no operand may be read with 16-byte loads from its
// base), float and double, against the float64 reference of the op's problem (its check: output
// poisoned or restored first, NaN before each base, compare_output's bound). Shapes: tight leading
// dimensions (every column then misaligned too) and padded ones, sizes that are and are not
// multiples of the tiles. The speed at such bases, against aligned ones: tests/perf/test_misaligned_perf.cpp.
// Run: ./build/bin/wb_gpu_tests "[misaligned]"
#include "catch.hpp"
#include "offset_problems.hpp"

#include "cg_problem.hpp"
#include "conv2d_problem.hpp"
#include "gemm_problem.hpp"
#include "gemv_problem.hpp"
#include "random.hpp"
#include "reference_cg.hpp"
#include "symv_problem.hpp"

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

bool small_run() { return std::getenv("WB_TEST_SMALL") != nullptr; }

std::vector<int> sizes() { return small_run() ? std::vector<int>{1, 97} : std::vector<int>{1, 97, 1024, 2049}; }

template <class T> const char* prec() { return sizeof(T) == 4 ? "float" : "double"; }

template <class T>
void gemv_at_offset() {
    const auto& s = wb::step<wb::GemvArgs<T>>(5);
    for (wb::Op op : {wb::Op::N, wb::Op::T})
        for (int n : sizes())
            for (int pad : {0, 3}) {
                const std::uint64_t seed = wb::fresh_seed();
                auto p = wb::make_gemv_problem<T>(op, n, n + 7, n + pad, seed, T(1.5), T(0.5), 1, 1);
                const auto ref = p.reference();
                const auto l = s.default_launch(p.args());
                const auto c = wb::check_gemv(s, l, p, ref);
                INFO(prec<T>() << " gemv " << wb::op_char(op) << " " << n << "x" << n + 7 << " lda " << n + pad
                               << " +1, seed " << seed << ", " << l.str() << ": " << c.first_bad);
                CHECK(c.ok());
            }
}

template <class T>
void gemm_at_offset() {
    const auto& s = wb::step<wb::GemmArgs<T>>(5);
    for (wb::Op oa : {wb::Op::N, wb::Op::T})
        for (wb::Op ob : {wb::Op::N, wb::Op::T})
            for (int n : sizes())
                for (int pad : {0, 5}) {
                    wb::GemmShape sh{oa, ob, n, n + 3, n + 1};
                    if (pad > 0) {
                        sh.lda = sh.rows_a() + pad;
                        sh.ldb = sh.rows_b() + pad;
                        sh.ldc = sh.m + pad;
                    }
                    sh.offset = 1;
                    const std::uint64_t seed = wb::fresh_seed();
                    auto p = wb::make_gemm_problem<T>(sh, seed);
                    const auto ref = p.reference();
                    const auto l = s.default_launch(p.args());
                    const auto c = wb::check_gemm(s, l, p, ref);
                    INFO(prec<T>() << " gemm " << p.shape.str() << ", seed " << seed << ", " << l.str() << ": "
                                   << c.first_bad);
                    CHECK(c.ok());
                }
}

template <class T>
void conv2d_at_offset() {
    const auto& s = wb::step<wb::Conv2dArgs<T>>(5);
    for (int n : sizes())
        for (int fs : {3, 7, 31})
            for (int pad : {0, 2}) {
                wb::Conv2dShape sh{n, n + 5, fs};
                sh.in_pitch = sh.out_pitch = n + 5 + pad;
                sh.offset = 1;
                const std::uint64_t seed = wb::fresh_seed();
                auto p = wb::make_conv2d_problem<T>(sh, seed);
                const auto ref = p.reference();
                const auto l = s.default_launch(p.args());
                const auto c = wb::check_conv2d(s, l, p, ref);
                INFO(prec<T>() << " conv2d " << p.shape.str() << ", seed " << seed << ", " << l.str() << ": "
                               << c.first_bad);
                CHECK(c.ok());
            }
}

template <class T>
void symv_at_offset() {
    const auto& s = wb::step<wb::SymvArgs<T>>(5);
    for (wb::Uplo u : {wb::Uplo::Lower, wb::Uplo::Upper})
        for (int n : sizes())
            for (int pad : {0, 3}) {
                const std::uint64_t seed = wb::fresh_seed();
                auto p = wb::make_symv_problem<T>(u, n, n + pad, seed, T(1.5), T(0.5), 1);
                const auto ref = p.reference();
                const auto l = s.default_launch(p.args());
                const auto c = wb::check_symv(s, l, p, ref);
                INFO(prec<T>() << " symv " << wb::uplo_char(u) << " n " << n << " lda " << n + pad << " +1, seed "
                               << seed << ", " << l.str() << ": " << c.first_bad);
                CHECK(c.ok());
            }
}

/// CG on A, b and x one element into their allocations: converged, the true residual (float64,
/// host) under cg_residual_bound, and the element before x untouched.
template <class T>
void cg_at_offset() {
    const auto& s = wb::step<wb::CgArgs<T>>(5);
    for (int n : small_run() ? std::vector<int>{1, 64} : std::vector<int>{1, 97, 1024, 2049}) {
        const std::uint64_t seed = wb::fresh_seed();
        auto p = wb::make_cg_problem<T>(n, n, 100, sizeof(T) == 4 ? 1e-5 : 1e-10, 4 * n + 100, seed);
        wb_test::OffsetCg<T> o(p);
        o.reset();
        const auto a = o.args();
        const auto l = s.default_launch(a);
        p.result = wb::CgResult{-1, NAN, wb::CgStatus::MaxIter};
        s.launch(a, l, nullptr);
        WB_CUDA(cudaDeviceSynchronize());
        const std::vector<T> x = o.solution();
        const double r = wb::ref::true_residual<T>(n, p.hA.data(), n, p.hb.data(), x.data());
        INFO(prec<T>() << " cg n " << n << " +1, seed " << seed << ", " << l.str() << ": "
                       << wb::cg_status_name(p.result.status) << " after " << p.result.iterations
                       << " iterations, true residual " << r);
        CHECK(p.result.status == wb::CgStatus::Converged);
        CHECK(r <= wb::cg_residual_bound<T>(p.tol, p.kappa));
        CHECK(std::isnan(static_cast<double>(o.x.download()[0])));
    }
}

}  // namespace

TEST_CASE("misaligned: tuned GEMV at bases one element in", "[gpu][misaligned][gemv]") {
    gemv_at_offset<float>();
    gemv_at_offset<double>();
}

TEST_CASE("misaligned: tuned GEMM at bases one element in", "[gpu][misaligned][gemm]") {
    gemm_at_offset<float>();
    gemm_at_offset<double>();
}

TEST_CASE("misaligned: tuned convolution at bases one element in", "[gpu][misaligned][conv2d]") {
    conv2d_at_offset<float>();
    conv2d_at_offset<double>();
}

TEST_CASE("misaligned: tuned SYMV at bases one element in", "[gpu][misaligned][symv]") {
    symv_at_offset<float>();
    symv_at_offset<double>();
}

TEST_CASE("misaligned: tuned CG at bases one element in", "[gpu][misaligned][cg]") {
    cg_at_offset<float>();
    cg_at_offset<double>();
}
