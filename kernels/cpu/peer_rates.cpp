// peer_rates.cpp — the CPU peer classes' measured rates (peer_rates.hpp): each class timed in each
// regime of its library's threading rule, at a tiny size and the regime's edge (t0) and at a grid
// of working sets (e = roofline / (t - t0); the threaded grid's sizes timed in turn), on arrays filled with small nonzero values (timing
// data: the values do not matter, only that no denormal or NaN slows a unit down).
#include "peer_rates.hpp"

#include "cpu_peers.hpp"
#include "host_timing.hpp"

#if defined(WB_HAVE_CBLAS)
#include "cpu_blas.hpp"
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace wb::cpu {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr const char* kWho = "the CPU peers' calibration";  // its arrays' error messages

/// p[0, n) = 0.5 + (i mod 13) / 32, spread over the cores (the pages land where they are read).
template <class T>
void fill(T* p, std::size_t n) {
    const long long N = static_cast<long long>(n);
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < N; ++i) p[i] = static_cast<T>(0.5 + static_cast<double>(i % 13) / 32.0);
}

/// The six vector calls of one CG iteration on the host (cpu::cg: p.q, x += a p, r -= a q, r.r,
/// p = r + b p as a scal and an axpy), with fixed scalars (a = 1e-3 unless given): what the class
/// "cg vectors" times.
template <class T>
void cg_vector_calls(int n, T* p, T* q, T* x, T* r, T a = T(1e-3)) {
#if defined(WB_HAVE_CBLAS)
    const T pq = blas::dot(n, p, q);
    blas::axpy(n, a, p, x);
    blas::axpy(n, -a, q, r);
    const T rr = blas::dot(n, r, r);
    blas::scal(n, T(0.5), p);
    blas::axpy(n, T(1), r, p);
    volatile T keep = pq + rr;
    (void)keep;
#else
    (void)n, (void)p, (void)q, (void)x, (void)r, (void)a;
#endif
}

/// One CG iteration on the host as cpu::cg calls it: the SYMV q = A p of the lower triangle (lda
/// n), then the six vector calls: what the class "cg iteration" times. A is the timing array, not
/// SPD: the SYMV's alpha 1/n keeps q at the size of p, and the sign of a alternates from call to
/// call, so that the vectors neither grow nor decay towards denormals over many calls.
template <class T>
void cg_iteration_calls(int n, const T* A, T* p, T* q, T* x, T* r, int& calls) {
#if defined(WB_HAVE_CBLAS)
    blas::symv(Uplo::Lower, n, T(1) / static_cast<T>(n), A, n, p, T(0), q);
#endif
    cg_vector_calls(n, p, q, x, r, (calls++ % 2) ? T(1e-3) : T(-1e-3));
}

/// e = roofline / (t - t0); the difference kept at >= 10% of t, so that a noisy t0 close to t
/// cannot make e explode.
double efficiency(double roof_ms, double t_ms, double t0_ms) { return roof_ms / std::max(t_ms - t0_ms, 0.1 * t_ms); }

std::string describe(const std::string& key, const model::PeerRate& r, int t0_n) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s: t0 %.4g us (n = %d)", key.c_str(), r.fixed_ms * 1e3, t0_n);
    std::string s = buf;
    for (const auto& p : r.efficiency) {
        std::snprintf(buf, sizeof buf, ", e %.4g at %.4g MiB", p.value, p.ws_bytes / kMiB);
        s += buf;
    }
    return s;
}

/// One class: how its calls are sized and where its regimes are.
struct ClassPlan {
    int tiny = 8;          ///< the single-thread regime's t0 call (0: the class has no such regime)
    int single_max = 0;    ///< the largest call the library keeps on one thread: its e
    int threaded_min = 8;  ///< the smallest threaded call: the threaded regime's t0
    double ws_last = 0;    ///< the grid's largest working set
    std::function<double(int)> ws_of;     ///< the working set of the call of size n
    std::function<double(double)> n_for;  ///< the (real) size whose working set is ws
    /// The threaded grid timed in turn across its sizes, as the table's rows of one call each are.
    /// false: each size on its own, call after call, as a row that repeats its call on the same
    /// operands (a CG solve: I iterations in sequence, its matrix reused from the LLC).
    bool in_turn = true;
};

