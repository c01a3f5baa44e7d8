// What the gpu tests of chapter 7's hybrids share (tests/gpu/test_hybrid_*.cpp): host operands in
// pinned or pageable memory, the relative error against a float64 reference, and the two checks
// of the hybrids' contract (kernels/cpu/hybrid_common.hpp) that every op runs the same way:
// - failures: a failure injected into either side surfaces as an exception naming that side, and
//   once it has surfaced nothing writes to the output any more (both sides had stopped); the next
//   call is correct again;
// - no early read: when a call returns its output is complete (a copy still on its way would leave
//   the poisoned values there), the output stays as it is after the device has finished everything
//   and some time has passed (no copy writes it after the return), and inputs overwritten right
//   after the return change nothing (no copy still reads them).
// Both checks run with the GPU side issued by the GPU worker and by the calling thread
// (hybrid::testing::force_issuer), whatever memory the operands are in; the other tests take the
// automatic choice, the caller on page-locked operands and the worker on pageable ones.
// A strided output (GEMM's C, the convolution's image) is checked through packed(): its elements
// line after line, and whether the padding past each line came back untouched.
// Sizes go through size(): a quarter under the sanitizers (WB_TEST_SMALL), as the ladders' tests.
#pragma once

#include "catch.hpp"

#include "buffer.hpp"
#include "compare.hpp"
#include "error_norm.hpp"
#include "hybrid_common.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace hybrid_test {

/// Under the sanitizers (WB_TEST_SMALL): sizes about a quarter of the normal ones, still odd.
inline bool small() { return std::getenv("WB_TEST_SMALL") != nullptr; }
/// `n`, or a quarter of it (odd) under the sanitizers.
inline int size(int n) { return small() ? (n / 4) | 1 : n; }

/// An operand in host memory, page-locked or not, filled from a vector.
template <class T>
class Host {
public:
    Host(const std::vector<T>& v, bool pinned) : n_(v.size()) {
        if (pinned) pin_ = wb::PinnedBuffer<T>(v.size());
        else vec_.resize(v.size());
        p_ = pinned ? pin_.data() : vec_.data();
        if (!v.empty()) std::memcpy(p_, v.data(), v.size() * sizeof(T));
    }
    T* data() { return p_; }
    std::size_t size() const { return n_; }
    std::vector<T> copy() const { return std::vector<T>(p_, p_ + n_); }
    /// Overwrites every element with NaN (the poison), keeping the values for restore().
    void poison() {
        saved_ = copy();
        for (std::size_t i = 0; i < n_; ++i) p_[i] = std::numeric_limits<T>::quiet_NaN();
    }
    /// The values before the last poison().
    void restore() {
        if (!saved_.empty()) std::memcpy(p_, saved_.data(), n_ * sizeof(T));
    }

private:
    std::size_t n_ = 0;
    wb::PinnedBuffer<T> pin_;
    std::vector<T> vec_, saved_;
    T* p_ = nullptr;
};

/// Whether [p, p + before.size()) still holds `before` once the device has finished all its work
/// and 20 ms more have passed.
template <class T>
bool unchanged_after_settling(const T* p, const std::vector<T>& before) {
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return std::memcmp(p, before.data(), before.size() * sizeof(T)) == 0;
}

