// peer_rates.cpp — the CPU peer classes' measured rates (peer_rates.hpp): each class timed at a tiny
// size (t0) and at its mid size(s) (e = roofline / (t - t0)), on arrays filled with small nonzero
// values (timing data: the values do not matter, only that no denormal or NaN slows a unit down).
#include "peer_rates.hpp"

#include "cpu_peers.hpp"
#include "host_timing.hpp"

#if defined(WB_HAVE_CBLAS)
#include "cpu_blas.hpp"
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace wb::cpu {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

/// p[0, n) = 0.5 + (i mod 13) / 32, spread over the cores (the pages land where they are read).
template <class T>
void fill(T* p, std::size_t n) {
    const long long N = static_cast<long long>(n);
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < N; ++i) p[i] = static_cast<T>(0.5 + static_cast<double>(i % 13) / 32.0);
}

/// The six vector calls of one CG iteration on the host (cpu::cg: p.q, x += a p, r -= a q, r.r,
/// p = r + b p as a scal and an axpy), with fixed scalars: what the class "cg vectors" times.
template <class T>
void cg_vector_calls(int n, T* p, T* q, T* x, T* r) {
#if defined(WB_HAVE_CBLAS)
    const T pq = blas::dot(n, p, q);
    blas::axpy(n, T(1e-3), p, x);
    blas::axpy(n, T(-1e-3), q, r);
    const T rr = blas::dot(n, r, r);
    blas::scal(n, T(0.5), p);
    blas::axpy(n, T(1), r, p);
    volatile T keep = pq + rr;
    (void)keep;
#else
    (void)n, (void)p, (void)q, (void)x, (void)r;
#endif
}

/// e = roofline / (t - t0); the difference kept at >= 10% of t, so that a noisy t0 close to t
/// cannot make e explode.
double efficiency(double roof_ms, double t_ms, double t0_ms) { return roof_ms / std::max(t_ms - t0_ms, 0.1 * t_ms); }

std::string describe(const std::string& key, const model::PeerRate& r) {
    char buf[256];
    std::string s = key + ": t0 " + (std::snprintf(buf, sizeof buf, "%.1f us", r.fixed_ms * 1e3), buf);
    for (const auto& p : r.efficiency) {
        std::snprintf(buf, sizeof buf, ", e %.2f at %.3g MiB", p.value, p.ws_bytes / kMiB);
        s += buf;
    }
    return s;
}

/// A class measured by `call(n)` with work `work(n)`: t0 at tiny, e at each of `mids`.
template <class Call, class Work>
model::PeerRate measure_class(const model::CpuMachine& m, std::size_t elem, int tiny, const std::vector<int>& mids,
                              Call call, Work work) {
    model::PeerRate r;
    settle_threads();
    // t0: the fastest of several batches of tiny calls. A tiny call's time is its fixed cost, and
    // the slower batches are the ones another process or a descheduled thread of a parallel
    // region interrupted (on a busy machine by milliseconds, a thousand times the call).
    r.fixed_ms = min_call_ms([&] { call(tiny); });
    for (int n : mids) {
        const model::CpuWork w = work(n);
        const double t = median_call_ms([&] { call(n); }, 5, 0.005, 0.5);
        const double e = efficiency(model::predict_cpu_ms(m, w, elem), t, r.fixed_ms);
        if (!r.efficiency.empty() && !(w.bytes > r.efficiency.back().ws_bytes)) continue;  // sizes collapsed
        r.efficiency.push_back({w.bytes, e});
    }
    return r;
}

