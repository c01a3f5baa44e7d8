// Determinism: each op's default step (chapter 5, tuned, its default launch) gives bit-identical
// results on repeated calls with the same inputs, on shapes that take each mechanism whose order
// of summation could vary: GEMV's split reductions (Y blocks per output: skinny shapes) and
// looping tiles, GEMM's split k (a small C with a long k) and its aligned copies (4097), the
// convolution's stream and filter-row kernels, SYMV's partials and their fixed-order reduction,
// CG's whole solve (iterations and x). Each call starts from the same inputs (the output restored
// or poisoned the same way); the outputs are compared with memcmp, three calls each, with a call
// on another shape in between (a workspace left dirty must not change the next result).
// Excepted, labelled and not asserted: the atomics modes, which are not reproducible by design:
// SYMV's tuned atomics launch (SymvLaunch::atomics = 1) and cuBLAS's CUBLAS_ATOMICS_ALLOWED.
// (No other step of the workbook uses floating-point atomics: the tuned SYMV's files are the only
// ones that call atomicAdd.)
// Run: ./build/bin/wb_gpu_tests "[determinism]"
#include "catch.hpp"

#include "cg_problem.hpp"
#include "check.hpp"
#include "conv2d_problem.hpp"
#include "gemm_problem.hpp"
#include "gemv_problem.hpp"
#include "random.hpp"
#include "symv_problem.hpp"

#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace {

bool small_run() { return std::getenv("WB_TEST_SMALL") != nullptr; }

/// Calls `run` three times (`between` after the first, on another shape) and requires the same
/// bits each time.
template <class T>
void same_bits(const std::function<std::vector<T>()>& run, const std::function<void()>& between,
               const std::string& what) {
    INFO(what);
    const std::vector<T> first = run();
    REQUIRE(!first.empty());
    between();
    for (int call = 2; call <= 3; ++call) {
        const std::vector<T> again = run();
        INFO("call " << call);
        REQUIRE(again.size() == first.size());
        std::size_t differ = 0, first_at = first.size();
        for (std::size_t i = 0; i < first.size(); ++i)
            if (std::memcmp(&first[i], &again[i], sizeof(T)) != 0) {
                if (differ++ == 0) first_at = i;
            }
        INFO(differ << " elements differ, the first at " << first_at);
        CHECK(differ == 0);
    }
}

/// Three calls of chapter 5's step with its default launch on `p` (`restore` puts the output back
/// the same way first, `output` reads it), a call on `other` between the first two.
template <class T, class Args, class P>
void repeat_tuned(P& p, P& other, const std::function<void(std::type_identity_t<P>&)>& restore,
                  const std::function<std::vector<T>(std::type_identity_t<P>&)>& output, const std::string& what) {
    const wb::Step<Args>& s = wb::step<Args>(5);
    const auto l = s.default_launch(p.args());
    auto call = [&](P& q, const typename Args::Launch& launch) {
        restore(q);
        s.launch(q.args(), launch, nullptr);
        WB_CUDA(cudaDeviceSynchronize());
    };
    auto run = [&] {
        call(p, l);
        return output(p);
    };
    same_bits<T>(run, [&] { call(other, s.default_launch(other.args())); }, what + " " + l.str());
}

template <class T>
void gemv_case(wb::Op op, int m, int n) {
    auto p = wb::make_gemv_problem<T>(op, m, n, m, wb::fresh_seed());
    auto other = wb::make_gemv_problem<T>(op, 33, 4097, 33, wb::fresh_seed());
    repeat_tuned<T, wb::GemvArgs<T>>(
        p, other, [](auto& q) { q.y.upload(q.hy); }, [](auto& q) { return q.y.download(); },
        std::string("gemv ") + wb::op_char(op) + " " + std::to_string(m) + "x" + std::to_string(n));
}

template <class T>
void gemm_case(wb::GemmShape shape) {
    auto p = wb::make_gemm_problem<T>(shape, wb::fresh_seed());
    auto other = wb::make_gemm_problem<T>(wb::GemmShape{wb::Op::N, wb::Op::N, 64, 64, 4096}, wb::fresh_seed());
    repeat_tuned<T, wb::GemmArgs<T>>(
        p, other, [](auto& q) { q.C.upload(q.hC); }, [](auto& q) { return q.C.download(); }, "gemm " + shape.str());
}

