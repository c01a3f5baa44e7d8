// split_vendor.cpp — chapter 7's GEMM beside cuBLASXt's, the verdict lines (split_vendor.hpp).
#include "split_vendor.hpp"

#include <algorithm>
#include <cstdio>

namespace wb::ch07 {

namespace {

/// The smaller of two times, NaN only where both are.
double better(double a, double b) {
    if (std::isnan(a)) return b;
    if (std::isnan(b)) return a;
    return std::min(a, b);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t k = v.size();
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

}  // namespace

double ours_best_ms(const VendorRow& r) { return better(r.gpu_ms, r.hybrid_ms); }
double vendor_best_ms(const VendorRow& r) { return better(r.xt_ms, r.xt_cpu_ms); }

std::vector<std::string> vendor_lines(const std::vector<VendorRow>& rows) {
    std::vector<std::string> out;
    for (std::size_t elem : {std::size_t{4}, std::size_t{8}}) {
        std::vector<double> ratio;
        int ours_faster = 0, with_cpu = 0, cpu_better = 0;
        int lo = 0, hi = 0;
        for (const VendorRow& r : rows) {
            const double o = ours_best_ms(r), v = vendor_best_ms(r);
            if (r.c.elem != elem || std::isnan(o) || std::isnan(v)) continue;
            ratio.push_back(o / v);
            ours_faster += o < v;
            if (lo == 0) lo = r.c.n;
            hi = r.c.n;
            if (!std::isnan(r.xt_cpu_ms) && !std::isnan(r.xt_ms)) {
                ++with_cpu;
                cpu_better += r.xt_cpu_ms < r.xt_ms;
            }
        }
        if (ratio.empty()) continue;
        char buf[320];
        std::snprintf(buf, sizeof buf,
                      "%s, n = %d ... %d: ours (the better of GPU+comm and the hybrid) over cuBLASXt's better, median "
                      "%.3f over %zu size%s; ours faster at %d of %zu",
                      elem == 4 ? "float" : "double", lo, hi, median(ratio), ratio.size(), ratio.size() == 1 ? "" : "s",
                      ours_faster, ratio.size());
        std::string line = buf;
        if (with_cpu > 0) {  // sizes where our model gave the CPU a share
            std::snprintf(buf, sizeof buf, "; cuBLASXt's CPU share faster than its GPU alone at %d of %d", cpu_better, with_cpu);
            line += buf;
        }
        out.push_back(line);
    }
    return out;
}

}  // namespace wb::ch07
