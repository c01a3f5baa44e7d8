/// \file hybrid_balance.hpp
/// \brief A hybrid call that balances its split while it runs (chapter 7's "balanced" hybrid): the
///        model's share is the plan, and the measured rates of the two sides move it.
///
/// Why. A hybrid with a fixed share f ends when the slower side ends: where a side runs faster or
/// slower than modelled (the CPU's time on a shared host moves from run to run; the two sides slow
/// each other), the fixed share pays that miss in full. Here the outputs [0, n) are claimed from
/// both ends while the call runs: the GPU takes chunks from the start, the CPU pieces from the end,
/// and they meet where both finish together as measured, not as modelled.
///
/// How (one thread; the hybrid_common.hpp file comment says why the calling thread issues). The
/// calling thread issues the GPU's first chunks (about two CPU pieces' worth at the planned share),
/// then computes the CPU's pieces from the end. Between two pieces it asks the GPU's events which
/// chunks are done (cudaEventQuery, no wait), re-plans the unclaimed rows from both sides' measured
/// time per row (BalancePlanner::decide), issues the GPU's next chunks and takes the CPU's next
/// piece. What a call gives up: the CPU's share in `pieces` calls instead of one (each pays the
/// peer's fixed cost), and a GPU whose chunks are issued only between two pieces. So a call whose
/// CPU share is short gets one piece: the fixed share. With two pieces the first issue is the
/// GPU's whole plan, so such a call can move its split only towards the GPU.
///
/// Used by the hybrid GEMV (op N: columns of A, each side a partial y; hybrid_gemv.hpp), GEMM
/// (columns of C) and convolution (rows of the image).
#pragma once

#include "hybrid_common.hpp"
#include "hybrid_partition.hpp"

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <optional>
#include <vector>

namespace wb::hybrid {

/// The CPU's pieces a balanced hybrid call uses for a CPU share predicted to take `cpu_side_ms`:
/// one per kBalancePieceMs, at most kBalanceMaxPieces, at least 1 (1: the fixed share). A piece
/// of 0.25 ms keeps the peer's fixed cost per call (a few to twenty microseconds on a 16-core
/// host: OpenMP's fork and join, OpenBLAS's threads) near 5% of the piece; eight pieces give the
/// balance a granularity of an eighth of the CPU's share.
inline constexpr double kBalancePieceMs = 0.25;
inline constexpr int kBalanceMaxPieces = 8;
int balance_pieces(double cpu_side_ms);
/// The same, with each piece at least `min_piece` of the CPU's `cpu_outputs` outputs: at most
/// cpu_outputs / min_piece pieces (at least 1).
int balance_pieces(double cpu_side_ms, int cpu_outputs, int min_piece);
/// The fewest columns of C a GEMM's CPU piece should take. Each piece is one cpu::gemm call, and
/// each call packs the whole op(A) again: m k e bytes read at the host's rate B (GB/s), against
/// the piece's 2 m k c flops at the FMA rate F (GFLOP/s). That is at most 5% of the piece where
/// c >= 20 e F / (2 B) = 10 e F / B, whatever m and k: about 440 columns in float on a host of
/// 1.1 TFLOP/s and 100 GB/s. (A first run gave 15-column pieces at n = 4096: each re-read A's
/// 64 MiB, and the balanced GEMM ran 5 - 10% behind the fixed share: docs/notes/split.md.)
/// 1 where a rate is not positive.
int gemm_min_piece_cols(std::size_t elem_bytes, double gflops, double read_gbs);
/// The fewest columns of A a balanced GEMV's CPU piece takes: each piece reads and writes the CPU's
/// partial y (2 m e bytes) beside its m c e bytes of A, at most 5% from c = 40 on.
inline constexpr int kGemvMinPieceCols = 40;

/// The GPU's first issue, in CPU pieces' worth at the planned share: two keep the GPU busy through
/// the CPU's first piece and the poll after it. At two pieces it is the GPU's whole plan, so such a
/// call can move its split only towards the GPU (docs/notes/split.md, session 42, lead 1).
inline constexpr double kFirstIssuePieces = 2.0;
/// An A/B hook of chapter 7 (--first-issue-ab), not a tuning knob: while set (> 0), every balanced
/// call of this process issues `pieces` pieces' worth first instead of kFirstIssuePieces; 0
/// restores it. Returns the setting it replaced (0: none). Throws std::invalid_argument on
/// pieces < 0 or not finite.
double set_first_issue_pieces(double pieces);
/// The first issue a balanced call uses now: the setting, or kFirstIssuePieces where none.
double first_issue_pieces();
/// set_first_issue_pieces for a scope: the setting before it again at its end.
class ScopedFirstIssue {
public:
    explicit ScopedFirstIssue(double pieces) : before_(set_first_issue_pieces(pieces)) {}
    ~ScopedFirstIssue() { set_first_issue_pieces(before_); }
    ScopedFirstIssue(const ScopedFirstIssue&) = delete;
    ScopedFirstIssue& operator=(const ScopedFirstIssue&) = delete;

private:
    double before_;
};

/// The balanced call's split as pure arithmetic (unit-tested without a GPU). The outputs [0, n):
/// the GPU claims [lo, ...) from the start, the CPU [..., hi) from the end; [lo, hi) is unclaimed.
class BalancePlanner {
public:
    /// n outputs, the model's GPU share g (0 < g < n), the GPU's chunks of at most `unit` outputs,
    /// the CPU's planned share n - g in `pieces` pieces (>= 1), the GPU's first issue
    /// `first_issue` pieces' worth (> 0). Throws std::invalid_argument otherwise, naming the
    /// argument.
    BalancePlanner(int n, int g, int unit, int pieces, double first_issue = kFirstIssuePieces);