template <class T>
void conv2d_case(int n, int fs) {
    auto p = wb::make_conv2d_problem<T>(wb::Conv2dShape{n, n, fs}, wb::fresh_seed());
    auto other = wb::make_conv2d_problem<T>(wb::Conv2dShape{37, 53, 5}, wb::fresh_seed());
    repeat_tuned<T, wb::Conv2dArgs<T>>(
        p, other, [](auto& q) { q.out.fill_bytes(0xFF); }, [](auto& q) { return q.out.download(); },
        "conv2d " + p.shape.str());
}

template <class T>
void symv_case(wb::Uplo u, int n) {
    auto p = wb::make_symv_problem<T>(u, n, n, wb::fresh_seed());
    auto other = wb::make_symv_problem<T>(u, 301, 301, wb::fresh_seed());
    REQUIRE(wb::step<wb::SymvArgs<T>>(5).default_launch(p.args()).atomics == 0);  // the deterministic mode
    repeat_tuned<T, wb::SymvArgs<T>>(
        p, other, [](auto& q) { q.y.upload(q.hy); }, [](auto& q) { return q.y.download(); },
        std::string("symv ") + wb::uplo_char(u) + " n=" + std::to_string(n));
}

template <class T>
void cg_case(int n) {
    auto p = wb::make_cg_problem<T>(n, n, 100, sizeof(T) == 4 ? 1e-5 : 1e-10, 4 * n + 100, wb::fresh_seed());
    auto other = wb::make_cg_problem<T>(97, 97, 100, 1e-5, 1000, wb::fresh_seed());
    std::vector<int> iterations;  // of p's solves
    repeat_tuned<T, wb::CgArgs<T>>(
        p, other, [](auto& q) { q.x.upload(q.hx0); },
        [&](auto& q) {
            iterations.push_back(q.result.iterations);
            return q.x.download();
        },
        "cg n=" + std::to_string(n));
    REQUIRE(iterations.size() == 3);
    CHECK(iterations[1] == iterations[0]);
    CHECK(iterations[2] == iterations[0]);
}

}  // namespace

TEST_CASE("determinism: GEMV's default step gives the same bits on every call", "[gpu][determinism][gemv]") {
    const int big = small_run() ? 600 : 200000;
    for (wb::Op op : {wb::Op::N, wb::Op::T}) {
        gemv_case<float>(op, small_run() ? 300 : 4096, small_run() ? 300 : 4096);
        gemv_case<double>(op, small_run() ? 300 : 4096, small_run() ? 300 : 4096);
        gemv_case<float>(op, 32, big);  // long reductions for op T, short ones for op N: split either way
        gemv_case<float>(op, big, 32);
        gemv_case<double>(op, 64, big);
    }
}

TEST_CASE("determinism: GEMM's default step gives the same bits on every call (split k, aligned copies)",
          "[gpu][determinism][gemm]") {
    using wb::Op;
    const int n = small_run() ? 64 : 1024, k = small_run() ? 512 : 16384, odd = small_run() ? 129 : 4097;
    for (Op oa : {Op::N, Op::T}) {
        gemm_case<float>(wb::GemmShape{oa, Op::N, n, n, k});  // a small C with a long k: split
        gemm_case<double>(wb::GemmShape{oa, Op::N, n, n, k});
        gemm_case<float>(wb::GemmShape{oa, Op::N, odd, odd, odd});  // unaligned columns: copied first
    }
}

TEST_CASE("determinism: the convolution's default step gives the same bits on every call",
          "[gpu][determinism][conv2d]") {
    const int n = small_run() ? 129 : 2048;
    for (int fs : {3, 7, 31}) {
        conv2d_case<float>(n, fs);
        conv2d_case<double>(n, fs);
    }
}

TEST_CASE("determinism: SYMV's default (deterministic) mode gives the same bits on every call; its atomics mode "
          "and cuBLAS's are excepted",
          "[gpu][determinism][symv]") {
    for (wb::Uplo u : {wb::Uplo::Lower, wb::Uplo::Upper})
        for (int n : small_run() ? std::vector<int>{97, 300} : std::vector<int>{1000, 8192}) {
            symv_case<float>(u, n);
            symv_case<double>(u, n);
        }
}

TEST_CASE("determinism: CG's default step takes the same iterations to the same x on every solve",
          "[gpu][determinism][cg]") {
    for (int n : small_run() ? std::vector<int>{64} : std::vector<int>{500, 4096}) {
        cg_case<float>(n);
        cg_case<double>(n);
    }
}