/// The host's drift over a calibration: each class's middle grid point, timed alone right after its
/// grid (row_ms) and again once every class of its precision is measured (calibrate_precision's
/// last log line). Printed, not used by the model: the decision's margin may one day come from it
/// (docs/notes/split.md: the margins that meet both of chapter 7's decision goals sit where the
/// host's own repeat does).
struct Recheck {
    std::string key;             ///< the class
    int n = 0;                   ///< the size timed
    std::function<void()> call;  ///< the class's call at n (on calibrate_precision's arrays)
    double first_ms = 0;
};

/// What one calibrate_precision call measured: the classes' keys, and each rechecked class's ratio
/// of its middle point timed again at the end to its first timing.
struct Measured {
    std::vector<std::string> keys;
    std::map<std::string, double> recheck;
};

/// The time of one call as the table's rows time it (host_timing.hpp: the median of batches after
/// a warm-up, until its error is under 1%, repeated when it did not settle), with a shorter cap.
template <class F>
double row_ms(F&& f) {
    TimingPlan plan;
    plan.batch_s = 0.004;
    plan.max_s = 0.4;
    return median_call_ms(f, plan);
}

/// A class measured by `call(n)` with work `work(n)`: its single-thread regime (where the plan
/// has one) into *single, its threaded regime returned. Grid points the model expects to take
/// longer than max_call_s (from the last point's rate) are not measured. *recheck receives the
/// grid's middle point timed alone (its key is the caller's to set).
template <class Call, class Work>
model::PeerRate measure_class(const model::CpuMachine& m, std::size_t elem, const ClassPlan& p,
                              const CalibrationSizes& s, Call call, Work work, model::PeerRate* single,
                              std::vector<std::pair<int, double>>* timed, Recheck* recheck) {
    settle_threads();
    if (p.tiny > 0 && single) {
        // t0: the fastest of several batches of tiny calls. A tiny call's time is its fixed cost, and
        // the slower batches are the ones another process interrupted. e: at a grid of working sets
        // up to the largest call the library keeps on one thread (a call's per-column costs grow
        // with n, not with its n^2 bytes: two points cannot follow it).
        single->fixed_ms = min_call_ms([&] { call(p.tiny); });
        single->efficiency.clear();
        for (int n : single_thread_sizes(p.tiny, p.single_max, p.ws_of, p.n_for, s.start, s.step)) {
            const model::CpuWork w = work(n);
            const double t = row_ms([&] { call(n); });
            single->efficiency.push_back({w.bytes, efficiency(model::predict_cpu_ms(m, w, elem), t, single->fixed_ms)});
        }
    }
    model::PeerRate r;
    // The threaded regime: its fixed cost at the smallest call the library threads (its work is a
    // few percent of its time: the pool's hand-off and its slowest thread) and e on the grid with
    // the LLC's bracket. The grid's extent first, smallest size first: a point that the points
    // before it predict longer than max_call_s ends it (expected_point_ms: at the best rate one of
    // them reached). Each point's time is the fastest of three calls: a single call can meet a
    // disturbance (a thread waking late), and so can three, hence the best point's rate.
    const auto short_ms = [&](int n) {
        double best = INFINITY;
        for (int i = 0; i < 3; ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            call(n);
            best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
        return best;
    };
    call(p.threaded_min);  // the pool started
    const double t_min = short_ms(p.threaded_min);
    std::vector<int> ns{p.threaded_min};
    std::vector<model::CpuWork> works{work(p.threaded_min)};
    std::vector<std::pair<double, double>> extent;  // each point's fastest call and roofline (ms)
    for (double ws : llc_bracket(grid_working_sets(p.ws_of(p.threaded_min), p.ws_last, s.start, s.step), s.llc_bytes)) {
        const int n = aligned_n(p.n_for(ws), s.align);
        if (n <= ns.back()) continue;  // sizes collapsed
        const model::CpuWork w = work(n);
        const double roof = model::predict_cpu_ms(m, w, elem);
        if (expected_point_ms(t_min, extent, roof) > s.max_call_s * 1e3) break;
        extent.push_back({short_ms(n), roof});
        ns.push_back(n);
        works.push_back(w);
    }
    // Then every size in turn, as the table's rows are timed: a drift of the host's rate during the
    // calibration lands in each size's batches alike, and each point is the median batch, the
    // figure a row reports; and each size's batch finds the caches as the other sizes left them,
    // as a row's does (timed call after call, a point finds its operands where its own previous
    // call left them: docs/notes/split.md).
    std::vector<double> t;  // ms per call, by size
    if (p.in_turn) {
        std::vector<std::function<void()>> calls;
        for (int n : ns) calls.push_back([&call, n] { call(n); });
        TimingPlan plan;
        plan.min_batches = 7;
        plan.batch_s = 0.004;
        plan.max_s = 0.3;
        settle_threads();
        for (const CallTiming& c : time_interleaved(calls, plan)) t.push_back(c.ms);
    } else {
        for (int n : ns) t.push_back(row_ms([&] { call(n); }));
    }
    if (recheck && ns.size() >= 2) {
        const int mid = ns[ns.size() / 2];
        recheck->n = mid;
        recheck->call = [call, mid] { call(mid); };  // a copy: what it refers to is the caller's
        recheck->first_ms = row_ms(recheck->call);
    }
    r.fixed_ms = t[0];
    for (std::size_t i = 1; i < ns.size(); ++i) {
        r.efficiency.push_back(
            {works[i].bytes, efficiency(model::predict_cpu_ms(m, works[i], elem), t[i], r.fixed_ms)});
        if (timed) timed->push_back({ns[i], t[i]});
    }
    return r;
}

template <class T>
Measured calibrate_precision(model::CpuMachine& m, const std::vector<int>& conv_fs, const CalibrationSizes& s,
                             const HostAlloc& alloc, const ClassFilter& want, std::vector<std::string>& log,
                             bool recheck = false) {
    const std::size_t e = sizeof(T);
    const double E = static_cast<double>(e);
    // Each class timed at the end again (Recheck): its call runs then, so everything a call refers
    // to lives for the whole function (the arrays, the filters, the CG counter).
    std::vector<Recheck> rechecks;
    Measured done;
    // One class: measured (both regimes where p.tiny > 0), kept in m under its key, logged, and its
    // middle grid point set aside for the recheck.
    auto measure = [&](const std::string& cls, int fs, const ClassPlan& p, auto call, auto work,
                       std::vector<std::pair<int, double>>* timed = nullptr) {
        const std::string key = model::peer_key(cls, e, fs);
        if (want && !want(key)) return;
        done.keys.push_back(key);
        model::PeerRate single;
        Recheck rc;
        // the drift line is a whole calibration's (a few classes timed again print none, unless
        // they were timed again because the host disturbed them: `recheck`)
        const model::PeerRate r = measure_class(m, e, p, s, call, work, p.tiny > 0 ? &single : nullptr, timed,
                                                want && !recheck ? nullptr : &rc);
        m.peers[key] = r;
        if (p.tiny > 0) {
            m.peers[model::single_thread_key(key)] = single;
            log.push_back(describe(model::single_thread_key(key), single, p.tiny) + " (n = " +
                          std::to_string(p.single_max) + ")");
        }
        log.push_back(describe(key, r, p.threaded_min));
        if (rc.call) {
            rc.key = key;
            rechecks.push_back(std::move(rc));
        }
    };
    // The largest array any class needs: SYMV's n x n at the largest working set (its triangle is
    // ws), a GEMM's three matrices or the convolution's two images at most as large.
    const std::size_t un = static_cast<std::size_t>(aligned_n(std::sqrt(2 * s.ws_dram / E), s.align)) + 64;
    const HostArray<T> A(un * un, alloc, kWho);
    // CG's four vectors of n elements side by side, n up to the larger of un and vec_max_n.
    const std::size_t nx = 4 * std::max(un, static_cast<std::size_t>(s.vec_max_n)) + 256;
    const HostArray<T> x(nx, alloc, kWho), y(nx, alloc, kWho);
    fill(A.data(), A.size());
    fill(x.data(), x.size());
    // With s.symv_own_arrays each SYMV size's matrix is its own, made at its first call (the grid's
    // extent takes the fastest of three calls, so that call's fill is not its time); here, so that
    // it lives until the recheck. A batch repeats one size: the last size's matrix is kept at hand,
    // so the timed call pays a comparison, not the map's search (a tiny SYMV takes 0.2 us).
    std::map<int, HostArray<T>> symv_own;
    int symv_last_n = -1;
    const T* symv_last = nullptr;
    auto symv_matrix = [&](int n) -> const T* {
        if (!s.symv_own_arrays) return A.data();
        if (n == symv_last_n) return symv_last;
        auto it = symv_own.find(n);
        if (it == symv_own.end()) {
            const std::size_t elems = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
            it = symv_own.emplace(n, HostArray<T>(elems, alloc, kWho)).first;
            fill(it->second.data(), it->second.size());
        }
        symv_last_n = n;
        symv_last = it->second.data();
        return symv_last;
    };
    auto sq = [](double v) { return std::sqrt(std::max(v, 0.0)); };
    int cg_calls = 0;                     // the CG iteration's call counter
    std::vector<std::vector<T>> filters;  // the convolution's, one per FS
    filters.reserve(conv_fs.size());
    if (have_cblas()) {
        ClassPlan gv;  // GEMV n x n: one thread below m n = 9216 (n = 95), threaded from n = 96
        gv.single_max = 95;
        gv.threaded_min = 96;
        gv.ws_last = s.ws_dram;
        gv.ws_of = [&](int n) { return model::cpu_work_gemv(false, n, n, e, false).bytes; };
        gv.n_for = [&](double ws) { return sq(ws / E); };
        measure("gemv", 0, gv, [&](int n) {
            cpu::gemv(GemvArgs<T>{Op::N, n, n, T(1), A.data(), n, x.data(), T(0), y.data()}); },
            [&](int n) { return model::cpu_work_gemv(false, n, n, e, false); });

        ClassPlan sy;  // SYMV n: one thread below n = 200
        sy.single_max = 199;
        sy.threaded_min = 200;
        sy.ws_last = s.ws_dram;
        sy.ws_of = [&](int n) { return model::cpu_work_symv(n, e).bytes; };
        sy.n_for = [&](double ws) { return sq(2 * ws / E); };
        measure("symv", 0, sy, [&](int n) {
            cpu::symv(SymvArgs<T>{Uplo::Lower, n, T(1), symv_matrix(n), n, x.data(), 1, T(0), y.data(), 1}); },
            [&](int n) { return model::cpu_work_symv(n, e); });

        ClassPlan mm;  // GEMM n x n x n: one thread up to n^3 = 262144 (n = 64)
        mm.single_max = 64;
        mm.threaded_min = 65;
        mm.ws_last = s.ws_dram;
        mm.ws_of = [&](int n) { return model::cpu_work_gemm(n, n, n, e, false).bytes; };
        mm.n_for = [&](double ws) { return sq(ws / (3 * E)); };
        measure("gemm", 0, mm, [&](int n) {
            const std::size_t n2 = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
            cpu::gemm(GemmArgs<T>{Op::N, Op::N, n, n, n, T(1), A.data(), n, A.data() + n2, n, T(0), A.data() + 2 * n2, n}); },
            [&](int n) { return model::cpu_work_gemm(n, n, n, e, false); });

        // The hybrid GEMM's CPU share: C's last columns, an n x r x n product with r a few percent
        // of n. OpenBLAS runs it well below a square product of the same working set (the H200
        // host: 1.4 - 2.5x the square call's time per column, docs/notes/split.md), so the share is
        // measured on its own shape, r = n / 16 (the shares the rows run lie between 3% and 25% of
        // n); threaded from n r n > 262144 (n = 176), below that the square class's single thread.
        ClassPlan ms;
        ms.tiny = 0;
        ms.threaded_min = 176;
        ms.ws_last = s.ws_dram;
        const auto width = [](int n) { return std::max(1, n / 16); };
        ms.ws_of = [&](int n) { return model::cpu_work_gemm(n, width(n), n, e, false).bytes; };
        ms.n_for = [&](double ws) { return sq(ws / (1.125 * E)); };
        measure(kGemmShareClass, 0, ms, [&, width](int n) {
            const std::size_t n2 = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
            const int r = width(n);
            cpu::gemm(GemmArgs<T>{Op::N, Op::N, n, r, n, T(1), A.data(), n, A.data() + n2, n, T(0),
                                  A.data() + n2 + static_cast<std::size_t>(n) * r, n}); },
            [&](int n) { return model::cpu_work_gemm(n, width(n), n, e, false); });

        ClassPlan vc;  // CG's vector calls on n elements: their t0 at n = 64, a grid up to vec_max_n
        vc.tiny = 0;
        vc.threaded_min = 64;
        vc.ws_last = model::cpu_work_cg_vectors(s.vec_max_n, e).bytes;
        vc.ws_of = [&](int n) { return model::cpu_work_cg_vectors(n, e).bytes; };
        vc.n_for = [&](double ws) { return ws / (15 * E); };
        measure("cg vectors", 0, vc, [&](int n) {
            cg_vector_calls(n, x.data(), y.data(), x.data() + 2 * static_cast<std::size_t>(n), x.data() + 3 * static_cast<std::size_t>(n)); },
            [&](int n) { return model::cpu_work_cg_vectors(n, e); });

        // One CG iteration as cpu::cg runs it: the SYMV and the six vector calls in sequence. Inside
        // a solve the library's threads meet a call of another kind after each one; the classes
        // above time each call repeated alone. Its regimes are SYMV's (one thread below n = 200).
        ClassPlan ci;
        ci.in_turn = false;  // a solve runs its iterations back to back on the same matrix
        ci.single_max = 199;
        ci.threaded_min = 200;
        ci.ws_last = std::min(s.ws_dram, model::cpu_work_cg_iteration(s.vec_max_n, e).bytes);
        ci.ws_of = [&](int n) { return model::cpu_work_cg_iteration(n, e).bytes; };
        ci.n_for = [&](double ws) { return sq(2 * ws / E); };
        std::vector<std::pair<int, double>> seq;
        measure("cg iteration", 0, ci, [&](int n) {
            const std::size_t un_ = static_cast<std::size_t>(n);
            cg_iteration_calls(n, A.data(), x.data(), y.data(), x.data() + 2 * un_, x.data() + 3 * un_, cg_calls); },
            [&](int n) { return model::cpu_work_cg_iteration(n, e); }, &seq);
        // What the sequence costs beyond its calls timed alone (the two classes' model at its n).
        if (!seq.empty()) {
            std::string over = model::peer_key("cg iteration", e) +
                               ": the sequence over its calls timed alone (the symv and cg vectors classes):";
            for (std::size_t i = 0; i < seq.size(); ++i) {
                const int n = seq[i].first;
                const double alone = model::predict_peer_ms(m, model::peer_key("symv", e), model::cpu_work_symv(n, e), e) +
                                     model::predict_peer_ms(m, model::peer_key("cg vectors", e),
                                                            model::cpu_work_cg_vectors(n, e), e);
                char buf[96];
                std::snprintf(buf, sizeof buf, "%s %.3gx at n = %d", i ? "," : "", seq[i].second / alone, n);
                over += buf;
            }
            log.push_back(over);
        }
    }
    for (int fs : conv_fs) {
        ClassPlan cv;  // our OpenMP convolution: always threaded (its t0 at the tiny image)
        cv.tiny = 0;
        cv.threaded_min = s.tiny_n;
        cv.ws_last = s.ws_dram;
        cv.ws_of = [&](int n) { return model::cpu_work_conv2d(n, n, fs, e).bytes; };
        cv.n_for = [&](double ws) { return sq(ws / (2 * E)); };
        const T* f = filters.emplace_back(static_cast<std::size_t>(fs) * fs, T(0.01)).data();
        measure("conv2d", fs, cv, [&, fs, f](int n) {
            const std::size_t img = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
            cpu::conv2d(Conv2dArgs<T>{n, n, fs, A.data(), n, f, A.data() + img, n}); },
            [&, fs](int n) { return model::cpu_work_conv2d(n, n, fs, e); });
    }
    for (const Recheck& c : rechecks) done.recheck[c.key] = row_ms(c.call) / c.first_ms;
    if (!want && !rechecks.empty()) {  // the drift over a whole calibration (not over a few classes timed again)
        std::string line = std::string(e == 4 ? "float" : "double") +
                           " classes timed again at the end of their calibration (the host's drift over it):";
        std::vector<double> dev;
        char buf[96];
        for (std::size_t i = 0; i < rechecks.size(); ++i) {
            const Recheck& c = rechecks[i];
            const double ratio = done.recheck.at(c.key);
            dev.push_back(std::fabs(ratio - 1));
            std::snprintf(buf, sizeof buf, "%s %s x%.3f at n = %d", i ? "," : "", c.key.c_str(), ratio, c.n);
            line += buf;
        }
        std::sort(dev.begin(), dev.end());
        std::snprintf(buf, sizeof buf, "; median |ratio - 1| %.1f%%", 100 * dev[dev.size() / 2]);
        log.push_back(line + buf);
    }
    return done;
}

/// One precision's calibration, then its disturbed classes (disturbed_classes) timed again, up to
/// s.disturbed_retries times, each time with its own recheck; the log says which, and which stayed
/// disturbed.
template <class T>
void calibrate_checked(model::CpuMachine& m, const std::vector<int>& conv_fs, const CalibrationSizes& s,
                       const HostAlloc& alloc, std::vector<std::string>& log) {
    const Measured all = calibrate_precision<T>(m, conv_fs, s, alloc, {}, log);
    std::vector<std::string> bad = disturbed_classes(m.peers, all.keys, all.recheck);
    auto names = [](const std::vector<std::string>& keys) {
        std::string out;
        for (const std::string& k : keys) out += (out.empty() ? "" : ", ") + k;
        return out;
    };
    const int retries = std::max(0, s.disturbed_retries);
    for (int again = 1; again <= retries && !bad.empty(); ++again) {
        log.push_back("disturbed (" + names(bad) + "): timed again (" + std::to_string(again) + " of " +
                      std::to_string(retries) + ")");
        const std::vector<std::string> keys = bad;
        const Measured redo = calibrate_precision<T>(
            m, conv_fs, s, alloc,
            [&keys](const std::string& k) { return std::find(keys.begin(), keys.end(), k) != keys.end(); }, log, true);
        bad = disturbed_classes(m.peers, redo.keys, redo.recheck);
    }
    if (!bad.empty() && retries > 0)  // (no retries asked: the tests that count the lines; no line)
        log.push_back("still disturbed after " + std::to_string(retries) + " more timings (" + names(bad) +
                      "): their rows' CPU model is this host's disturbance, not the library's rate");
}

}  // namespace

