/// \file host_timing.hpp
/// \brief Wall-clock timing of host calls (the CPU peers, and the hybrids, which return only when
///        both processors are done): chapter 7's measured columns and the peers' calibration.
///
/// How a call is timed (the workbook's measuring rule, applied to the host's wall clock):
/// - warm-up: one call, then one batch thrown away. The first calls start the library's thread
///   pool and fault in pages; a batch after it still meets threads waking up from sleep;
/// - batches: each holds as many calls as fill about batch_s (one for a slow call), so a
///   microsecond call is not timed one by one; the figure is the median of the batches' mean call;
/// - stopping: after min_batches, once the median's relative standard error (from the
///   interquartile range: 0.93 IQR / sqrt(k), the median of k normal samples) is under `target`,
///   or at max_batches, or once max_s has passed;
/// - a repeat: a timing that did not settle (its error still above repeat_above at the cap: another
///   process, a preempted thread that a whole team waits for) is done once more after the idle
///   threads settle, and the one with the smaller error kept.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace wb::cpu {

/// Waits until the idle threads of the previous calls have stopped spinning: after a call,
/// OpenBLAS's threads spin for about 2^28 cycles (~0.1 s) and OpenMP's for a while before they
/// sleep, and a call of the other kind (our OpenMP convolution after a BLAS call) meanwhile finds
/// every core taken: on a busy 2-core machine an 8 x 8 convolution measured 12 ms instead of 5 us.
/// Timing a peer after this measures it alone, as repeated calls of one op run.
inline void settle_threads() { std::this_thread::sleep_for(std::chrono::milliseconds(200)); }

/// The statistics of a set of batch times (ms per call).
struct BatchStats {
    double median = 0, q1 = 0, q3 = 0;
    double min = 0, max = 0;  ///< the fastest and the slowest batch
    int k = 0;
    /// (q3 - q1) / median: the spread of the batches.
    double spread() const { return median > 0 ? (q3 - q1) / median : 0; }
    /// The median's relative standard error, 0.93 (q3 - q1) / sqrt(k) / median (for normal
    /// samples: sigma = IQR / 1.349 and the median's error 1.2533 sigma / sqrt(k)); infinite
    /// below three batches.
    double rel_error() const {
        return k < 3 || !(median > 0) ? INFINITY : 0.93 * (q3 - q1) / std::sqrt(static_cast<double>(k)) / median;
    }
};
/// The p-quantile (0 <= p <= 1) of ascending `sorted`, by linear interpolation between order
/// statistics; 0 when empty.
inline double quantile_sorted(const std::vector<double>& sorted, double p) {
    if (sorted.empty()) return 0;
    const double x = p * static_cast<double>(sorted.size() - 1);
    const std::size_t i = static_cast<std::size_t>(std::floor(x));
    const std::size_t j = std::min(i + 1, sorted.size() - 1);
    return sorted[i] + (x - static_cast<double>(i)) * (sorted[j] - sorted[i]);
}

/// The p-quantile of `t` in any order (quantile_sorted on a sorted copy).
inline double quantile(std::vector<double> t, double p) {
    std::sort(t.begin(), t.end());
    return quantile_sorted(t, p);
}

/// Median and quartiles (linear interpolation between order statistics) of `t`; all 0 when empty.
inline BatchStats batch_stats(std::vector<double> t) {
    BatchStats s;
    s.k = static_cast<int>(t.size());
    if (t.empty()) return s;
    std::sort(t.begin(), t.end());
    auto q = [&](double p) { return quantile_sorted(t, p); };
    s.median = q(0.5);
    s.q1 = q(0.25);
    s.q3 = q(0.75);
    s.min = t.front();
    s.max = t.back();
    return s;
}

/// How a call is timed (the file comment).
struct TimingPlan {
    int min_batches = 5;
    int max_batches = 25;
    double batch_s = 0.005;  ///< seconds per batch
    double max_s = 1.0;      ///< no new batch after this many seconds, once three are done
    double target = 0.01;    ///< the median's relative standard error to reach (the workbook's 1%)
    /// Time once more, after the threads settle, when the error is still above this at the cap
    /// (0: never): three times the target, a spread no steady host shows over 25 batches.
    double repeat_above = 0.03;
};

/// One timing's result.
struct CallTiming {
    double ms = 0;       ///< the median batch's mean call (ms)
    BatchStats stats;    ///< of the batches kept
    int timings = 1;     ///< 2 where it was repeated
    /// time_interleaved with `alternate` pairs, a paired call: the median batch of the even rounds
    /// (its place in the order given) and of the odd ones (its partner's place); NaN otherwise.
    double even_ms = NAN, odd_ms = NAN;
};

