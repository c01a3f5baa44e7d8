// spearman.cpp — Spearman's rank correlation (declared in model/spearman.hpp).
#include "model/spearman.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace wb::model {

std::vector<double> ranks(const std::vector<double>& v) {
    for (std::size_t i = 0; i < v.size(); ++i)
        if (!std::isfinite(v[i]))
            throw std::invalid_argument("ranks: value " + std::to_string(i) + " (" + std::to_string(v[i]) +
                                        ") must be finite");
    std::vector<std::size_t> order(v.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
    std::vector<double> r(v.size());
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i;
        while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
        const double mean = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;  // ranks i+1 .. j+1
        for (std::size_t k = i; k <= j; ++k) r[order[k]] = mean;
        i = j + 1;
    }
    return r;
}

double spearman_rho(const std::vector<double>& x, const std::vector<double>& y) {
    if (x.size() != y.size())
        throw std::invalid_argument("spearman_rho: x and y (" + std::to_string(x.size()) + " and " +
                                    std::to_string(y.size()) + " values) must have the same size");
    if (x.size() < 2)
        throw std::invalid_argument("spearman_rho: x and y (" + std::to_string(x.size()) +
                                    " values) need at least 2 values each");
    const std::vector<double> rx = ranks(x), ry = ranks(y);
    const double n = static_cast<double>(x.size()), mean = (n + 1) / 2;  // the mean of any ranking
    double sxy = 0, sxx = 0, syy = 0;
    for (std::size_t i = 0; i < rx.size(); ++i) {
        sxy += (rx[i] - mean) * (ry[i] - mean);
        sxx += (rx[i] - mean) * (rx[i] - mean);
        syy += (ry[i] - mean) * (ry[i] - mean);
    }
    if (sxx == 0 || syy == 0)
        throw std::invalid_argument(std::string("spearman_rho: ") + (sxx == 0 ? "x" : "y") +
                                    " has no spread (all its values tie): there is no order to compare");
    return sxy / std::sqrt(sxx * syy);
}

}  // namespace wb::model
