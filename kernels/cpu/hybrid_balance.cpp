// hybrid_balance.cpp — the balanced hybrid call (hybrid_balance.hpp): the planner's arithmetic, and
// the loop on the calling thread that issues the GPU's chunks between the CPU's pieces.
#include "hybrid_balance.hpp"

#include "check.hpp"
#include "launch_checks.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace wb::hybrid {

int balance_pieces(double cpu_side_ms) {
    if (!(cpu_side_ms > 0)) return 1;  // NaN too
    return static_cast<int>(std::clamp(std::floor(cpu_side_ms / kBalancePieceMs), 1.0, static_cast<double>(kBalanceMaxPieces)));
}

int balance_pieces(double cpu_side_ms, int cpu_outputs, int min_piece) {
    const int most = std::max(1, cpu_outputs / std::max(1, min_piece));
    return std::min(balance_pieces(cpu_side_ms), most);
}

int gemm_min_piece_cols(std::size_t elem_bytes, double gflops, double read_gbs) {
    if (!(gflops > 0) || !(read_gbs > 0)) return 1;
    const double cols = std::ceil(10.0 * static_cast<double>(elem_bytes) * gflops / read_gbs);
    return static_cast<int>(std::min(cols, static_cast<double>(std::numeric_limits<int>::max())));
}

namespace {
std::atomic<double> g_first_issue{0.0};  // 0: kFirstIssuePieces
}  // namespace

double set_first_issue_pieces(double pieces) {
    if (!(pieces >= 0) || !std::isfinite(pieces))
        launch_checks::fail("hybrid::set_first_issue_pieces", "pieces (" + std::to_string(pieces) + ") must be finite and >= 0");
    return g_first_issue.exchange(pieces);
}
double first_issue_pieces() {
    const double p = g_first_issue.load();
    return p > 0 ? p : kFirstIssuePieces;
}

BalancePlanner::BalancePlanner(int n, int g, int unit, int pieces, double first_issue)
    : n_(n), g_(g), unit_(unit), piece_(1), hi_(n) {
    using launch_checks::num;
    const char* fn = "hybrid::BalancePlanner";
    if (n < 2) launch_checks::fail(fn, "n (" + num(n) + ") must be >= 2");
    if (g < 1 || g >= n) launch_checks::fail(fn, "g (" + num(g) + ") must be in [1, n - 1] ([1, " + num(n - 1) + "])");
    if (unit < 1) launch_checks::fail(fn, "unit (" + num(unit) + ") must be >= 1");
    if (pieces < 1) launch_checks::fail(fn, "pieces (" + num(pieces) + ") must be >= 1");
    if (!(first_issue > 0) || !std::isfinite(first_issue))
        launch_checks::fail(fn, "first_issue (" + std::to_string(first_issue) + ") must be finite and > 0");
    pieces_ = pieces;
    first_issue_ = first_issue;
    piece_ = static_cast<int>((static_cast<long long>(n - g) + pieces - 1) / pieces);
}

int BalancePlanner::initial_gpu() const {
    const double first = std::ceil(first_issue_ * static_cast<double>((static_cast<long long>(g_) + pieces_ - 1) / pieces_));
    const double whole = std::ceil(first / unit_) * unit_;  // whole chunks
    return static_cast<int>(std::min(static_cast<double>(g_), whole));
}

int BalancePlanner::take_gpu(int count) {
    const int c = std::clamp(count, 0, remaining());
    const int r0 = lo_;
    lo_ += c;
    return r0;
}

RowRange BalancePlanner::take_cpu(int count) {
    const int c = std::clamp(count, 0, remaining());
    hi_ -= c;
    return {hi_, hi_ + c};
}

