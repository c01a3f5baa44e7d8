// The GPU check of chapter 3's SPMV exercise (spmv_check.hpp).
#include "spmv_check.hpp"

#include "buffer.hpp"
#include "error_norm.hpp"
#include "exercise_check.hpp"
#include "random.hpp"

#include <cmath>
#include <limits>

namespace wb::grade::test {

namespace {

constexpr std::size_t kGuardY = 1024;  // after y, holding kSentinel
constexpr std::size_t kFront = 256;    // other data before (and after) AP and x

}  // namespace

std::string SpmvCase::label() const {
    return std::string("uplo=") + uplo + " n=" + std::to_string(n) + " alpha=" + std::to_string(alpha) +
           " beta=" + (beta == 0.0f ? "0" : "0.5");
}

const std::vector<SpmvCase>& spmv_cases() {
    static const std::vector<SpmvCase> cases = {
        {'L', 1, 1.0f, 0.0f},      {'U', 1, 1.0f, 0.5f},     {'L', 2, 0.75f, 0.5f},  {'U', 2, 0.75f, 0.0f},
        {'L', 37, 1.0f, 0.5f},     {'U', 41, -1.0f, 0.0f},   {'L', 255, 1.0f, 0.0f}, {'U', 257, 1.0f, 0.5f},
        {'L', 1025, 0.5f, 0.5f},   {'U', 1023, 1.0f, 0.5f},  {'L', 4099, 1.0f, 0.0f},  // many columns per block, looped
        {'U', 4099, -0.5f, 0.5f},
    };
    return cases;
}

std::vector<double> spmv_magnitude(const wb::ex::SpmvArgs& a, const std::vector<float>& AP,
                                   const std::vector<float>& x, const std::vector<float>& y) {
    auto abs_of = [](const std::vector<float>& v) {
        std::vector<float> r(v.size());
        for (std::size_t i = 0; i < v.size(); ++i) r[i] = std::fabs(v[i]);
        return r;
    };
    wb::ex::SpmvArgs m = a;
    m.alpha = std::fabs(a.alpha);
    m.beta = std::fabs(a.beta);
    return wb::ex::spmv_reference(m, abs_of(AP), abs_of(x), abs_of(y));
}

std::string check_spmv(wb::ex::SpmvFn fn, const SpmvCase& c, unsigned long long seed) {
    wb::ex::SpmvArgs a;
    a.uplo = c.uplo; a.n = c.n; a.alpha = c.alpha; a.beta = c.beta;
    const std::size_t n = static_cast<std::size_t>(c.n);
    const std::size_t ap_size = static_cast<std::size_t>(wb::ex::spmv_packed_size(c.n));
    // Other data before and after AP and x: a kernel that reads outside them finds it.
    const std::vector<float> AP = wb::random_vector<float>(kFront + ap_size + kFront, seed);
    const std::vector<float> x = wb::random_vector<float>(kFront + n + kFront, seed + 1);
    std::vector<float> y(n + kGuardY, kSentinel);
    const std::vector<float> fresh = wb::random_vector<float>(n, seed + 2);
    for (std::size_t k = 0; k < n; ++k) y[k] = c.beta == 0.0f ? std::numeric_limits<float>::quiet_NaN() : fresh[k];
    try {
        DeviceBuffer<float> dAP(AP), dx(x), dy(y);
        a.AP = dAP.data() + kFront; a.x = dx.data() + kFront; a.y = dy.data();
        const std::vector<float> hAP(AP.begin() + static_cast<std::ptrdiff_t>(kFront), AP.end());
        const std::vector<float> hx(x.begin() + static_cast<std::ptrdiff_t>(kFront), x.end());
        const std::vector<double> ref = wb::ex::spmv_reference(a, hAP, hx, y);
        fn(a, nullptr);
        WB_CUDA(cudaDeviceSynchronize());
        const std::vector<float> out = dy.download();
        std::vector<bool> is_entry(out.size(), false);
        for (std::size_t i = 0; i < n; ++i) is_entry[i] = true;
        return compare_output_scaled(out, is_entry, ref, spmv_magnitude(a, hAP, hx, y), wb::tolerance<float>(n),
                                     [&](std::size_t i) {
            return "outside y (index " + std::to_string(i) + ", past its end)";
        });
    } catch (const std::exception& e) {
        return std::string("error: ") + e.what();
    }
}

std::string check_spmv_all(wb::ex::SpmvFn fn, unsigned long long seed) {
    return first_failure(spmv_cases(), [&](const SpmvCase& c) { return check_spmv(fn, c, seed); }, true);
}

double time_spmv_ms(wb::ex::SpmvFn fn, unsigned long long seed) {
    wb::ex::SpmvArgs a;  // n = 8192: 33.6 M stored entries, 134 MB
    a.n = 8192;
    DeviceBuffer<float> dAP(wb::random_vector<float>(static_cast<std::size_t>(wb::ex::spmv_packed_size(a.n)), seed));
    DeviceBuffer<float> dx(wb::random_vector<float>(8192, seed + 1));
    DeviceBuffer<float> dy(8192);
    a.AP = dAP.data(); a.x = dx.data(); a.y = dy.data();
    return median_ms([&](cudaStream_t s) { fn(a, s); });
}

}  // namespace wb::grade::test