std::vector<std::string> disturbed_classes(const std::map<std::string, model::PeerRate>& peers,
                                           const std::vector<std::string>& keys,
                                           const std::map<std::string, double>& recheck) {
    std::vector<std::string> out;
    auto jumps = [](const model::PeerRate& r) {
        for (std::size_t i = 1; i < r.efficiency.size(); ++i) {
            const double a = r.efficiency[i - 1].value, b = r.efficiency[i].value;
            if (!(a > 0) || !(b > 0) || std::max(a / b, b / a) > kDisturbedJump) return true;
        }
        return false;
    };
    for (const std::string& key : keys) {
        const auto it = peers.find(key);
        if (it == peers.end()) continue;
        bool bad = it->second.fixed_ms > kDisturbedFixedMs || jumps(it->second);
        const auto one = peers.find(model::single_thread_key(key));
        if (one != peers.end()) bad = bad || one->second.fixed_ms > kDisturbedFixedMs || jumps(one->second);
        const auto rc = recheck.find(key);
        if (rc != recheck.end()) bad = bad || !(rc->second >= 1 / kDisturbedRecheck && rc->second <= kDisturbedRecheck);
        if (bad) out.push_back(key);
    }
    return out;
}

CalibrationSizes default_calibration_sizes(const model::CpuMachine& m) {
    CalibrationSizes s;
    s.ws_dram = model::default_max_working_set(m.llc_bytes > 0 ? m.llc_bytes : 32 * kMiB);
    s.llc_bytes = m.llc_bytes;
    return s;
}