namespace detail {
using Clock = std::chrono::steady_clock;
inline double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

/// The warm-up of f() under `plan`: one call, which sizes the batch (calls filling about
/// plan.batch_s, one for a slow call), then one batch thrown away. Returns the calls per batch;
/// *once_s, where given, receives the first call's seconds.
template <class F>
int warm_up(F&& f, const TimingPlan& plan, double* once_s = nullptr) {
    const auto w0 = Clock::now();
    f();
    const double once = std::max(1e-7, seconds(w0, Clock::now()));
    if (once_s) *once_s = once;
    const int per_batch = static_cast<int>(std::clamp(std::floor(plan.batch_s / once), 1.0, 10000.0));
    if (per_batch > 1)  // the warm-up batch (a slow call's warm-up call is its own)
        for (int i = 0; i < per_batch; ++i) f();
    return per_batch;
}

/// One batch of `per_batch` calls of f(): ms per call; *spent_s, where given, grows by its seconds.
template <class F>
double time_batch(F&& f, int per_batch, double* spent_s = nullptr) {
    const auto t0 = Clock::now();
    for (int i = 0; i < per_batch; ++i) f();
    const double s = seconds(t0, Clock::now());
    if (spent_s) *spent_s += s;
    return s * 1e3 / per_batch;
}

/// One timing of f() under `plan` (no repeat): warm-up, then batches until the stopping rule.
template <class F>
CallTiming time_once(F&& f, const TimingPlan& plan) {
    const int per_batch = warm_up(f, plan);
    std::vector<double> t;
    const auto start = Clock::now();
    CallTiming r;
    for (int b = 0; b < plan.max_batches; ++b) {
        t.push_back(time_batch(f, per_batch));
        if (static_cast<int>(t.size()) < std::min(plan.min_batches, plan.max_batches)) {
            if (t.size() >= 3 && seconds(start, Clock::now()) > plan.max_s) break;
            continue;
        }
        r.stats = batch_stats(t);
        if (r.stats.rel_error() <= plan.target || seconds(start, Clock::now()) > plan.max_s) break;
    }
    r.stats = batch_stats(t);
    r.ms = r.stats.median;
    return r;
}
}  // namespace detail

/// f() timed under `plan` (the file comment), repeated once after the threads settle when its
/// error is above plan.repeat_above; the timing with the smaller error is returned.
template <class F>
CallTiming time_call(F&& f, const TimingPlan& plan = {}) {
    CallTiming r = detail::time_once(f, plan);
    if (!(plan.repeat_above > 0) || !(r.stats.rel_error() > plan.repeat_above)) return r;
    settle_threads();
    CallTiming again = detail::time_once(f, plan);
    if (again.stats.rel_error() < r.stats.rel_error()) r = again;
    r.timings = 2;
    return r;
}

/// The median call of f() (ms) under `plan`: time_call(f, plan).ms.
template <class F>
double median_call_ms(F&& f, const TimingPlan& plan = {}) {
    return time_call(f, plan).ms;
}

