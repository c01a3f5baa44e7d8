// The GPU check of chapter 4's SPMV exercise with a workspace (spmv_workspace_check.hpp).
#include "spmv_workspace_check.hpp"

#include "buffer.hpp"
#include "error_norm.hpp"
#include "exercise_check.hpp"
#include "random.hpp"
#include "spmv_check.hpp"

#include <cstring>
#include <limits>

namespace wb::grade::test {

namespace {

constexpr std::size_t kGuard = 1024;  // after y and after work, holding kSentinel
constexpr std::size_t kFront = 256;   // other data before (and after) AP and x

// work: NaN in its P n entries (read only what you wrote), then the sentinel.
std::vector<float> poisoned_work(long long n) {
    const std::size_t size = static_cast<std::size_t>(wb::ex::spmv_workspace_size(n));
    std::vector<float> w(size + kGuard, kSentinel);
    std::fill(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(size), std::numeric_limits<float>::quiet_NaN());
    return w;
}

}  // namespace

std::string check_spmv_workspace(wb::ex::SpmvWorkspaceFn fn, const SpmvCase& c, unsigned long long seed) {
    wb::ex::SpmvWorkspaceArgs a;
    a.uplo = c.uplo; a.n = c.n; a.alpha = c.alpha; a.beta = c.beta;
    const std::size_t n = static_cast<std::size_t>(c.n), ap_size = static_cast<std::size_t>(wb::ex::spmv_packed_size(c.n));
    const std::vector<float> AP = wb::random_vector<float>(kFront + ap_size + kFront, seed);
    const std::vector<float> x = wb::random_vector<float>(kFront + n + kFront, seed + 1);
    std::vector<float> y(n + kGuard, kSentinel);
    const std::vector<float> fresh = wb::random_vector<float>(n, seed + 2);
    for (std::size_t k = 0; k < n; ++k) y[k] = c.beta == 0.0f ? std::numeric_limits<float>::quiet_NaN() : fresh[k];
    const std::vector<float> work = poisoned_work(c.n);
    try {
        DeviceBuffer<float> dAP(AP), dx(x), dy(y), dw(work);
        a.AP = dAP.data() + kFront; a.x = dx.data() + kFront; a.y = dy.data(); a.work = dw.data();
        const std::vector<float> hAP(AP.begin() + static_cast<std::ptrdiff_t>(kFront), AP.end());
        const std::vector<float> hx(x.begin() + static_cast<std::ptrdiff_t>(kFront), x.end());
        const std::vector<double> ref = wb::ex::spmv_reference(a, hAP, hx, y);
        const std::vector<double> mag = spmv_magnitude(a, hAP, hx, y);
        std::vector<float> first;
        for (int run = 0; run < 2; ++run) {
            if (run == 1) {  // the same inputs at the same addresses: y as it was, work poisoned again
                dy.upload(y);
                dw.upload(work);
            }
            fn(a, nullptr);
            WB_CUDA(cudaDeviceSynchronize());
            const std::vector<float> out = dy.download();
            std::vector<bool> is_entry(out.size(), false);
            std::fill(is_entry.begin(), is_entry.begin() + static_cast<std::ptrdiff_t>(n), true);
            std::string why = compare_output_scaled(out, is_entry, ref, mag, wb::tolerance<float>(n), [&](std::size_t i) {
                return "outside y (index " + std::to_string(i) + ", past its end)";
            });
            if (!why.empty()) return why;
            why = check_guard(dw.download(), work.size() - kGuard, "work");
            if (!why.empty()) return why;
            if (run == 0) {
                first = out;
            } else {
                for (std::size_t i = 0; i < n; ++i)
                    if (std::memcmp(&out[i], &first[i], sizeof(float)) != 0)
                        return "not deterministic: y[" + std::to_string(i) + "] was " + std::to_string(first[i]) +
                               ", then " + std::to_string(out[i]) + " on the same inputs";
            }
        }
        return "";
    } catch (const std::exception& e) {
        return std::string("error: ") + e.what();
    }
}

std::string check_spmv_workspace_all(wb::ex::SpmvWorkspaceFn fn, unsigned long long seed) {
    return first_failure(spmv_cases(), [&](const SpmvCase& c) { return check_spmv_workspace(fn, c, seed); }, true);
}

double time_spmv_workspace_ms(wb::ex::SpmvWorkspaceFn fn, unsigned long long seed) {
    wb::ex::SpmvWorkspaceArgs a;  // n = 8192: 33.6 M stored entries, 134 MB; the workspace 16 MB
    a.n = 8192;
    DeviceBuffer<float> dAP(wb::random_vector<float>(static_cast<std::size_t>(wb::ex::spmv_packed_size(a.n)), seed));
    DeviceBuffer<float> dx(wb::random_vector<float>(8192, seed + 1));
    DeviceBuffer<float> dy(8192), dw(static_cast<std::size_t>(wb::ex::spmv_workspace_size(a.n)));
    a.AP = dAP.data(); a.x = dx.data(); a.y = dy.data(); a.work = dw.data();
    return median_ms([&](cudaStream_t s) { fn(a, s); });
}

}  // namespace wb::grade::test