int gemv_n_for(double ws, std::size_t elem) {
    return std::max(8, static_cast<int>(std::lround(std::sqrt(ws / static_cast<double>(elem)))));
}
int symv_n_for(double ws, std::size_t elem) {
    return std::max(8, static_cast<int>(std::lround(std::sqrt(2 * ws / static_cast<double>(elem)))));
}

std::vector<double> grid_working_sets(double ws_first, double ws_last, double start, double step) {
    if (!(ws_first > 0) || !(start >= 1) || !(step > 1))
        throw std::invalid_argument("grid_working_sets: ws_first (" + std::to_string(ws_first) + ") must be > 0, start (" +
                                    std::to_string(start) + ") >= 1 and step (" + std::to_string(step) + ") > 1");
    std::vector<double> g;
    for (double ws = ws_first * start; ws <= ws_last * (1 + 1e-9); ws *= step) g.push_back(ws);
    if (ws_last > ws_first && (g.empty() || g.back() * 1.5 < ws_last)) g.push_back(ws_last);
    return g;
}

std::vector<int> single_thread_sizes(int tiny, int single_max, const std::function<double(int)>& ws_of,
                                     const std::function<double(double)>& n_for, double start, double step) {
    if (!(tiny >= 1) || !(single_max > tiny))
        throw std::invalid_argument("single_thread_sizes: tiny (" + std::to_string(tiny) + ") must be >= 1 and below "
                                    "single_max (" + std::to_string(single_max) + ")");
    std::vector<int> v;
    for (double ws : grid_working_sets(ws_of(tiny), ws_of(single_max), start, step)) {
        const int n = static_cast<int>(std::lround(n_for(ws)));
        if (n > tiny && n < single_max && (v.empty() || n > v.back())) v.push_back(n);
    }
    v.push_back(single_max);
    return v;
}