BalancePlanner::Decision BalancePlanner::decide(double cpu_ms_per, double gpu_ms_per, double queued) const {
    const int r = remaining();
    if (r <= 0) return {};
    const double planned = static_cast<double>(n_ - g_) / g_;  // the GPU's time per output over the CPU's, as planned
    const double c = cpu_ms_per > 0 ? cpu_ms_per : gpu_ms_per > 0 ? gpu_ms_per / planned : 1.0;
    const double t = gpu_ms_per > 0 ? gpu_ms_per : c * planned;
    const double q = std::max(0.0, queued);
    const double x = std::clamp((r * c - q * t) / (c + t), 0.0, static_cast<double>(r));
    const int xi = static_cast<int>(std::llround(x));
    const int rest = r - xi;
    if (rest <= static_cast<long long>(piece_) + piece_ / 2) {  // the last poll: both parts claimed
        if (xi < std::max(1, unit_ / 8)) return {0, r};
        return {xi, rest};
    }
    const double ahead = 2.0 * piece_ * c / t;  // the GPU's outputs in two pieces' time
    const double want = std::ceil(ahead - q);
    if (want < std::max(1, unit_ / 4)) return {0, piece_};
    // in whole chunks where the GPU's part allows: each chunk pays its fixed cost (its API calls,
    // the pipeline's fill), so a part of a chunk costs nearly a whole one
    const double whole = std::ceil(want / unit_) * unit_;
    return {static_cast<int>(std::min(whole, static_cast<double>(xi))), piece_};
}

void ChunkLedger::issued(int outputs) {
    if (outputs < 1)
        launch_checks::fail("hybrid::ChunkLedger::issued", "outputs (" + launch_checks::num(outputs) + ") must be >= 1");
    outputs_.push_back(outputs);
    issued_ += outputs;
}

void ChunkLedger::finished(std::size_t upto, double ms_after_first) {
    if (upto <= done_ || upto > outputs_.size())
        throw std::logic_error("hybrid::ChunkLedger::finished: upto (" + std::to_string(upto) + ") must be in (done, chunks] = (" +
                               std::to_string(done_) + ", " + std::to_string(outputs_.size()) + "]: the chunks not yet done");
    if (!(ms_after_first >= 0) || !std::isfinite(ms_after_first))
        throw std::logic_error("hybrid::ChunkLedger::finished: ms_after_first (" + std::to_string(ms_after_first) +
                               ") must be finite and >= 0");
    while (done_ < upto) done_outputs_ += outputs_[done_++];
    last_after_first_ = ms_after_first;
}

double ChunkLedger::queued() const {
    const double running = done_ < outputs_.size() ? 0.5 * outputs_[done_] : 0.0;
    return static_cast<double>(issued_ - done_outputs_) - running;
}

double ChunkLedger::ms_per_output() const {
    if (done_ < 2) return 0;
    return std::max(0.0, last_after_first_) / static_cast<double>(done_outputs_ - outputs_[0]);
}

namespace detail {

namespace {
using Clock = std::chrono::steady_clock;
double ms_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }
}  // namespace

bool balances(int n, int g, int pieces, std::initializer_list<const void*> gpu_host_arrays) {
    return g > 0 && g < n && pieces > 1 && !sides_in_turn() && issue_on_caller(gpu_host_arrays);
}

//! [hybrid-balanced]
void run_balanced(const char* fn, int n, int g, int unit, int pieces, std::initializer_list<const void*> gpu_host_arrays,
                  const std::function<void(int, int)>& cpu_rows, const std::function<void(ShareState&, int)>& gpu_start,
                  const std::function<void(int, int, int)>& gpu_issue, const std::function<void(int)>& gpu_end) {
    if (!balances(n, g, pieces, gpu_host_arrays)) {  // the fixed share g
        run(fn, g < n, g > 0, gpu_host_arrays, [&] { cpu_rows(g, n); },
            [&](const GpuCall& call) {
                run_gpu_chunks(call, fn, g, std::min(unit, g), [&] { gpu_start(*call.sp, std::min(unit, g)); }, gpu_issue);
            });
        return;
    }
    run_balanced_now(fn, n, g, unit, pieces, cpu_rows, gpu_start, gpu_issue, gpu_end);
}

