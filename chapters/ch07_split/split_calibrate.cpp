// split_calibrate.cpp — the GPU classes' measured rates (split_calibrate.hpp): each tuned step timed
// on device data at a tiny and a mid size.
#include "split_calibrate.hpp"

#include "bench.hpp"
#include "buffer.hpp"
#include "cg.hpp"
#include "conv2d.hpp"
#include "gemm.hpp"
#include "gemv.hpp"
#include "host_array.hpp"
#include "hybrid_cg.hpp"
#include "model/cpu.hpp"
#include "random.hpp"
#include "reference_cg.hpp"
#include "roofline.hpp"
#include "split_measure.hpp"
#include "symv.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace wb::ch07 {

GpuRate GpuRates::get(const std::string& key, int launches) const {
    const auto it = rates.find(key);
    return it == rates.end() ? GpuRate{launches * kLaunchMs, 1} : it->second;
}

double gpu_roofline_ms(const DeviceProfile& dev, double bytes, double flops, std::size_t elem) {
    const double peak = elem == 4 ? dev.fp32_peak_gflops() : dev.fp64_peak_gflops();
    return std::max(bytes / (dev.bandwidth_gbs * 1e6), flops / (peak * 1e6));
}

double GpuRate::eff_at(double bytes) const {
    if (!(large_bytes > mid_bytes) || !(mid_bytes > 0) || !(large_eff > 0) || !(bytes > mid_bytes)) return eff;
    if (bytes >= large_bytes) return large_eff;
    const double t = std::log(bytes / mid_bytes) / std::log(large_bytes / mid_bytes);
    return eff + t * (large_eff - eff);
}

double gpu_kernel_ms(const GpuRates& r, const std::string& key, const DeviceProfile& dev, double bytes, double flops,
                     std::size_t elem) {
    const GpuRate g = r.get(key);
    return g.fixed_ms + gpu_roofline_ms(dev, bytes, flops, elem) / g.eff_at(bytes);
}

namespace {

/// Median time of one enqueued call (CUDA events; the L2 flushed first where `flush`).
template <class F>
double device_ms(F&& enqueue, bool flush) {
    BenchOptions o;
    o.warmup = 2;
    o.min_reps = 5;
    o.max_reps = 30;
    o.target_rse = 0.02;
    o.max_seconds = 0.3;
    o.flush_l2 = flush;
    return benchmark([&](cudaStream_t s) { enqueue(s); }, o).median_ms;
}

/// Device data for the timing: seeded values, never zero.
template <class T>
DeviceBuffer<T> device_random(std::size_t n, std::uint64_t seed) {
    return DeviceBuffer<T>(random_vector<T>(n, seed));
}

/// The CG system the calibration times: an SPD matrix of condition 100 and a seeded b.
template <class T>
struct CgProblem {
    std::vector<T> A, b;
    explicit CgProblem(int n) : A(static_cast<std::size_t>(n) * static_cast<std::size_t>(n)), b(random_vector<T>(static_cast<std::size_t>(n), 100)) {
        ref::spd_matrix(n, 100.0, 99, A.data(), n);
    }
};

/// CG's all-GPU path (hybrid::cg_gpu, pinned host arrays) at n for one iteration, timed as the
/// rows time it, less the iteration and the copies' model (cg_path_fixed_ms).
template <class T>
double path_fixed(int n, double iteration_ms, const Links& links) {
    const std::size_t un = static_cast<std::size_t>(n);
    const CgProblem<T> sys(n);
    const cpu::HostAlloc pinned = host_alloc(true);
    cpu::HostArray<T> hA(un * un, pinned, "ch07: CG's path"), hb(un, pinned), hx(un, pinned);
    std::copy(sys.A.begin(), sys.A.end(), hA.data());
    std::copy(sys.b.begin(), sys.b.end(), hb.data());
    CgResult res;
    const CgArgs<T> h{n, hA.data(), n, hb.data(), hx.data(), 0.0, 1, &res};
    const double path = timed([&] {
        std::fill(hx.data(), hx.data() + un, T(0));
        hybrid::cg_gpu(h);
    });
    return std::max(0.0, path - std::max(1, res.iterations) * iteration_ms - cg_path_copies_ms(links, n, sizeof(T)));
}

/// SYMV's second size (GpuCalibrationSizes::symv_large_n), halved while its matrix would take more
/// than a quarter of the device's free memory; symv_n or less: none.
template <class T>
int symv_large_n_for(const GpuCalibrationSizes& s) {
    std::size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return 0;
    int n = s.symv_large_n;
    while (n > s.symv_n && static_cast<double>(n) * n * sizeof(T) > free_b / 4.0) n /= 2;
    return n;
}

struct Calibrator {
    const DeviceProfile& dev;
    GpuRates& out;
    std::vector<std::string>* log;
    const Links& links;

