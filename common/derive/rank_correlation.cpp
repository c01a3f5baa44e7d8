// rank_correlation.cpp — Spearman's rho (derive/rank_correlation.hpp).
#include "derive/rank_correlation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace wb::derive {

std::vector<double> ranks(const std::vector<double>& v) {
    std::vector<std::size_t> order(v.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return v[i] < v[j]; });
    std::vector<double> r(v.size());
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i;
        while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
        const double mean = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;  // ranks i+1 ... j+1
        for (std::size_t t = i; t <= j; ++t) r[order[t]] = mean;
        i = j + 1;
    }
    return r;
}

double spearman_rho(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size())
        throw std::invalid_argument("spearman_rho: the lists' lengths (" + std::to_string(a.size()) + " and " +
                                    std::to_string(b.size()) + ") must be equal");
    for (const std::vector<double>* v : {&a, &b})
        for (double x : *v)
            if (std::isnan(x)) throw std::invalid_argument("spearman_rho: a value is NaN: every value must be a number");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (a.size() < 2) return nan;
    const std::vector<double> ra = ranks(a), rb = ranks(b);
    const double n = static_cast<double>(a.size());
    const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n, mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
    double sab = 0, saa = 0, sbb = 0;
    for (std::size_t i = 0; i < ra.size(); ++i) {
        sab += (ra[i] - ma) * (rb[i] - mb);
        saa += (ra[i] - ma) * (ra[i] - ma);
        sbb += (rb[i] - mb) * (rb[i] - mb);
    }
    if (saa == 0 || sbb == 0) return nan;
    return sab / std::sqrt(saa * sbb);
}

}  // namespace wb::derive