template <class T>
void calibrate_precision(model::CpuMachine& m, const std::vector<int>& conv_fs, const CalibrationSizes& s,
                         std::vector<std::string>& log) {
    const std::size_t e = sizeof(T);
    auto keep = [&](const std::string& cls, int fs, const model::PeerRate& r) {
        const std::string key = model::peer_key(cls, e, fs);
        m.peers[key] = r;
        log.push_back(describe(key, r));
    };
    // The largest array any class needs: SYMV's n x n at the beyond-cache working set, GEMM's
    // three matrices, the convolution's two images.
    const int sc = symv_n_for(s.ws_cache, e), sd = symv_n_for(s.ws_dram, e);
    const int gc = gemv_n_for(s.ws_cache, e), gd = gemv_n_for(s.ws_dram, e);
    const std::size_t un = static_cast<std::size_t>(std::max({sd, gd, s.gemm_n, s.conv_n, 8}));
    std::vector<T> A(std::max(un * un, 3 * static_cast<std::size_t>(s.gemm_n) * s.gemm_n));
    std::vector<T> x(std::max<std::size_t>(un, 4 * static_cast<std::size_t>(s.vec_n))), y(x.size());
    fill(A.data(), A.size());
    fill(x.data(), x.size());
    if (have_cblas()) {
        keep("gemv", 0, measure_class(m, e, s.tiny_n, {gc, gd},
                                      [&](int n) { cpu::gemv(GemvArgs<T>{Op::N, n, n, T(1), A.data(), n, x.data(), T(0), y.data()}); },
                                      [&](int n) { return model::cpu_work_gemv(false, n, n, e, false); }));
        keep("symv", 0, measure_class(m, e, s.tiny_n, {sc, sd},
                                      [&](int n) { cpu::symv(SymvArgs<T>{Uplo::Lower, n, T(1), A.data(), n, x.data(), 1, T(0), y.data(), 1}); },
                                      [&](int n) { return model::cpu_work_symv(n, e); }));
        const std::size_t g2 = static_cast<std::size_t>(s.gemm_n) * s.gemm_n;
        keep("gemm", 0, measure_class(m, e, s.tiny_n, {s.gemm_n},
                                      [&](int n) {
                                          cpu::gemm(GemmArgs<T>{Op::N, Op::N, n, n, n, T(1), A.data(), n, A.data() + g2, n,
                                                                T(0), A.data() + 2 * g2, n});
                                      },
                                      [&](int n) { return model::cpu_work_gemm(n, n, n, e, false); }));
        keep("cg vectors", 0, measure_class(m, e, 64, {s.vec_n},
                                            [&](int n) { cg_vector_calls(n, x.data(), y.data(), x.data() + 2 * n, x.data() + 3 * n); },
                                            [&](int n) { return model::cpu_work_cg_vectors(n, e); }));
    }
    for (int fs : conv_fs) {
        const std::size_t img = static_cast<std::size_t>(s.conv_n) * s.conv_n;
        std::vector<T> f(static_cast<std::size_t>(fs) * fs, T(0.01));
        keep("conv2d", fs, measure_class(m, e, s.tiny_n, {s.conv_n},
                                         [&](int n) { cpu::conv2d(Conv2dArgs<T>{n, n, fs, A.data(), n, f.data(), A.data() + img, n}); },
                                         [&](int n) { return model::cpu_work_conv2d(n, n, fs, e); }));
    }
}

}  // namespace

CalibrationSizes default_calibration_sizes(const model::CpuMachine& m) {
    CalibrationSizes s;
    const double llc = m.llc_bytes > 0 ? m.llc_bytes : 32 * kMiB;
    s.ws_cache = std::max(kMiB, llc / 4);
    s.ws_dram = model::default_max_working_set(llc);
    return s;
}

int gemv_n_for(double ws, std::size_t elem) {
    return std::max(8, static_cast<int>(std::lround(std::sqrt(ws / static_cast<double>(elem)))));
}
int symv_n_for(double ws, std::size_t elem) {
    return std::max(8, static_cast<int>(std::lround(std::sqrt(2 * ws / static_cast<double>(elem)))));
}

std::vector<std::string> calibrate_peer_rates(model::CpuMachine& m, const std::vector<int>& conv_fs,
                                              const CalibrationSizes& s) {
    std::vector<std::string> log;
    calibrate_precision<float>(m, conv_fs, s, log);
    calibrate_precision<double>(m, conv_fs, s, log);
    return log;
}

}  // namespace wb::cpu
