// Who issues a chapter 7 hybrid's GPU share (kernels/cpu/hybrid_common.hpp): detail::page_locked
// tells page-locked host memory (an interior pointer too) from ordinary, device and managed
// memory; with both sides working, the calling thread issues the GPU share where every host array
// it copies is page-locked (the worker never begins: SideTimes::gpu_began_ms stays 0) and the GPU
// worker does where one is pageable. Which arrays count is detail::run's rule: the outputs and
// the inputs larger than a vector, so a pageable x alone leaves the issue on the calling thread.
#include "catch.hpp"

#include "buffer.hpp"
#include "cpu_peers.hpp"
#include "hybrid_common.hpp"
#include "hybrid_gemv.hpp"
#include "hybrid_symv.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

TEST_CASE("hybrid: page_locked tells page-locked host memory from the rest", "[gpu][split]") {
    using wb::hybrid::detail::page_locked;
    wb::PinnedBuffer<float> pinned(1024);
    std::vector<float> pageable(1024, 1.0f);
    void* device = nullptr;
    void* managed = nullptr;
    REQUIRE(cudaMalloc(&device, 1024 * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMallocManaged(&managed, 1024 * sizeof(float)) == cudaSuccess);
    CHECK(page_locked({pinned.data()}));
    CHECK(page_locked({pinned.data() + 7}));  // an interior pointer (an offset base pointer)
    CHECK(page_locked({pinned.data(), nullptr}));  // null: an operand the call does not read
    CHECK(page_locked({}));
    CHECK_FALSE(page_locked({pageable.data()}));
    CHECK_FALSE(page_locked({pinned.data(), pageable.data()}));
    CHECK_FALSE(page_locked({device}));
    CHECK_FALSE(page_locked({managed}));
    CHECK(cudaGetLastError() == cudaSuccess);  // nothing left pending for the next CUDA call
    cudaFree(device);
    cudaFree(managed);
}

TEST_CASE("hybrid: the calling thread issues the GPU share of page-locked arrays, the worker of pageable ones",
          "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    const int n = 513;
    for (bool pinned : {true, false}) {
        INFO("pinned " << pinned);
        wb::PinnedBuffer<float> pa(static_cast<std::size_t>(n) * n), px(n), py(n);
        std::vector<float> va(static_cast<std::size_t>(n) * n, 0.5f), vx(n, 0.25f), vy(n, 0.0f);
        float* A = pinned ? pa.data() : va.data();
        float* x = pinned ? px.data() : vx.data();
        float* y = pinned ? py.data() : vy.data();
        if (pinned) {
            std::copy(va.begin(), va.end(), A);
            std::copy(vx.begin(), vx.end(), x);
        }
        const wb::GemvArgs<float> a{wb::Op::N, n, n, 1.0f, A, n, x, 0.0f, y};
        wb::hybrid::gemv(a, n / 2, n / 8);  // both sides work
        const wb::hybrid::SideTimes t = wb::hybrid::last_side_times();
        CHECK(t.gpu_issued_ms > 0);
        if (pinned) CHECK(t.gpu_began_ms == 0);  // no worker began
        else CHECK(t.gpu_began_ms > 0);
        CHECK(t.issued_on_caller == pinned);  // what chapter 7's model reads: the CPU's share waited for the issue
        for (int i = 0; i < n; ++i) REQUIRE(y[i] == Approx(0.125 * n).epsilon(1e-5));  // every row computed
    }
}

TEST_CASE("hybrid: a pageable vector x leaves the issue on the calling thread, a pageable y does not",
          "[gpu][split]") {
    // GEMV and SYMV with A page-locked and one vector pageable (an offset x, odd n): x is staged in
    // microseconds and does not count; y is copied back and does. The result is checked either way.
    if (!wb::cpu::have_cblas()) return;
    const int n = 515;
    const std::size_t nn = static_cast<std::size_t>(n) * n;
    wb::PinnedBuffer<double> pa(nn), px(n + 3), py(n);
    std::vector<double> vx(n + 3), vy(n);
    for (std::size_t i = 0; i < nn; ++i) pa.data()[i] = 0.25 + static_cast<double>(i % 7) / 16;
    for (int pageable_y : {0, 1}) {
        INFO("pageable " << (pageable_y ? "y" : "x"));
        double* x = (pageable_y ? px.data() : vx.data()) + 3;  // an offset base pointer
        double* y = pageable_y ? vy.data() : py.data();
        for (int i = 0; i < n; ++i) x[i] = 1.0 + static_cast<double>(i % 5) / 8;
        // y = A x in double, column-major, the reference (GEMV: all of A; SYMV: A's lower triangle)
        std::vector<double> ref_gemv(n, 0.0), ref_symv(n, 0.0);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                const double a = pa.data()[static_cast<std::size_t>(j) * n + i];
                ref_gemv[i] += a * x[j];
                const double s = pa.data()[static_cast<std::size_t>(std::min(i, j)) * n + std::max(i, j)];
                ref_symv[i] += s * x[j];
            }
        std::fill(y, y + n, -7.0);  // poison: beta = 0 must not read it
        wb::hybrid::gemv(wb::GemvArgs<double>{wb::Op::N, n, n, 1.0, pa.data(), n, x, 0.0, y}, n / 3, n / 8);
        wb::hybrid::SideTimes t = wb::hybrid::last_side_times();
        CHECK(t.issued_on_caller == !pageable_y);
        for (int i = 0; i < n; ++i) REQUIRE(y[i] == Approx(ref_gemv[i]).epsilon(1e-12));
        std::fill(y, y + n, -7.0);
        wb::hybrid::symv(wb::SymvArgs<double>{wb::Uplo::Lower, n, 1.0, pa.data(), n, x, 1, 0.0, y, 1}, n / 3, n / 8);
        t = wb::hybrid::last_side_times();
        CHECK(t.issued_on_caller == !pageable_y);
        for (int i = 0; i < n; ++i) REQUIRE(y[i] == Approx(ref_symv[i]).epsilon(1e-12));
    }
}
