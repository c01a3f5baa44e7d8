// split.cpp — the CPU/GPU decision (split.hpp): White's rule, the hybrid's balanced share, the GPU
// side's affine cost from the transfer model, and White's T10 constants.
#include "split.hpp"

#include "memory_lab.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

namespace wb::split {

namespace {

std::string num(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

void require_cost(const char* fn, const char* what, double v) {
    if (!(v >= 0) || !std::isfinite(v))
        throw std::invalid_argument(std::string(fn) + ": " + what + " (" + num(v) + ") must be finite and >= 0");
}

/// The segment of `m` that `bytes` falls in (as TransferModel::predict picks it).
const TransferSegment& segment_of(const TransferModel& m, double bytes) {
    for (const auto& s : m.segments())
        if (bytes < s.hi_bytes) return s;
    return m.segments().back();
}

/// A copy of `bytes` split into: the set-up c1 (paid once, whatever the share) and the rest
/// (b / Tx + c0 b, proportional to the share), with the segment of the whole size.
struct Linear {
    double fixed = 0, per = 0;
};
Linear linearize(const TransferModel& m, double bytes) {
    if (bytes <= 0) return {};
    const TransferSegment& s = segment_of(m, bytes);
    return {s.c1_ms, bytes / (m.tx_gbs() * 1e6) + s.c0_ms_per_byte * bytes};
}

}  // namespace

const char* where_name(Where w) {
    switch (w) {
    case Where::Cpu: return "CPU";
    case Where::Gpu: return "GPU";
    case Where::Hybrid: return "hybrid";
    }
    return "?";
}

Where white_rule(double cpu_ms, double gpu_ms, double comm_ms) {
    require_cost("white_rule", "cpu_ms", cpu_ms);
    require_cost("white_rule", "gpu_ms", gpu_ms);
    require_cost("white_rule", "comm_ms", comm_ms);
    return cpu_ms <= gpu_ms + comm_ms ? Where::Cpu : Where::Gpu;
}

double balance_share(const LinearCost& cpu, const LinearCost& gpu) {
    const char* fn = "balance_share";
    require_cost(fn, "cpu.fixed_ms", cpu.fixed_ms);
    require_cost(fn, "cpu.per_ms", cpu.per_ms);
    require_cost(fn, "gpu.fixed_ms", gpu.fixed_ms);
    require_cost(fn, "gpu.per_ms", gpu.per_ms);
    const double den = cpu.per_ms + gpu.per_ms;
    if (!(den > 0)) throw std::invalid_argument("balance_share: cpu.per_ms + gpu.per_ms (0) must be > 0");
    const double f = (cpu.fixed_ms + cpu.per_ms - gpu.fixed_ms) / den;
    return std::clamp(f, 0.0, 1.0);
}

double balance_share(const SideTime& cpu, const SideTime& gpu) {
    const char* fn = "balance_share";
    auto diff = [&](double f) {
        const double c = cpu(f), g = gpu(f);
        require_cost(fn, "cpu(f)", c);
        require_cost(fn, "gpu(f)", g);
        return g - c;
    };
    if (diff(0) >= 0) return 0;
    if (diff(1) <= 0) return 1;
    double lo = 0, hi = 1;
    while (hi - lo > 1e-12) {
        const double mid = 0.5 * (lo + hi);
        (diff(mid) < 0 ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

int gpu_rows(int rows, double f, int align) {
    if (rows < 0) throw std::invalid_argument("gpu_rows: rows (" + std::to_string(rows) + ") must be >= 0");
    if (align < 1) throw std::invalid_argument("gpu_rows: align (" + std::to_string(align) + ") must be >= 1");
    if (!(f >= 0 && f <= 1)) throw std::invalid_argument("gpu_rows: f (" + num(f) + ") must be in [0, 1]");
    const double want = f * rows;
    long long g = std::llround(want / align) * align;
    g = std::clamp<long long>(g, 0, rows);
    return static_cast<int>(g);
}

Prediction predict(const LinearCost& cpu, const LinearCost& gpu, double all_gpu, double min_gain) {
    balance_share(cpu, gpu);  // the argument rules of the affine sides
    return predict([cpu](double f) { return cpu.fixed_ms + (1 - f) * cpu.per_ms; },
                   [gpu](double f) { return gpu.fixed_ms + f * gpu.per_ms; }, all_gpu, min_gain);
}

Prediction predict(const SideTime& cpu, const SideTime& gpu, double all_gpu, double min_gain) {
    HybridCosts costs;
    costs.min_gain = min_gain;
    return predict(cpu, gpu, all_gpu, costs);
}

double hybrid_ms_at(const SideTime& cpu, const SideTime& gpu, const HybridCosts& costs, double f) {
    double t = std::max(cpu(f), gpu(f));
    if (costs.shared) t = std::max(t, costs.shared(f));
    return t + costs.residual_ms;
}

namespace {

/// The minimum of a quasi-convex t(f) on [lo, hi] by golden-section search (to 1e-10).
template <class F>
double golden_min(F t, double lo, double hi) {
    const double g = (std::sqrt(5.0) - 1) / 2;
    double a = lo, b = hi, c = b - g * (b - a), d = a + g * (b - a), tc = t(c), td = t(d);
    while (b - a > 1e-10) {
        if (tc <= td) {
            b = d;
            d = c;
            td = tc;
            c = b - g * (b - a);
            tc = t(c);
        } else {
            a = c;
            c = d;
            tc = td;
            d = a + g * (b - a);
            td = t(d);
        }
    }
    return 0.5 * (a + b);
}

}  // namespace

Prediction predict(const SideTime& cpu, const SideTime& gpu, double all_gpu, const HybridCosts& costs) {
    require_cost("predict", "all_gpu_ms", all_gpu);
    require_cost("predict", "residual_ms", costs.residual_ms);
    require_cost("predict", "min_saving_ms", costs.min_saving_ms);
    if (!(costs.min_gain >= 0) || !(costs.min_gain < 1))
        throw std::invalid_argument("predict: min_gain (" + num(costs.min_gain) + ") must be in [0, 1)");
    if (costs.rows < 0) throw std::invalid_argument("predict: rows (" + std::to_string(costs.rows) + ") must be >= 0");
    Prediction p;
    p.cpu_ms = cpu(0);
    p.gpu_ms = all_gpu;
    double f = balance_share(cpu, gpu);
    if (costs.shared && f > 0 && f < 1) {
        const double sh = costs.shared(f);
        require_cost("predict", "shared(f)", sh);
        if (sh > std::max(cpu(f), gpu(f))) f = golden_min([&](double x) { return hybrid_ms_at(cpu, gpu, costs, x); }, 0, 1);
    }
    if (costs.rows > 0 && f > 0 && f < 1) {  // whole rows: a share that rounds to none or all is that side
        const int g = gpu_rows(costs.rows, f, 1);
        if (g == 0) f = 0;
        else if (g == costs.rows) f = 1;
    }
    p.gpu_share = f;
    if (f <= 0) p.hybrid_ms = cpu(0);
    else if (f >= 1) p.hybrid_ms = gpu(1);
    else p.hybrid_ms = hybrid_ms_at(cpu, gpu, costs, f);
    p.white = p.cpu_ms <= p.gpu_ms ? Where::Cpu : Where::Gpu;
    const double best_single = std::min(p.cpu_ms, p.gpu_ms);
    p.choice = p.white;
    p.margin = costs.min_gain;
    p.min_saving_ms = costs.min_saving_ms;
    if (f > 0 && f < 1 && p.hybrid_ms <= (1 - costs.min_gain) * best_single &&
        best_single - p.hybrid_ms >= costs.min_saving_ms)
        p.choice = Where::Hybrid;
    return p;
}

Prediction with_margin(Prediction p, double min_gain) {
    if (!(min_gain >= 0 && min_gain < 1))
        throw std::invalid_argument("split::with_margin: min_gain (" + std::to_string(min_gain) + ") must be in [0, 1)");
    const double best_single = std::min(p.cpu_ms, p.gpu_ms);
    p.margin = min_gain;
    p.choice = p.splits() && p.hybrid_ms <= (1 - min_gain) * best_single && best_single - p.hybrid_ms >= p.min_saving_ms
                   ? Where::Hybrid
                   : p.white;
    return p;
}

double Prediction::gain() const {
    const double best_single = std::min(cpu_ms, gpu_ms);
    const bool split_runs = std::isnan(gpu_share) || splits();  // NaN: CG's split
    if (!split_runs || !(best_single > 0)) return 0;
    return 1 - hybrid_ms / best_single;
}

double comm_ms(const Offload& o, const TransferModel& h2d, const TransferModel& d2h) {
    double t = 0;
    for (double b : o.in_split) t += b > 0 ? h2d.predict(b) : 0;
    for (double b : o.in_whole) t += b > 0 ? h2d.predict(b) : 0;
    for (double b : o.out_split) t += b > 0 ? d2h.predict(b) : 0;
    return t;
}

double all_gpu_ms(const Offload& o, const TransferModel& h2d, const TransferModel& d2h) {
    require_cost("all_gpu_ms", "kernel_ms", o.kernel_ms);
    return comm_ms(o, h2d, d2h) + o.kernel_ms + o.launch_ms;
}

LinearCost gpu_side(const Offload& o, const TransferModel& h2d, const TransferModel& d2h, int chunks) {
    if (chunks < 1) throw std::invalid_argument("gpu_side: chunks (" + std::to_string(chunks) + ") must be >= 1");
    require_cost("gpu_side", "kernel_ms", o.kernel_ms);
    require_cost("gpu_side", "launch_ms", o.launch_ms);
    LinearCost c;
    c.fixed_ms = o.launch_ms;
    for (double b : o.in_whole) c.fixed_ms += b > 0 ? h2d.predict(b) : 0;
    double h = 0, d = 0;
    for (double b : o.in_split) {
        const Linear l = linearize(h2d, b);
        c.fixed_ms += l.fixed;
        h += l.per;
    }
    for (double b : o.out_split) {
        const Linear l = linearize(d2h, b);
        c.fixed_ms += l.fixed;
        d += l.per;
    }
    const double k = o.kernel_ms, mx = std::max({h, k, d});
    c.per_ms = mx + (h + k + d - mx) / chunks;
    return c;
}

namespace white_t10 {

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
}

double cpu_mv_ms(double n) {
    const double gbs = std::min(std::max(16384.0 / n, 2.0), 8.0);
    return 8 * n * n / kGiB / gbs * 1e3;
}
double cpu_mm_ms(double n) { return 8 * n * n * n / (51 * kGiB) * 1e3; }
double gpu_mv_ms(double n) { return 8 * n * n / (188 * kGiB) * 1e3; }
double gpu_mm_ms(double n) { return 8 * n * n * n / (1504 * kGiB) * 1e3; }

Offload mv_offload(double n) {
    Offload o;
    o.in_split = {4 * n * n};
    o.in_whole = {4 * n};
    o.out_split = {4 * n};
    o.kernel_ms = gpu_mv_ms(n);
    o.launch_ms = 0;  // White's T_comp^GPU has none
    return o;
}
Offload mm_offload(double n) {
    Offload o;
    o.in_split = {4 * n * n};  // the rows of A
    o.in_whole = {4 * n * n};  // all of B
    o.out_split = {4 * n * n};
    o.kernel_ms = gpu_mm_ms(n);
    o.launch_ms = 0;
    return o;
}
TransferModel h2d() { return lab::white::t10_transfer_model(true); }
TransferModel d2h() { return lab::white::t10_transfer_model(false); }

}  // namespace white_t10

}  // namespace wb::split