    /// The GPU's outputs to issue before the CPU's first piece: first_issue pieces' worth at the
    /// planned share, first_issue ceil(g / pieces), rounded up to whole units (at most g).
    int initial_gpu() const;
    /// The CPU's piece: ceil((n - g) / pieces) outputs.
    int piece() const { return piece_; }
    int unit() const { return unit_; }
    /// The unclaimed outputs [lo, hi).
    int lo() const { return lo_; }
    int hi() const { return hi_; }
    int remaining() const { return hi_ - lo_; }

    /// Claims up to `count` outputs for the GPU from lo; returns the first (the claim is
    /// min(count, remaining())).
    int take_gpu(int count);
    /// Claims up to `count` outputs for the CPU from hi: the range [hi - c, hi) with
    /// c = min(count, remaining()).
    RowRange take_cpu(int count);

    /// What one poll decides.
    struct Decision {
        int gpu = 0;  ///< outputs to issue on the GPU now
        int cpu = 0;  ///< the CPU's next piece
    };
    /// The next poll's decision from the CPU's measured ms per output (cpu_ms_per), the GPU's
    /// (gpu_ms_per: ChunkLedger::ms_per_output, the pipeline's rate; <= 0 where fewer than two
    /// chunks have finished: the planned ratio to the CPU's, (n - g) / g, stands in) and the GPU's
    /// outputs issued and not yet done (queued).
    /// The GPU's part of the unclaimed outputs R is x = (R c - q t) / (c + t) (both end together),
    /// c and t the CPU's and the GPU's time per output. Where the CPU's rest R - x is at most one
    /// and a half pieces, this is the last poll: the GPU takes x (none where x is under an eighth
    /// of a unit: not worth its chunk's fixed cost), the CPU the rest. Else the CPU takes a piece
    /// and the GPU as much of x as keeps about two pieces' time queued, rounded up to whole units
    /// (none where that is under a quarter of a unit). Every decision with R > 0 claims at least
    /// one output.
    Decision decide(double cpu_ms_per, double gpu_ms_per, double queued) const;

private:
    int n_, g_, unit_, piece_, pieces_ = 1;
    double first_issue_ = kFirstIssuePieces;
    int lo_ = 0, hi_;
};

/// The GPU's chunks of one balanced call as its poll sees them, in the order they were issued
/// (pure: the call's loop reads the chunks' events into it, the planner's cpu test virtual times).
class ChunkLedger {
public:
    /// A chunk of `outputs` (>= 1) outputs was issued. Throws std::invalid_argument otherwise.
    void issued(int outputs);
    /// Chunks [done(), upto) have finished, the last of them `ms_after_first` after the first
    /// chunk's end (0 where upto is 1). Throws std::logic_error where upto is not in
    /// (done(), chunks()].
    void finished(std::size_t upto, double ms_after_first);
    std::size_t chunks() const { return outputs_.size(); }
    std::size_t done() const { return done_; }
    long long done_outputs() const { return done_outputs_; }
    /// Outputs issued and not done, the oldest running chunk counted half done.
    double queued() const;
    /// The GPU's ms per output in its pipeline: from the first chunk's end to the last finished
    /// one's, over the outputs of the chunks after the first (the first alone counts its copy in,
    /// kernel and copy out in sequence, which later chunks overlap). 0 until two have finished.
    double ms_per_output() const;

private:
    std::vector<int> outputs_;
    std::size_t done_ = 0;
    long long issued_ = 0, done_outputs_ = 0;
    double last_after_first_ = 0;
};

namespace detail {

/// Runs one balanced hybrid call of n outputs planned as g on the GPU in chunks of at most `unit`
/// and the CPU's share in `pieces` pieces (the file comment). `cpu_rows(r0, r1)` computes outputs
/// [r0, r1) on the calling thread; `gpu_start(sp, cap)` gets the GPU side's buffers from sp for
/// chunks of up to `cap` outputs and issues what every chunk needs (copy_whole); `gpu_issue(r0, c, b)` issues outputs [r0, r0 + c) on
/// stream b (c <= unit). Where the share is not strictly inside (0, n), pieces == 1, or a host
/// array of gpu_host_arrays is pageable (the GPU worker then issues: hybrid_common.hpp), it is
/// run() with the fixed share g. The contract is run()'s: returns when both sides have stopped and
/// every copy is over; an error on either side (the injected ones too) surfaces after both have
/// stopped, the GPU's first; last_side_times() sets gpu_outputs to what the GPU computed.
/// `gpu_end(b)` (where given, balanced calls only) is issued once every output is claimed, after
/// the GPU's last chunk, on that chunk's stream b (GEMV's partial y goes back there).
void run_balanced(const char* fn, int n, int g, int unit, int pieces, std::initializer_list<const void*> gpu_host_arrays,
                  const std::function<void(int r0, int r1)>& cpu_rows, const std::function<void(ShareState& sp, int cap)>& gpu_start,
                  const std::function<void(int r0, int c, int b)>& gpu_issue, const std::function<void(int b)>& gpu_end = {});
/// Whether run_balanced balances a call (else it is the fixed share): 0 < g < n, pieces > 1, the
/// calling thread issues (issue_on_caller) and testing::run_sides_in_turn is off.
bool balances(int n, int g, int pieces, std::initializer_list<const void*> gpu_host_arrays);
/// run_balanced's balanced call itself, for a caller that has decided with balances() and has no
/// fixed-share callbacks (GEMV's column split): its rule is not asked again.
void run_balanced_now(const char* fn, int n, int g, int unit, int pieces, const std::function<void(int r0, int r1)>& cpu_rows,
                      const std::function<void(ShareState& sp, int cap)>& gpu_start,
                      const std::function<void(int r0, int c, int b)>& gpu_issue, const std::function<void(int b)>& gpu_end);

/// run_balanced with the GPU side an object of type Share, built when the GPU side starts:
/// Share(args, sp, cap) takes its buffers for chunks of up to cap outputs, prologue() issues what
/// every chunk needs, issue(r0, c, b) outputs [r0, r0 + c) on stream b (hybrid_gemm.cpp's
/// GpuColumns, hybrid_conv2d.cpp's GpuBands).
template <class Share, class Args>
void run_balanced_share(const char* fn, const Args& args, int n, int g, int unit, int pieces,
                        std::initializer_list<const void*> gpu_host_arrays, const std::function<void(int r0, int r1)>& cpu_rows) {
    std::optional<Share> share;
    run_balanced(
        fn, n, g, unit, pieces, gpu_host_arrays, cpu_rows,
        [&](ShareState& sp, int cap) {
            share.emplace(args, sp, cap);
            share->prologue();
        },
        [&](int r0, int c, int b) { share->issue(r0, c, b); });
}

}  // namespace detail

}  // namespace wb::hybrid
