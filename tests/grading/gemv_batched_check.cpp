// The GPU check of chapter 1's batched-GEMV exercise (gemv_batched_check.hpp).
#include "gemv_batched_check.hpp"

#include "buffer.hpp"
#include "error_norm.hpp"
#include "exercise_check.hpp"
#include "random.hpp"

#include <cmath>
#include <limits>

namespace wb::grade::test {

namespace {

constexpr long long kGuardY = 1024;  // after y, holding kSentinel

}  // namespace

std::string GemvCase::label() const {
    return std::string("trans=") + trans + " m=" + std::to_string(m) + " n=" + std::to_string(n) + " batch=" +
           std::to_string(batch) + " lda=" + std::to_string(lda) + " incx=" + std::to_string(incx) + " incy=" +
           std::to_string(incy) + " beta=" + (beta == 0.0f ? "0" : "0.5");
}

const std::vector<GemvCase>& gemv_batched_cases() {
    static const std::vector<GemvCase> cases = {
        {'N', 1, 1, 1, 1, 1, 1, 0, 0, 0, 1.0f, 0.0f},
        {'T', 1, 1, 3, 1, 1, 1, 0, 0, 0, 1.0f, 0.5f},
        {'N', 3, 5, 2, 4, 2, 3, 7, 1, 2, 0.75f, 0.5f},
        {'T', 3, 5, 2, 4, 3, 2, 7, 1, 2, 0.75f, 0.0f},
        {'N', 127, 129, 3, 130, 1, 1, 5, 0, 3, 1.0f, 0.5f},
        {'T', 127, 129, 3, 130, 1, 1, 5, 0, 3, 1.0f, 0.5f},
        {'N', 1025, 1023, 5, 1025, 1, 2, 0, 0, 0, -1.0f, 0.0f},
        {'T', 1023, 1025, 5, 1024, 2, 1, 0, 0, 0, -1.0f, 0.5f},
        {'N', 4097, 3, 4, 4100, 1, 1, 0, 0, 0, 1.0f, 0.5f},
        {'T', 3, 4097, 4, 3, 1, 1, 0, 0, 0, 1.0f, 0.5f},
        {'N', 16, 16, 3001, 17, 1, 1, 1, 0, 1, 1.0f, 0.5f},  // many small products: the grid loops
        {'T', 16, 16, 3001, 16, 1, 1, 0, 0, 0, 1.0f, 0.0f},
    };
    return cases;
}

std::string check_gemv_batched(wb::ex::GemvBatchedFn fn, const GemvCase& c, unsigned long long seed) {
    wb::ex::GemvBatchedArgs a;
    a.trans = c.trans; a.m = c.m; a.n = c.n; a.batch = c.batch; a.alpha = c.alpha; a.beta = c.beta;
    a.lda = c.lda; a.incx = c.incx; a.incy = c.incy;
    const long long xlen = wb::ex::gemv_x_len(a), ylen = wb::ex::gemv_y_len(a);
    a.strideA = static_cast<long long>(c.lda) * c.n + c.padA;
    a.stridex = (xlen - 1) * c.incx + 1 + c.padx;
    a.stridey = (ylen - 1) * c.incy + 1 + c.pady;
    // Guard bands after A and x too: an unguarded kernel reads a few rows past them.
    std::vector<float> A = wb::random_vector<float>(static_cast<std::size_t>(c.batch * a.strideA + 64LL * c.lda + 64), seed);
    std::vector<float> x = wb::random_vector<float>(static_cast<std::size_t>(c.batch * a.stridex + 4096), seed + 1);
    std::vector<float> y(static_cast<std::size_t>(c.batch * a.stridey + kGuardY), kSentinel);
    const std::vector<float> fresh = wb::random_vector<float>(y.size(), seed + 2);
    std::vector<std::size_t> entries;
    for (long long b = 0; b < c.batch; ++b)
        for (long long k = 0; k < ylen; ++k) entries.push_back(static_cast<std::size_t>(b * a.stridey + k * c.incy));
    for (std::size_t e : entries) y[e] = c.beta == 0.0f ? std::numeric_limits<float>::quiet_NaN() : fresh[e];
    try {
        DeviceBuffer<float> dA(A), dx(x), dy(y);
        a.A = dA.data(); a.x = dx.data(); a.y = dy.data();
        const std::vector<double> ref = wb::ex::gemv_batched_reference(a, A, x, y);
        fn(a, nullptr);
        WB_CUDA(cudaDeviceSynchronize());
        const std::vector<float> out = dy.download();
        std::vector<bool> is_entry(out.size(), false);
        for (std::size_t e : entries) is_entry[e] = true;
        const std::size_t end = out.size() - kGuardY;
        return compare_output(out, is_entry, ref, wb::tolerance<float>(static_cast<std::size_t>(xlen)), [&](std::size_t i) {
            return "outside y (index " + std::to_string(i) + (i >= end ? ", past its end)" : ", a gap between entries)");
        });
    } catch (const std::exception& e) {
        return std::string("error: ") + e.what();
    }
}

std::string check_gemv_batched_all(wb::ex::GemvBatchedFn fn, unsigned long long seed) {
    return first_failure(gemv_batched_cases(), [&](const GemvCase& c) { return check_gemv_batched(fn, c, seed); }, true);
}

double time_gemv_batched_ms(wb::ex::GemvBatchedFn fn, unsigned long long seed) {
    wb::ex::GemvBatchedArgs a;  // 16 products of 2048 x 2048: 256 MiB of A, bandwidth-bound
    a.m = a.n = a.lda = 2048; a.batch = 16;
    a.strideA = 2048LL * 2048; a.stridex = a.stridey = 2048;
    DeviceBuffer<float> dA(wb::random_vector<float>(static_cast<std::size_t>(a.batch * a.strideA), seed));
    DeviceBuffer<float> dx(wb::random_vector<float>(static_cast<std::size_t>(a.batch * a.stridex), seed + 1));
    DeviceBuffer<float> dy(static_cast<std::size_t>(a.batch * a.stridey));
    a.A = dA.data(); a.x = dx.data(); a.y = dy.data();
    return median_ms([&](cudaStream_t s) { fn(a, s); });
}

}  // namespace wb::grade::test