void run_balanced_now(const char* fn, int n, int g, int unit, int pieces, const std::function<void(int, int)>& cpu_rows,
                      const std::function<void(ShareState&, int)>& gpu_start, const std::function<void(int, int, int)>& gpu_issue,
                      const std::function<void(int)>& gpu_end) {
    unit = std::min(unit, n);
    BalancePlanner plan(n, g, unit, pieces, first_issue_pieces());
    const testing::Fail fail = take_injected_failure();
    const Clock::time_point start = Clock::now();
    SideTimes& sides = side_times_slot();
    sides = SideTimes{};
    sides.issued_on_caller = true;
    ShareState& sp = share_state();

    // The GPU's chunks in order; mark(1 + i) is recorded after chunk i.
    ChunkLedger ledger;
    auto issue = [&](int count) {
        while (count > 0) {
            const int r0 = plan.take_gpu(std::min(count, unit));
            const int c = plan.lo() - r0;  // what the planner granted
            if (c <= 0) break;
            const std::size_t i = ledger.chunks();
            gpu_issue(r0, c, static_cast<int>(i & 1));
            WB_CUDA(cudaEventRecord(sp.mark(1 + i), sp.s[i & 1]));
            ledger.issued(c);
            count -= c;
            if (i == 0 && fail == testing::Fail::gpu) fail_injected_gpu(sp, fn);
        }
    };
    auto poll = [&] {  // no wait: which chunks have finished, and the last one's end after the first's
        std::size_t upto = ledger.done();
        while (upto < ledger.chunks()) {
            const cudaError_t e = cudaEventQuery(sp.mark(1 + upto));
            if (e == cudaErrorNotReady) break;
            WB_CUDA(e);
            ++upto;
        }
        if (upto == ledger.done()) return;
        float ms = 0;  // one elapsed-time query a poll
        if (upto >= 2) WB_CUDA(cudaEventElapsedTime(&ms, sp.mark(1), sp.mark(upto)));
        ledger.finished(upto, ms);
    };

    try {  // on an error nothing has started on the CPU
        gpu_start(sp, unit);
        WB_CUDA(cudaEventRecord(sp.mark(0), sp.s[0]));
        issue(plan.initial_gpu());
    } catch (...) {
        sp.drain();
        throw;
    }
    const Clock::time_point gpu_issued = Clock::now();
    sides.chunks_before_cpu = static_cast<int>(ledger.chunks());
    double cpu_ms = 0;
    long long cpu_outputs = 0;
    auto cpu_piece = [&](RowRange r) {
        if (r.end <= r.begin) return;
        const Clock::time_point t0 = Clock::now();
        cpu_rows(r.begin, r.end);
        cpu_ms += ms_between(t0, Clock::now());
        cpu_outputs += r.end - r.begin;
    };
    std::exception_ptr cpu_error, gpu_error;
    bool ended = false;
    auto end_gpu = [&] {  // once every output is claimed: what follows the GPU's last chunk
        if (ended || plan.remaining() > 0) return;
        ended = true;
        if (gpu_end) gpu_end(static_cast<int>((ledger.chunks() - 1) & 1));
    };
    const Clock::time_point cpu_start = Clock::now();
    try {
        if (fail == testing::Fail::cpu)
            throw std::runtime_error(std::string(fn) + ": injected CPU failure (test hook), before its share ran");
        RowRange first = plan.take_cpu(plan.piece());
        try {
            end_gpu();
        } catch (...) {
            gpu_error = std::current_exception();
        }
        if (!gpu_error) cpu_piece(first);
        while (!gpu_error && plan.remaining() > 0) {
            RowRange next;
            try {
                if (fail == testing::Fail::gpu_late && ledger.chunks() > 0 && cpu_outputs > 0)  // once: the first poll
                    throw std::runtime_error(std::string(fn) + ": injected GPU failure (test hook), between the CPU's pieces");
                poll();
                const BalancePlanner::Decision d =
                    plan.decide(cpu_ms / static_cast<double>(std::max<long long>(1, cpu_outputs)), ledger.ms_per_output(),
                                ledger.queued());
                issue(d.gpu);
                next = plan.take_cpu(d.cpu);
                end_gpu();
            } catch (...) {
                gpu_error = std::current_exception();  // the CPU stops too: the output is unspecified
                break;
            }
            cpu_piece(next);
        }
    } catch (...) {
        cpu_error = std::current_exception();
    }
    sides.cpu_ms = ms_between(cpu_start, Clock::now());
    try {  // asleep on the events: every copy over before anything is reported
        wait_streams(sp, true);
    } catch (...) {
        if (!gpu_error) gpu_error = std::current_exception();
    }
    sides.gpu_ms = ms_between(start, Clock::now());
    sides.gpu_issued_ms = ms_between(start, gpu_issued);
    sides.gpu_outputs = plan.lo();
    if (gpu_error) std::rethrow_exception(gpu_error);
    if (cpu_error) std::rethrow_exception(cpu_error);
    sides.total_ms = ms_between(start, Clock::now());
}
//! [hybrid-balanced]

}  // namespace detail

}  // namespace wb::hybrid