/// The message of what call() throws ("" when it throws nothing).
template <class Call>
std::string thrown_by(Call&& call) {
    try {
        call();
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

using wb::hybrid::testing::ScopedIssuer;

/// Both issuers of the GPU side, for the contract's checks.
inline const wb::hybrid::testing::Issuer kIssuers[] = {wb::hybrid::testing::Issuer::worker,
                                                       wb::hybrid::testing::Issuer::caller};
/// The automatic choice alone: for calls that do not go through the hybrids' run() (CG's solves).
inline const wb::hybrid::testing::Issuer kAutomaticOnly[] = {wb::hybrid::testing::Issuer::automatic};
inline const char* issuer_name(wb::hybrid::testing::Issuer who) {
    using wb::hybrid::testing::Issuer;
    return who == Issuer::worker ? "GPU worker" : who == Issuer::caller ? "calling thread" : "automatic choice";
}

/// The failure contract (the file comment): `call` runs the hybrid into `out` (n elements) with a
/// share that gives both sides work, `reset` puts the output back as before the first call
/// (poisoned where beta == 0), `check` checks a correct result. Each armed call starts from a
/// reset output; once its error has surfaced the output is overwritten with a sentinel, which
/// must still be there after the device has finished everything (no copy lands after the throw).
template <class T, class Call, class Check, class Reset>
void check_failures(Call&& call, T* out, std::size_t n, Check&& check, Reset&& reset) {
    using wb::hybrid::testing::Fail;
    const std::vector<T> sentinel(n, T(-12345.5));
    for (const auto who : kIssuers) {
        INFO("GPU side issued by the " << issuer_name(who));
        const ScopedIssuer scope(who);
        for (Fail side : {Fail::cpu, Fail::gpu}) {
            const std::string what = side == Fail::cpu ? "injected CPU failure" : "injected GPU failure";
            INFO("side " << what);
            reset();
            wb::hybrid::testing::fail_next_call(side);
            const std::string e = thrown_by(call);
            CHECK(e.find(what) != std::string::npos);
            std::copy(sentinel.begin(), sentinel.end(), out);
            CHECK(unchanged_after_settling(out, sentinel));
        }
        reset();
        call();  // unarmed: the streams and buffers serve the next call
        check();
    }
}

/// The failure contract of a balanced call whose GPU side fails between the CPU's pieces, chunks
/// in flight (testing::Fail::gpu_late; issued by the calling thread, as a balanced call is): the
/// error surfaces, no copy lands in `out` after it, and the next call is correct. `call` must
/// balance with several pieces (so that it polls at least once).
template <class T, class Call, class Check, class Reset>
void check_late_failure(Call&& call, T* out, std::size_t n, Check&& check, Reset&& reset) {
    const ScopedIssuer scope(wb::hybrid::testing::Issuer::caller);
    const std::vector<T> sentinel(n, T(-12345.5));
    reset();
    wb::hybrid::testing::fail_next_call(wb::hybrid::testing::Fail::gpu_late);
    const std::string e = thrown_by(call);
    CHECK(e.find("injected GPU failure") != std::string::npos);
    CHECK(e.find("between the CPU's pieces") != std::string::npos);
    std::copy(sentinel.begin(), sentinel.end(), out);
    CHECK(unchanged_after_settling(out, sentinel));
    reset();
    call();
    check();
}

/// The early-read rule (the file comment): `call` runs the hybrid into `out` (n elements), `check`
/// checks it against the reference, `reset` puts the output back as before the first call
/// (poisoned, or CG's initial guess); `inputs` are poisoned at once after the return, and
/// restored for the next issuer.
template <class T, class Call, class Check, class Reset, std::size_t K = 2>
void check_no_early_read(Call&& call, const T* out, std::size_t n, Check&& check, Reset&& reset,
                         std::initializer_list<Host<T>*> inputs,
                         const wb::hybrid::testing::Issuer (&issuers)[K] = kIssuers) {
    for (const auto who : issuers) {
        INFO("GPU side issued by the " << issuer_name(who));
        const ScopedIssuer scope(who);
        reset();
        call();
        for (Host<T>* h : inputs) h->poison();  // at once: a copy still reading them would carry NaN into the device
        const std::vector<T> at_return(out, out + n);
        CHECK(unchanged_after_settling(out, at_return));
        check();
        for (Host<T>* h : inputs) h->restore();
    }
}

/// Splits a strided output (`lines` lines of `width` elements, `pitch` apart) into its elements
/// (packed, line after line) and whether the padding past each line is as in `before`.
template <class T>
std::vector<T> packed(const std::vector<T>& out, const std::vector<T>& before, int lines, int width, int pitch,
                      bool* padding_kept) {
    std::vector<T> p(static_cast<std::size_t>(lines) * static_cast<std::size_t>(width));
    *padding_kept = true;
    for (int j = 0; j < lines; ++j) {
        const std::size_t at = static_cast<std::size_t>(j) * static_cast<std::size_t>(pitch);
        std::copy_n(out.begin() + static_cast<std::ptrdiff_t>(at), width, p.begin() + static_cast<std::ptrdiff_t>(j) * width);
        *padding_kept &= std::equal(out.begin() + static_cast<std::ptrdiff_t>(at + width),
                                    out.begin() + static_cast<std::ptrdiff_t>(at + pitch),
                                    before.begin() + static_cast<std::ptrdiff_t>(at + width));
    }
    return p;
}

/// Relative error of `out` against `ref` (float64), with the bound for k-term sums, reported.
template <class T>
void check_error(const std::vector<T>& out, const std::vector<double>& ref, std::size_t k, double factor = 1) {
    const double err = wb::relative_error(out, ref), tol = factor * wb::tolerance<T>(k);
    INFO("relative error " << err << ", bound " << tol << " " << wb::first_bad_element(out, ref, tol));
    CHECK(err <= tol);
}

/// |v| elementwise (NaN stays NaN): operands for check_error_scaled's scale.
template <class T>
std::vector<T> abs_of(std::vector<T> v) {
    for (T& e : v) e = std::abs(e);
    return v;
}

/// check_error against BLAS's error scale (compare.hpp's compare_output): `scale` is the same
/// computation on the operands' magnitudes (|alpha| |A| |x| + |beta| |y|). A result of few
/// elements, each a sum whose terms cancel, can be far smaller than its terms; its rounding is
/// bounded by theirs (a GEMV with one output of 25 terms came out 1.05e-14 off its own norm,
/// against a bound of 0.91e-14), while a wrong or missing term still moves it by that term.
template <class T>
void check_error_scaled(const std::vector<T>& out, const std::vector<double>& ref, const std::vector<double>& scale,
                        std::size_t k) {
    const wb::CheckResult c = wb::compare_output(out, ref, scale, k);
    INFO("error over the scale's norm " << c.rel_error << ", bound " << c.tolerance << "; " << c.first_bad);
    CHECK(c.ok());
}

}  // namespace hybrid_test