/// Several calls timed in turn (interleaved), so that a drift of the host's rates during the
/// timing lands within each call's batches (its spread: BatchStats::min and max) instead of between
/// the calls, as it does when they are timed one after another:
/// - warm-up: each call once (which sizes its batch: about plan.batch_s, as time_call), then one
///   batch of each thrown away;
/// - rounds: each round times one batch of every call still in turn, in the order given (the odd
///   rounds with the `alternate` pairs swapped). A call
///   shorter than `warm_below_s` runs once untimed before its batch, so that its batch finds its
///   operands where repeated calls of it leave them (the call before it in the round was another);
///   a longer call's own length amortizes that first touch;
/// - a call leaves the turn after three batches once its batches have taken plan.max_s (the slow
///   calls: time_call's cap);
/// - stopping: after plan.min_batches rounds once every call still in turn has its median's error
///   under plan.target, or at plan.max_batches rounds, or once the rounds have taken
///   plan.max_s x (the number of calls) after three rounds.
/// No repeat (plan.repeat_above is not used): a call that did not settle keeps its spread.
/// Returns one timing per call, in the order given. `order`, where given, receives the index of
/// every timed batch in the order they ran (tests). `alternate`: pairs (i, j), i < j, of calls
/// that trade places in every other round (an A/B's two arms: the call before a batch leaves the
/// host's caches, threads and copy engines in a state of its own, so a fixed order favours one
/// arm; chapter 7's notes, session 43). With pairs the rounds stop after an even number of them
/// (at most max_batches rounded down to even, at least 2) and a paired call leaves the turn after
/// an even number of batches (at least 4), so both places get as many. Throws
/// std::invalid_argument on a pair out of range, not i < j, or a call in two pairs.
inline std::vector<CallTiming> time_interleaved(const std::vector<std::function<void()>>& calls,
                                                const TimingPlan& plan, double warm_below_s = 0.05,
                                                std::vector<int>* order = nullptr,
                                                const std::vector<std::pair<std::size_t, std::size_t>>& alternate = {}) {
    using detail::Clock;
    const std::size_t k = calls.size();
    std::vector<std::size_t> swapped(k);  // the round order of the odd rounds
    for (std::size_t i = 0; i < k; ++i) swapped[i] = i;
    std::vector<bool> paired(k, false);
    for (const auto& [i, j] : alternate) {
        if (!(i < j) || j >= k || paired[i] || paired[j])
            throw std::invalid_argument("time_interleaved: alternate pair (" + std::to_string(i) + ", " + std::to_string(j) +
                                        ") must have i < j < calls (" + std::to_string(k) + "), each call in one pair");
        paired[i] = paired[j] = true;
        std::swap(swapped[i], swapped[j]);
    }
    std::vector<int> per_batch(k, 1);
    std::vector<bool> warm(k, false), in_turn(k, true);
    std::vector<double> spent(k, 0);
    std::vector<std::vector<double>> t(k);
    for (std::size_t i = 0; i < k; ++i) {
        double once = 0;
        per_batch[i] = detail::warm_up(calls[i], plan, &once);
        warm[i] = once < warm_below_s;
    }
    const auto start = Clock::now();
    const int rounds_min = std::min(plan.min_batches, plan.max_batches);
    // With pairs, a stop comes after an even number of rounds, and a paired call leaves the turn
    // after an even number of batches: each of the two places then has as many batches.
    const bool even = !alternate.empty();
    const int rounds_max = even ? std::max(2, plan.max_batches - plan.max_batches % 2) : plan.max_batches;
    for (int round = 0; round < rounds_max; ++round) {
        for (std::size_t slot = 0; slot < k; ++slot) {
            const std::size_t i = round % 2 ? swapped[slot] : slot;
            if (!in_turn[i]) continue;
            if (warm[i]) calls[i]();
            t[i].push_back(detail::time_batch(calls[i], per_batch[i], &spent[i]));
            if (order) order->push_back(static_cast<int>(i));
            if (t[i].size() >= 3 && spent[i] > plan.max_s && !(paired[i] && t[i].size() % 2 != 0)) in_turn[i] = false;
        }
        const int done = round + 1;
        if (even && done % 2 != 0) continue;
        if (done >= 3 && detail::seconds(start, Clock::now()) > plan.max_s * static_cast<double>(k)) break;
        if (done < rounds_min) continue;
        bool settled = true;
        for (std::size_t i = 0; i < k; ++i)
            if (in_turn[i] && !(batch_stats(t[i]).rel_error() <= plan.target)) settled = false;
        if (settled) break;
    }
    std::vector<CallTiming> out(k);
    for (std::size_t i = 0; i < k; ++i) {
        out[i].stats = batch_stats(t[i]);
        out[i].ms = out[i].stats.median;
        if (!paired[i]) continue;
        std::vector<double> place[2];  // a call in turn since round 0: its batch b ran in round b
        for (std::size_t b = 0; b < t[i].size(); ++b) place[b % 2].push_back(t[i][b]);
        out[i].even_ms = batch_stats(place[0]).median;
        out[i].odd_ms = batch_stats(place[1]).median;
    }
    return out;
}

/// The fastest batch's mean time of one call (ms), over 9 batches of about 2 ms after the warm-up:
/// a fixed cost, without the interruptions a busy machine adds to some batches.
template <class F>
double min_call_ms(F&& f) {
    using detail::Clock;
    const auto w0 = Clock::now();
    f();
    const double once = std::max(1e-7, detail::seconds(w0, Clock::now()));
    const int per_batch = static_cast<int>(std::clamp(std::floor(0.002 / once), 1.0, 10000.0));
    double best = INFINITY;
    const auto start = Clock::now();
    for (int b = 0; b < 9; ++b) {
        best = std::min(best, detail::time_batch(f, per_batch));
        if (b >= 2 && detail::seconds(start, Clock::now()) > 0.2) break;
    }
    return best;
}

}  // namespace wb::cpu