std::vector<double> llc_bracket(std::vector<double> grid, double llc) {
    if (!(llc > 0) || grid.empty()) return grid;
    const double lo = grid.front(), hi = grid.back();
    std::vector<double> bracket;
    for (double ws : {llc / 2, llc, 2 * llc})
        if (ws >= lo && ws <= hi) bracket.push_back(ws);
    const double near = std::sqrt(2.0);
    grid.erase(std::remove_if(grid.begin(), grid.end(),
                              [&](double g) {
                                  if (g == lo || g == hi) return false;  // the grid's ends stay
                                  for (double b : bracket)
                                      if (g < b * near && g > b / near) return true;
                                  return false;
                              }),
               grid.end());
    for (double b : bracket)
        if (b != lo && b != hi) grid.push_back(b);
    std::sort(grid.begin(), grid.end());
    return grid;
}

double expected_point_ms(double t_min_ms, const std::vector<std::pair<double, double>>& timed_and_roof_ms,
                         double next_roof_ms) {
    if (timed_and_roof_ms.empty()) return 0;
    if (!(next_roof_ms > 0))
        throw std::invalid_argument("expected_point_ms: next_roof_ms (" + std::to_string(next_roof_ms) + ") must be > 0");
    double best = INFINITY;  // ms of call beyond the fixed cost per ms of roofline
    for (const auto& [t, roof] : timed_and_roof_ms) {
        if (!(t > 0) || !(roof > 0))
            throw std::invalid_argument("expected_point_ms: a point's time (" + std::to_string(t) + ") and roofline (" +
                                        std::to_string(roof) + ") must be > 0");
        best = std::min(best, std::max(0.0, t - t_min_ms) / roof);
    }
    return t_min_ms + next_roof_ms * best;
}