    /// Stores the class measured as t0 and t at work (bytes, flops).
    void keep(const std::string& key, double t0, double t, double bytes, double flops, std::size_t elem, int n) {
        GpuRate r;
        r.fixed_ms = t0;
        r.eff = gpu_roofline_ms(dev, bytes, flops, elem) / std::max(t - t0, 0.1 * t);
        out.rates[key] = r;
        if (!log) return;
        char buf[160];
        std::snprintf(buf, sizeof buf, "%s: t0 %.4g us, e %.4g at n = %d", key.c_str(), t0 * 1e3, r.eff, n);
        log->push_back(buf);
    }
    /// Adds a second point (GpuRate::large_eff) to the class kept last under `key` (its mid point
    /// moved mid_bytes): t at work (bytes, flops) of size big; its line gets ", e E at n = big".
    void second_point(const std::string& key, double t, double mid_bytes, double bytes, double flops, std::size_t elem,
                      int big) {
        GpuRate& r = out.rates.at(key);
        r.mid_bytes = mid_bytes;
        r.large_bytes = bytes;
        r.large_eff = gpu_roofline_ms(dev, bytes, flops, elem) / std::max(t - r.fixed_ms, 0.1 * t);
        if (!log || log->empty()) return;
        char buf[64];
        std::snprintf(buf, sizeof buf, ", e %.4g at n = %d", r.large_eff, big);
        log->back() += buf;
    }
};

template <class T>
void calibrate_precision(Calibrator& c, const std::vector<int>& conv_fs, int cg_iterations, const GpuCalibrationSizes& s) {
    const std::size_t e = sizeof(T);
    auto gemv_ms = [](int n, bool flush) {
        const std::size_t un = static_cast<std::size_t>(n);
        auto A = device_random<T>(un * un, 91), x = device_random<T>(un, 92);
        DeviceBuffer<T> y(un);
        const auto& st = step<GemvArgs<T>>(5);
        const GemvArgs<T> a{Op::N, n, n, T(1), A.data(), n, x.data(), T(0), y.data()};
        const GemvLaunch l = st.default_launch(a);
        return device_ms([&](cudaStream_t s) { st.launch(a, l, s); }, flush);
    };
    c.keep(model::peer_key("gemv", e), gemv_ms(s.tiny_n, false), gemv_ms(s.gemv_n, true),
           roofline::gemv_bytes(false, s.gemv_n, s.gemv_n, e, false), roofline::gemv_flops(s.gemv_n, s.gemv_n), e, s.gemv_n);
    // SYMV at n: seeded values; `fill` fills the operands on the device instead (0x3c in every
    // byte, a small normal value, no zeros: the second point's matrix is GiBs, a timing only).
    auto symv_ms = [](int n, bool flush, bool fill = false) {
        const std::size_t un = static_cast<std::size_t>(n);
        DeviceBuffer<T> A = fill ? DeviceBuffer<T>(un * un) : device_random<T>(un * un, 93),
                        x = fill ? DeviceBuffer<T>(un) : device_random<T>(un, 94), y(un);
        if (fill) {
            A.fill_bytes(0x3c);
            x.fill_bytes(0x3c);
        }
        const auto& st = step<SymvArgs<T>>(5);
        const SymvArgs<T> a{Uplo::Lower, n, T(1), A.data(), n, x.data(), 1, T(0), y.data(), 1};
        const SymvLaunch l = st.default_launch(a);
        return device_ms([&](cudaStream_t s) { st.launch(a, l, s); }, flush);
    };
    c.keep(model::peer_key("symv", e), symv_ms(s.tiny_n, false), symv_ms(s.symv_n, true),
           roofline::symv_bytes(s.symv_n, e), 2.0 * s.symv_n * s.symv_n, e, s.symv_n);
    // SYMV's second point: CG's split calls the kernel once per iteration on a matrix copied once,
    // so its rate at the rows' large n counts, and the mid size's understates it twofold there.
    if (const int big = symv_large_n_for<T>(s); big > s.symv_n)
        c.second_point(model::peer_key("symv", e), symv_ms(big, true, true), roofline::symv_bytes(s.symv_n, e),
                       roofline::symv_bytes(big, e), 2.0 * big * big, e, big);
    auto gemm_ms = [](int n) {
        const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
        auto A = device_random<T>(nn, 95), B = device_random<T>(nn, 96);
        DeviceBuffer<T> C(nn);
        const auto& st = step<GemmArgs<T>>(5);
        const GemmArgs<T> a{Op::N, Op::N, n, n, n, T(1), A.data(), n, B.data(), n, T(0), C.data(), n};
        const GemmLaunch l = st.default_launch(a);
        return device_ms([&](cudaStream_t s) { st.launch(a, l, s); }, false);
    };
    const model::CpuWork mm = model::cpu_work_gemm(s.gemm_n, s.gemm_n, s.gemm_n, e, false);
    c.keep(model::peer_key("gemm", e), gemm_ms(s.tiny_n), gemm_ms(s.gemm_n), mm.bytes, mm.flops, e, s.gemm_n);
    for (int fs : conv_fs) {
        auto conv_ms = [fs](int n, bool flush) {
            const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
            auto in = device_random<T>(nn, 97), f = device_random<T>(static_cast<std::size_t>(fs) * fs, 98);
            DeviceBuffer<T> out(nn);
            const auto& st = step<Conv2dArgs<T>>(5);
            const Conv2dArgs<T> a{n, n, fs, in.data(), n, f.data(), out.data(), n};
            const Conv2dLaunch l = st.default_launch(a);
            return device_ms([&](cudaStream_t s) { st.launch(a, l, s); }, flush);
        };
        c.keep(model::peer_key("conv2d", e, fs), conv_ms(s.tiny_n, false), conv_ms(s.conv_n, true),
               roofline::conv_bytes(s.conv_n, s.conv_n, fs, e), roofline::conv_flops(s.conv_n, s.conv_n, fs), e, s.conv_n);
    }
    // CG, by wall clock (the launcher returns when the solve is over; tol 0: every iteration runs).
    // A solve is a fixed cost (its set-up: the initial product, the copies and syncs around the
    // loop) plus its iterations. A solve of many iterations divided by their number would hide the
    // fixed cost in the rate, and a row of few iterations (n below the solve's count) would miss
    // it. So the tiny size is timed at one iteration and at the solve's count: the difference is
    // the iterations' time, the rest the device-resident solve's fixed cost ("cg solve": below).
    struct Solve {
        double ms;
        int iterations;
    };
    // Each solve is timed as the rows time theirs (host_timing.hpp: batches of about 5 ms, the
    // median batch's mean), not alone after an idle wait, which costs a lone solve more.
    auto cg_solve = [](int n, int max_iter) {
        const CgProblem<T> sys(n);
        DeviceBuffer<T> A(sys.A), b(sys.b), x(static_cast<std::size_t>(n));
        const auto& st = step<CgArgs<T>>(5);
        CgResult res;
        const CgArgs<T> a{n, A.data(), n, b.data(), x.data(), 0.0, max_iter, &res};
        const CgLaunch l = st.default_launch(a);
        const double ms = timed([&] {
            x.fill_bytes(0);  // every solve from x = 0, as the rows' solves
            st.launch(a, l, nullptr);
        });
        return Solve{ms, std::max(1, res.iterations)};
    };
    const Solve one = cg_solve(s.cg_tiny_n, 1), many = cg_solve(s.cg_tiny_n, cg_iterations);
    const double tiny_it = many.iterations > one.iterations
                               ? std::max(0.0, many.ms - one.ms) / (many.iterations - one.iterations)
                               : many.ms / many.iterations;
    const double dev_fixed = std::max(0.0, std::min(one.ms, many.ms) - one.iterations * tiny_it);
    const Solve mid = cg_solve(s.cg_n, cg_iterations);
    const double mid_it = std::max(0.0, mid.ms - dev_fixed) / mid.iterations;
    const model::CpuWork it = model::cpu_work_cg_iteration(s.cg_n, e);
    c.keep(model::peer_key("cg", e), tiny_it, mid_it, it.bytes, it.flops, e, s.cg_n);
    // The rows' all-GPU solve is a path from host memory (hybrid::cg_gpu: A, b and x0 in on its own
    // stream, the solve, x out), whose fixed cost is not the device-resident solve's (dev_fixed,
    // which only turns the iterations' times into a rate): on the H200 host 15 - 20 us less. So
    // "cg solve" is that path's fixed cost: one iteration's path at the tiny size of the other
    // classes' anchors (n = 8) less the iteration and the copies' model there, so that the model
    // of that call is what it measured (at n = 64 the path came out 15 us dearer than the rows'
    // solves at n = 1 ... 1000 all fitted: docs/notes/split.md).
    const double solve_fixed = cg_path_fixed_ms(e, s.tiny_n, tiny_it, c.links);
    c.out.rates[model::peer_key("cg solve", e)] = GpuRate{solve_fixed, 1};
    if (c.log) {
        char buf[200];
        std::snprintf(buf, sizeof buf,
                      "%s: t0 %.4g us, e 1 at n = %d (the all-GPU path's fixed cost beyond its copies; the iteration "
                      "from %d and %d iterations)",
                      model::peer_key("cg solve", e).c_str(), solve_fixed * 1e3, s.tiny_n, one.iterations, many.iterations);
        c.log->push_back(buf);
    }
}

}  // namespace

double cg_path_fixed_ms(std::size_t elem, int n, double iteration_ms, const Links& links) {
    if (elem != 4 && elem != 8)
        throw std::invalid_argument("cg_path_fixed_ms: elem (" + std::to_string(elem) + ") must be 4 or 8");
    if (n < 1) throw std::invalid_argument("cg_path_fixed_ms: n (" + std::to_string(n) + ") must be >= 1");
    return elem == 4 ? path_fixed<float>(n, iteration_ms, links) : path_fixed<double>(n, iteration_ms, links);
}

GpuRates measure_gpu_rates(const DeviceProfile& dev, const std::vector<int>& conv_fs, int cg_iterations,
                           const GpuCalibrationSizes& sizes, const Links& links, std::vector<std::string>* log) {
    GpuRates r;
    r.source = "measured: the tuned steps at a tiny and a mid size";
    Calibrator c{dev, r, log, links};
    calibrate_precision<float>(c, conv_fs, cg_iterations, sizes);
    calibrate_precision<double>(c, conv_fs, cg_iterations, sizes);
    return r;
}

}  // namespace wb::ch07
