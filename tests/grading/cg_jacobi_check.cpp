// The GPU check of chapter 4's CG-update exercise (cg_jacobi_check.hpp).
#include "cg_jacobi_check.hpp"

#include "buffer.hpp"
#include "error_norm.hpp"
#include "exercise_check.hpp"
#include "random.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace wb::grade::test {

namespace {

constexpr std::size_t kGuard = 1024;  // after x, r and z, holding kSentinel
constexpr std::size_t kFront = 256;   // other data before and after p, q and dinv (16-byte multiple)
constexpr std::size_t kRzAt = 32;     // *rz inside a small buffer of sentinels

// len entries: random in [0, n), zero in the padding [n, len), then `tail` entries of `after`.
std::vector<float> padded(const CgJacobiCase& c, unsigned long long seed, std::size_t tail, float after) {
    std::vector<float> v = wb::random_vector<float>(static_cast<std::size_t>(c.len) + tail, seed);
    for (std::size_t k = static_cast<std::size_t>(c.n); k < static_cast<std::size_t>(c.len); ++k) v[k] = 0.0f;
    for (std::size_t k = static_cast<std::size_t>(c.len); k < v.size(); ++k) v[k] = after;
    return v;
}

// `v` between kFront entries of other data on each side.
std::vector<float> framed(const std::vector<float>& v, unsigned long long seed) {
    std::vector<float> out = wb::random_vector<float>(kFront + v.size() + kFront, seed);
    std::copy(v.begin(), v.end(), out.begin() + static_cast<std::ptrdiff_t>(kFront));
    return out;
}

std::vector<double> slice(const std::vector<double>& v, std::size_t from, std::size_t count) {
    return {v.begin() + static_cast<std::ptrdiff_t>(from), v.begin() + static_cast<std::ptrdiff_t>(from + count)};
}

// "wrong values: ..." as "wrong values in <name>: ...": which output was wrong.
std::string in(const std::string& why, const char* name) {
    const std::string prefix = "wrong values";
    return why.rfind(prefix, 0) == 0 ? prefix + " in " + name + why.substr(prefix.size()) : why;
}

}  // namespace

std::string CgJacobiCase::label() const {
    return "n=" + std::to_string(n) + " len=" + std::to_string(len) + " alpha=" + std::to_string(alpha);
}

const std::vector<CgJacobiCase>& cg_jacobi_cases() {
    static const std::vector<CgJacobiCase> cases = {
        {0, 0, 0.5f},        {0, 8, 0.5f},         {1, 4, 0.75f},          {3, 4, -0.5f},
        {4, 4, 1.0f},        {5, 8, 0.25f},        {37, 64, 0.5f},         {1023, 1024, 0.75f},
        {2047, 2048, 0.5f},  {4093, 4096, 0.5f},   {8190, 8192, -0.25f},   // a few blocks
        {4097, 4160, 0.5f},  {100000, 100032, 0.125f},
        {(1 << 20) + 3, (1 << 20) + 64, 0.5f},  // more float4s than the looped grid covers
    };
    return cases;
}

std::string check_cg_jacobi(wb::ex::CgJacobiFn fn, const CgJacobiCase& c, unsigned long long seed) {
    wb::ex::CgJacobiArgs a;
    a.n = c.n; a.len = c.len; a.alpha = c.alpha;
    const std::size_t len = static_cast<std::size_t>(c.len);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> x = padded(c, seed, kGuard, kSentinel), r = padded(c, seed + 1, kGuard, kSentinel);
    const std::vector<float> p = padded(c, seed + 2, 0, 0), q = padded(c, seed + 3, 0, 0);
    std::vector<float> dinv = padded(c, seed + 4, 0, 0);
    for (std::size_t k = 0; k < static_cast<std::size_t>(c.n); ++k) dinv[k] = 0.5f + std::fabs(dinv[k]);  // A SPD: 1/A(k, k) > 0
    std::vector<float> z(len + kGuard, kSentinel);
    std::fill(z.begin(), z.begin() + static_cast<std::ptrdiff_t>(len), nan);  // every entry must be written
    std::vector<float> rz(2 * kRzAt, kSentinel);
    rz[kRzAt] = nan;  // set, never read
    try {
        DeviceBuffer<float> dx(x), dr(r), dp(framed(p, seed + 5)), dq(framed(q, seed + 6)), dd(framed(dinv, seed + 7));
        DeviceBuffer<float> dz(z), drz(rz);
        a.x = dx.data(); a.r = dr.data(); a.z = dz.data(); a.rz = drz.data() + kRzAt;
        a.p = dp.data() + kFront; a.q = dq.data() + kFront; a.dinv = dd.data() + kFront;
        const std::vector<double> ref = wb::ex::cg_jacobi_reference(a, x, r, p, q, dinv);
        fn(a, nullptr);
        WB_CUDA(cudaDeviceSynchronize());
        const double tol_vec = wb::tolerance<float>(2), tol_rz = wb::tolerance<float>(len > 0 ? len : 1);
        std::vector<bool> is_entry(len + kGuard, false);
        std::fill(is_entry.begin(), is_entry.begin() + static_cast<std::ptrdiff_t>(len), true);
        const struct { const char* name; const DeviceBuffer<float>* buf; } outs[] = {{"x", &dx}, {"r", &dr}, {"z", &dz}};
        for (std::size_t v = 0; v < 3; ++v) {
            const std::string why = compare_output(outs[v].buf->download(), is_entry, slice(ref, v * len, len), tol_vec,
                                                   [&](std::size_t i) {
                                                       return std::string("outside ") + outs[v].name + " (index " +
                                                              std::to_string(i) + ", past its end)";
                                                   });
            if (!why.empty()) return in(why, outs[v].name);
        }
        std::vector<bool> rz_entry(rz.size(), false);
        rz_entry[kRzAt] = true;
        const std::string why = compare_output(drz.download(), rz_entry, {ref[3 * len]}, tol_rz, [](std::size_t i) {
            return "next to rz (offset " + std::to_string(static_cast<long long>(i) - static_cast<long long>(kRzAt)) + ")";
        });
        return in(why, "rz");
    } catch (const std::exception& e) {
        return std::string("error: ") + e.what();
    }
}

std::string check_cg_jacobi_all(wb::ex::CgJacobiFn fn, unsigned long long seed) {
    return first_failure(cg_jacobi_cases(), [&](const CgJacobiCase& c) { return check_cg_jacobi(fn, c, seed); }, true);
}

double time_cg_jacobi_ms(wb::ex::CgJacobiFn fn, unsigned long long seed) {
    wb::ex::CgJacobiArgs a;  // 16 M entries: 5 vectors read and 3 written, 268 MB a call
    a.n = a.len = 1 << 24;
    a.alpha = 0.5f;
    const std::size_t len = static_cast<std::size_t>(a.len);
    DeviceBuffer<float> dx(wb::random_vector<float>(len, seed)), dr(wb::random_vector<float>(len, seed + 1));
    DeviceBuffer<float> dp(wb::random_vector<float>(len, seed + 2)), dq(wb::random_vector<float>(len, seed + 3));
    DeviceBuffer<float> dd(wb::random_vector<float>(len, seed + 4)), dz(len), drz(1);
    a.x = dx.data(); a.r = dr.data(); a.p = dp.data(); a.q = dq.data(); a.dinv = dd.data(); a.z = dz.data();
    a.rz = drz.data();
    return median_ms([&](cudaStream_t s) { fn(a, s); });
}

}  // namespace wb::grade::test
