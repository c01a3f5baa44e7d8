// Launchers with a workspace (GEMV's split partials and tickets, SYMV's partials, GEMM's split k)
// called on two streams at once: each stream must have its own workspace (common/buffer.hpp),
// otherwise the two calls overwrite each other's partials and both results are wrong.
// Each problem is first run alone (stream 0) for its bits; then the two problems are queued
// `rounds` times each on two non-blocking streams without a synchronization in between (the
// kernels of the two streams overlap), beta = 0 so that every call recomputes its output from
// scratch, and the final outputs must be those bits (the steps are deterministic: any collision
// changes them). The solo results' correctness is the ladder tests' job.
// Run: ./build/bin/wb_gpu_tests "[streams]"
#include "catch.hpp"

#include "gemm_problem.hpp"
#include "gemv_problem.hpp"
#include "random.hpp"
#include "symv_problem.hpp"

#include <cuda_runtime.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

bool small() { return std::getenv("WB_TEST_SMALL") != nullptr; }

struct Streams {
    cudaStream_t s[2] = {nullptr, nullptr};
    Streams() {
        for (auto& x : s) WB_CUDA(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
    }
    ~Streams() {
        for (auto& x : s) cudaStreamDestroy(x);
    }
};

/// run(i, stream) launches problem i (0 or 1) on `stream`; out(i) downloads its output.
template <class V>
void check_two_streams(const std::string& what, const std::function<void(int, cudaStream_t)>& run,
                       const std::function<V(int)>& out) {
    V solo[2];
    for (int i = 0; i < 2; ++i) {
        run(i, nullptr);
        WB_CUDA(cudaDeviceSynchronize());
        solo[i] = out(i);
    }
    REQUIRE(solo[0] != solo[1]);  // different inputs: a swapped or mixed result cannot pass
    Streams st;
    const int rounds = small() ? 2 : 12;
    for (int r = 0; r < rounds; ++r)
        for (int i = 0; i < 2; ++i) run(i, st.s[i]);
    WB_CUDA(cudaDeviceSynchronize());
    for (int i = 0; i < 2; ++i) {
        INFO(what << ": problem " << i << " after " << rounds << " calls on each of two streams");
        CHECK(out(i) == solo[i]);
    }
}

}  // namespace

TEST_CASE("symv: deterministic calls on two streams at once keep their own partials", "[gpu][symv][streams]") {
    const int n = small() ? 200 : 3001;
    for (wb::Uplo u : {wb::Uplo::Lower, wb::Uplo::Upper}) {
        wb::SymvProblem<float> p[2] = {wb::make_symv_problem<float>(u, n, n, wb::fresh_seed(), 1.5f, 0.f),
                                       wb::make_symv_problem<float>(u, n, n, wb::fresh_seed(), 1.5f, 0.f)};
        for (const auto& step : wb::ladder<wb::SymvArgs<float>>()) {
            if (step.chapter < wb::chapter_of(wb::Stage::kPattern)) continue;  // the workspace users: pattern on
            wb::SymvLaunch l = step.default_launch(p[0].args());
            l.atomics = 0;
            check_two_streams<std::vector<float>>(
                step.stage + " " + wb::uplo_char(u) + " n=" + std::to_string(n) + " " + l.str(),
                [&](int i, cudaStream_t s) { step.launch(p[i].args(), l, s); }, [&](int i) { return p[i].y.download(); });
        }
    }
}

TEST_CASE("gemv: split reductions on two streams at once keep their own partials and tickets", "[gpu][gemv][streams]") {
    // Few rows and a long reduction (N), few columns (T): the shapes the tuned step splits.
    const int len = small() ? 20000 : 200000;
    for (wb::Op op : {wb::Op::N, wb::Op::T}) {
        const int m = op == wb::Op::N ? 64 : len, n = op == wb::Op::N ? len : 64;
        wb::GemvProblem<float> p[2] = {wb::make_gemv_problem<float>(op, m, n, m, wb::fresh_seed(), 1.5f, 0.f),
                                       wb::make_gemv_problem<float>(op, m, n, m, wb::fresh_seed(), 1.5f, 0.f)};
        const auto& step = wb::step<wb::GemvArgs<float>>(5);
        wb::GemvLaunch l = step.default_launch(p[0].args());
        l.cluster = 1;  // partials through the global workspace (a cluster reduction needs none)
        INFO("default launch " << step.default_launch(p[0].args()).str());
        REQUIRE(l.Y > 1);  // the split this test is about
        check_two_streams<std::vector<float>>(
            std::string("tuned ") + (op == wb::Op::N ? "N " : "T ") + std::to_string(m) + "x" + std::to_string(n) + " " +
                l.str(),
            [&](int i, cudaStream_t s) { step.launch(p[i].args(), l, s); }, [&](int i) { return p[i].y.download(); });
    }
}

TEST_CASE("gemm: split-k calls on two streams at once keep their own partials", "[gpu][gemm][streams]") {
    const int mn = small() ? 64 : 256, k = small() ? 1024 : 8192;
    const wb::GemmShape shape{wb::Op::N, wb::Op::N, mn, mn, k};
    wb::GemmProblem<float> p[2] = {wb::make_gemm_problem<float>(shape, wb::fresh_seed(), 1.5f, 0.f),
                                   wb::make_gemm_problem<float>(shape, wb::fresh_seed(), 1.5f, 0.f)};
    const auto& step = wb::step<wb::GemmArgs<float>>(5);
    wb::GemmLaunch l = step.default_launch(p[0].args());
    l.split_k = 4;
    check_two_streams<std::vector<float>>(
        "tuned " + shape.str() + " " + l.str(), [&](int i, cudaStream_t s) { step.launch(p[i].args(), l, s); },
        [&](int i) { return p[i].C.download(); });
}
