/// \file compare.cpp
/// \brief compare_output (see compare.hpp): the checking logic every op's problem uses.
#include "compare.hpp"

#include "error_norm.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace wb {

namespace {

std::string num9(double v) {
    std::ostringstream os;
    os.precision(9);
    os << v;
    return os.str();
}

}  // namespace

template <class T>
CheckResult compare_output(const std::vector<T>& out, const std::vector<double>& ref, const std::vector<double>& scale,
                           std::size_t k) {
    if (ref.size() != out.size() || (!scale.empty() && scale.size() != out.size()))
        throw std::invalid_argument("compare_output: out (" + std::to_string(out.size()) + "), ref (" +
                                    std::to_string(ref.size()) + ") and scale (" + std::to_string(scale.size()) +
                                    ") must have the same length (scale may be empty)");
    CheckResult c;
    c.tolerance = tolerance<T>(k);
    // Norm-wise: ||out - ref|| / ||scale||, +Inf when any element is NaN or Inf.
    double num = 0, den = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const double o = static_cast<double>(out[i]);
        if (!std::isfinite(o)) {
            num = INFINITY;
            if (c.first_bad.empty()) c.first_bad = "element " + std::to_string(i) + ": out is not finite";
        }
        num += (o - ref[i]) * (o - ref[i]);
        const double s = scale.empty() ? ref[i] : scale[i];
        den += s * s;
    }
    c.rel_error = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
    // Element-wise, against the component-wise bound c k eps scale (loose: see compare.hpp).
    const double elem_tol = 8.0 * static_cast<double>(std::numeric_limits<T>::epsilon()) * static_cast<double>(k);
    for (std::size_t i = 0; i < out.size() && c.first_bad.empty(); ++i) {
        const double d = std::abs(static_cast<double>(out[i]) - ref[i]);
        const double bound = elem_tol * (scale.empty() ? std::abs(ref[i]) : scale[i]);
        if (d > bound)
            c.first_bad = "element " + std::to_string(i) + ": out = " + num9(static_cast<double>(out[i])) +
                          ", ref = " + num9(ref[i]) + ", |diff| = " + num9(d) + " > " + num9(bound);
    }
    return c;
}

template CheckResult compare_output<float>(const std::vector<float>&, const std::vector<double>&,
                                           const std::vector<double>&, std::size_t);
template CheckResult compare_output<double>(const std::vector<double>&, const std::vector<double>&,
                                            const std::vector<double>&, std::size_t);

}  // namespace wb