int aligned_n(double n, int align) {
    if (align < 1 || n < 4.0 * align) return std::max(1, static_cast<int>(std::lround(n)));
    return static_cast<int>(std::lround(n / align)) * align;
}

std::vector<std::string> calibrate_peer_rates(model::CpuMachine& m, const std::vector<int>& conv_fs,
                                              const CalibrationSizes& s, const HostAlloc& alloc) {
    std::vector<std::string> log;
    calibrate_checked<float>(m, conv_fs, s, alloc, log);
    calibrate_checked<double>(m, conv_fs, s, alloc, log);
    return log;
}

std::vector<std::string> calibrate_peer_classes(model::CpuMachine& m, std::size_t elem, const std::vector<int>& conv_fs,
                                                const CalibrationSizes& s, const ClassFilter& want, const HostAlloc& alloc) {
    if (elem != 4 && elem != 8)
        throw std::invalid_argument("calibrate_peer_classes: elem (" + std::to_string(elem) + ") must be 4 (float) or 8 (double)");
    if (!want) throw std::invalid_argument("calibrate_peer_classes: want must name the classes (calibrate_peer_rates: all)");
    std::vector<std::string> log;
    if (elem == 4) calibrate_precision<float>(m, conv_fs, s, alloc, want, log);
    else calibrate_precision<double>(m, conv_fs, s, alloc, want, log);
    return log;
}

}  // namespace wb::cpu
