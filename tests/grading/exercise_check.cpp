// What the five ops' exercise checks share (exercise_check.hpp).
#include "exercise_check.hpp"

#include "bench.hpp"
#include "error_norm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace wb::grade::test {

namespace {

/// The entries of `out` (where `is_entry`) into `got`; "wrote <where(i)>" for the first other
/// element that no longer holds kSentinel, else "".
std::string gather_entries(const std::vector<float>& out, const std::vector<bool>& is_entry,
                           const std::function<std::string(std::size_t)>& where, std::vector<float>& got) {
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (is_entry[i]) got.push_back(out[i]);
        else if (std::memcmp(&out[i], &kSentinel, sizeof(float)) != 0) return "wrote " + where(i);
    }
    return "";
}

}  // namespace

std::string compare_output(const std::vector<float>& out, const std::vector<bool>& is_entry,
                           const std::vector<double>& ref, double tol,
                           const std::function<std::string(std::size_t)>& where) {
    std::vector<float> got;
    if (std::string stray = gather_entries(out, is_entry, where, got); !stray.empty()) return stray;
    if (!(wb::relative_error(got, ref) <= tol)) return "wrong values: " + wb::first_bad_element(got, ref, tol);
    return "";
}

std::string compare_output_scaled(const std::vector<float>& out, const std::vector<bool>& is_entry,
                                  const std::vector<double>& ref, const std::vector<double>& scale, double tol,
                                  const std::function<std::string(std::size_t)>& where) {
    if (scale.size() != ref.size()) throw std::invalid_argument("compare_output_scaled: scale must match ref");
    std::vector<float> got;
    if (std::string stray = gather_entries(out, is_entry, where, got); !stray.empty()) return stray;
    if (got.size() != ref.size()) throw std::invalid_argument("compare_output_scaled: entries must match ref");
    double err = 0, mag = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const double d = static_cast<double>(got[i]) - ref[i];
        err += d * d;
        mag += scale[i] * scale[i];
    }
    if (std::isfinite(err) && std::sqrt(err) <= tol * std::sqrt(mag)) return "";
    const double limit = ref.empty() ? 0.0 : tol * std::sqrt(mag / static_cast<double>(ref.size()));
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const double d = std::fabs(static_cast<double>(got[i]) - ref[i]);
        if (!std::isfinite(static_cast<double>(got[i])) || d > limit) {
            char buf[200];
            std::snprintf(buf, sizeof buf, "element %zu: out = %.9g, ref = %.9g, |diff| = %.9g > tol x rms(|terms|) = %.9g",
                          i, static_cast<double>(got[i]), ref[i], d, limit);
            return std::string("wrong values: ") + buf;
        }
    }
    return "wrong values: normwise error " + std::to_string(std::sqrt(err / std::max(mag, 1e-300))) + " > tol";
}

std::string check_guard(const std::vector<float>& buf, std::size_t from, const std::string& name) {
    for (std::size_t i = from; i < buf.size(); ++i)
        if (std::memcmp(&buf[i], &kSentinel, sizeof(float)) != 0)
            return "wrote outside " + name + " (index " + std::to_string(i) + ", past its end)";
    return "";
}

double median_ms(const std::function<void(cudaStream_t)>& launch) {
    wb::BenchOptions opt;
    opt.warmup = 1;
    opt.min_reps = 3;
    opt.max_reps = 20;
    return wb::benchmark(launch, opt).median_ms;
}

}  // namespace wb::grade::test
