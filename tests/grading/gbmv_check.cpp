// The GPU check of chapter 3's GBMV exercise (gbmv_check.hpp).
#include "gbmv_check.hpp"

#include "buffer.hpp"
#include "error_norm.hpp"
#include "exercise_check.hpp"
#include "random.hpp"

#include <limits>

namespace wb::grade::test {

namespace {

constexpr std::size_t kGuardY = 1024;  // after y, holding kSentinel

}  // namespace

std::string GbmvCase::label() const {
    return std::string("trans=") + trans + " m=" + std::to_string(m) + " n=" + std::to_string(n) + " kl=" +
           std::to_string(kl) + " ku=" + std::to_string(ku) + " lda=" + std::to_string(lda) + " incx=" +
           std::to_string(incx) + " incy=" + std::to_string(incy) + " beta=" + (beta == 0.0f ? "0" : "0.5");
}

const std::vector<GbmvCase>& gbmv_cases() {
    static const std::vector<GbmvCase> cases = {
        {'N', 1, 1, 0, 0, 1, 1, 1, 1.0f, 0.0f},
        {'T', 5, 3, 2, 1, 4, 1, 1, 1.0f, 0.5f},
        {'N', 37, 41, 3, 5, 10, 2, 3, 0.75f, 0.5f},
        {'T', 37, 41, 5, 3, 9, 3, 2, 0.75f, 0.0f},
        {'N', 100, 100, 0, 7, 8, 1, 1, 1.0f, 0.5f},     // upper triangular band
        {'T', 100, 100, 7, 0, 8, 1, 1, 1.0f, 0.5f},     // lower
        {'N', 30, 20, 40, 50, 91, 1, 1, 1.0f, 0.5f},    // bands wider than the matrix
        {'N', 1025, 1023, 31, 32, 64, 1, 1, -1.0f, 0.0f},
        {'T', 1023, 1025, 17, 60, 80, 1, 2, 1.0f, 0.5f},
        {'N', 20000, 300, 50, 10, 61, 1, 1, 1.0f, 0.5f},   // tall: many row blocks
        {'T', 300, 20000, 10, 50, 61, 1, 1, 1.0f, 0.0f},   // wide
    };
    return cases;
}

std::string check_gbmv(wb::ex::GbmvFn fn, const GbmvCase& c, unsigned long long seed) {
    wb::ex::GbmvArgs a;
    a.trans = c.trans; a.m = c.m; a.n = c.n; a.kl = c.kl; a.ku = c.ku; a.lda = c.lda;
    a.incx = c.incx; a.incy = c.incy; a.alpha = c.alpha; a.beta = c.beta;
    const long long xlen = c.trans == 'N' ? c.n : c.m, ylen = c.trans == 'N' ? c.m : c.n;
    // Other data before and after AB and x: a kernel that reads outside the band finds it.
    const std::size_t front_a = 64u * static_cast<std::size_t>(c.lda) + 64, front_x = 256;
    const std::size_t ab_size = static_cast<std::size_t>(c.lda) * static_cast<std::size_t>(c.n);
    const std::size_t x_size = static_cast<std::size_t>((xlen - 1) * c.incx + 1);
    const std::vector<float> A = wb::random_vector<float>(front_a + ab_size + front_a, seed);
    const std::vector<float> x = wb::random_vector<float>(front_x + x_size + front_x, seed + 1);
    const std::size_t y_size = static_cast<std::size_t>((ylen - 1) * c.incy + 1);
    std::vector<float> y(y_size + kGuardY, kSentinel);
    const std::vector<float> fresh = wb::random_vector<float>(y.size(), seed + 2);
    for (long long k = 0; k < ylen; ++k) {
        const std::size_t at = static_cast<std::size_t>(k * c.incy);
        y[at] = c.beta == 0.0f ? std::numeric_limits<float>::quiet_NaN() : fresh[at];
    }
    try {
        DeviceBuffer<float> dA(A), dx(x), dy(y);
        a.A = dA.data() + front_a; a.x = dx.data() + front_x; a.y = dy.data();
        const std::vector<float> hA(A.begin() + static_cast<std::ptrdiff_t>(front_a), A.end());
        const std::vector<float> hx(x.begin() + static_cast<std::ptrdiff_t>(front_x), x.end());
        const std::vector<double> ref = wb::ex::gbmv_reference(a, hA, hx, y);
        fn(a, nullptr);
        WB_CUDA(cudaDeviceSynchronize());
        const std::vector<float> out = dy.download();
        std::vector<bool> is_entry(out.size(), false);
        for (std::size_t i = 0; i < y_size; i += static_cast<std::size_t>(c.incy)) is_entry[i] = true;
        return compare_output(out, is_entry, ref, wb::tolerance<float>(static_cast<std::size_t>(c.kl + c.ku + 1)), [&](std::size_t i) {
            return "outside y (index " + std::to_string(i) + (i >= y_size ? ", past its end)" : ", a gap between entries)");
        });
    } catch (const std::exception& e) {
        return std::string("error: ") + e.what();
    }
}

std::string check_gbmv_all(wb::ex::GbmvFn fn, unsigned long long seed) {
    return first_failure(gbmv_cases(), [&](const GbmvCase& c) { return check_gbmv(fn, c, seed); }, true);
}

double time_gbmv_ms(wb::ex::GbmvFn fn, unsigned long long seed) {
    wb::ex::GbmvArgs a;  // 65536 results of a band of 255: 16.7 M products
    a.m = a.n = 65536; a.kl = a.ku = 127; a.lda = 255;
    DeviceBuffer<float> dA(wb::random_vector<float>(255u * 65536u, seed));
    DeviceBuffer<float> dx(wb::random_vector<float>(65536, seed + 1));
    DeviceBuffer<float> dy(65536);
    a.A = dA.data(); a.x = dx.data(); a.y = dy.data();
    return median_ms([&](cudaStream_t s) { fn(a, s); });
}

}  // namespace wb::grade::test
