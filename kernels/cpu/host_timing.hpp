/// \file host_timing.hpp
/// \brief Wall-clock timing of host calls (the CPU peers, and the hybrids, which return only when
///        both processors are done): chapter 7's measured columns and the peers' calibration.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

namespace wb::cpu {

/// Waits until the idle threads of the previous calls have stopped spinning: after a call,
/// OpenBLAS's threads spin for about 2^28 cycles (~0.1 s) and OpenMP's for a while before they
/// sleep, and a call of the other kind (our OpenMP convolution after a BLAS call) meanwhile finds
/// every core taken: on a busy 2-core machine an 8 x 8 convolution measured 12 ms instead of 5 us.
/// Timing a peer after this measures it alone, as repeated calls of one op run.
inline void settle_threads() { std::this_thread::sleep_for(std::chrono::milliseconds(200)); }

namespace detail {
/// The mean time of one call of f() in each batch (ms), sorted (median_call_ms).
template <class F>
std::vector<double> batch_times(F&& f, int batches, double batch_s, double max_s) {
    using Clock = std::chrono::steady_clock;
    auto secs = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
    const auto w0 = Clock::now();
    f();
    const double once = std::max(1e-7, secs(w0, Clock::now()));
    const int per_batch = static_cast<int>(std::clamp(std::floor(batch_s / once), 1.0, 10000.0));
    std::vector<double> t;
    const auto start = Clock::now();
    for (int b = 0; b < batches; ++b) {
        const auto t0 = Clock::now();
        for (int i = 0; i < per_batch; ++i) f();
        t.push_back(secs(t0, Clock::now()) * 1e3 / per_batch);
        if (b >= 2 && secs(start, Clock::now()) > max_s) break;
    }
    std::sort(t.begin(), t.end());
    return t;
}
}  // namespace detail

/// The median over `batches` batches of the mean time of one call of f() in a batch (ms), after
/// one warm-up call. A batch holds as many calls as fill about `batch_s` seconds (one for a slow
/// call), so microsecond calls are not timed one by one; timing stops after `max_s` seconds once
/// three batches are done.
template <class F>
double median_call_ms(F&& f, int batches = 5, double batch_s = 0.002, double max_s = 1.0) {
    const std::vector<double> t = detail::batch_times(f, batches, batch_s, max_s);
    return t[t.size() / 2];
}

/// The fastest batch's mean time of one call (ms), over 9 batches of about 2 ms: a fixed cost,
/// without the interruptions a busy machine adds to some batches.
template <class F>
double min_call_ms(F&& f) {
    return detail::batch_times(f, 9, 0.002, 0.2).front();
}

}  // namespace wb::cpu
