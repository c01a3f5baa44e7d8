// error_norm.cpp — how close a result is to its float64 reference (declared in error_norm.hpp).
//
// A normwise relative error, ||out - ref||_2 / ||ref||_2, judged against a bound that grows
// like sqrt(k) with the reduction length k (rounding errors of a sum of k terms of random sign
// behave like a random walk). NaN and Inf always fail: relative_error() is +Inf for them, and
// first_bad_element() names them first. first_bad_element() uses the per-element threshold
// tol x rms(ref): if every element met it, the normwise error would be <= tol, so whenever
// relative_error() exceeds tol there is an element to name.
#include "error_norm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

namespace wb {

namespace {

template <class T>
void require_same_size(const char* fn, const std::vector<T>& out, const std::vector<double>& ref) {
    if (out.size() != ref.size())
        throw std::invalid_argument(std::string(fn) + ": out (" + std::to_string(out.size()) +
                                    " elements) must have as many elements as ref (" +
                                    std::to_string(ref.size()) + ")");
}

double norm2(const std::vector<double>& v) {
    double s = 0;
    for (double e : v) s += e * e;
    return std::sqrt(s);
}

std::string num(double v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

}  // namespace

template <class T>
double relative_error(const std::vector<T>& out, const std::vector<double>& ref) {
    require_same_size("relative_error", out, ref);
    double diff = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const double o = static_cast<double>(out[i]);
        if (!std::isfinite(o) || !std::isfinite(ref[i])) return std::numeric_limits<double>::infinity();
        diff += (o - ref[i]) * (o - ref[i]);
    }
    diff = std::sqrt(diff);
    const double r = norm2(ref);
    return r > 0 ? diff / r : diff;
}

template <class T>
double tolerance(std::size_t k) {
    const double eps = static_cast<double>(std::numeric_limits<T>::epsilon());
    return std::max(8.0 * eps * std::sqrt(static_cast<double>(k)), 4.0 * eps);
}

template <class T>
std::string first_bad_element(const std::vector<T>& out, const std::vector<double>& ref, double tol) {
    require_same_size("first_bad_element", out, ref);
    if (!(tol >= 0))
        throw std::invalid_argument("first_bad_element: tol (" + num(tol) + ") must be >= 0");
    if (out.empty()) return {};
    // Non-finite values first: they are the clearest sign of an unwritten (poisoned) element.
    for (std::size_t i = 0; i < out.size(); ++i) {
        const double o = static_cast<double>(out[i]);
        if (!std::isfinite(o) || !std::isfinite(ref[i]))
            return "element " + std::to_string(i) + ": out = " + num(o) + ", ref = " + num(ref[i]) +
                   " (not finite)";
    }
    const double rn = norm2(ref);
    const double scale = (rn > 0 ? rn : 1.0) / std::sqrt(static_cast<double>(out.size()));
    const double limit = tol * scale;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const double o = static_cast<double>(out[i]);
        const double d = std::fabs(o - ref[i]);
        if (d > limit)
            return "element " + std::to_string(i) + ": out = " + num(o) + ", ref = " + num(ref[i]) +
                   ", |diff| = " + num(d) + " > tol x rms(ref) = " + num(limit);
    }
    return {};
}

template double relative_error<float>(const std::vector<float>&, const std::vector<double>&);
template double relative_error<double>(const std::vector<double>&, const std::vector<double>&);
template double tolerance<float>(std::size_t);
template double tolerance<double>(std::size_t);
template std::string first_bad_element<float>(const std::vector<float>&, const std::vector<double>&, double);
template std::string first_bad_element<double>(const std::vector<double>&, const std::vector<double>&, double);

}  // namespace wb
