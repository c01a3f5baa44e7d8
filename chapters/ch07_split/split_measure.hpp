/// \file split_measure.hpp
/// \brief Chapter 7's timings: the three ways to run a case (split_cases.hpp) run for real on the
///        same seeded host data (page-locked where the GPU copies it), one case at a time for the
///        calibration or a group of sizes in turn for the table's rows.
#pragma once

#include "host_array.hpp"
#include "host_timing.hpp"
#include "split_cases.hpp"
#include "split_vendor.hpp"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace wb::ch07 {

/// Host memory for the CPU peers' operands (the rows' and the calibration's): page-locked where
/// `pinned` (a GPU copies them: their copies then overlap), else ordinary memory (an empty
/// HostAlloc). cpu::HostArray takes it.
cpu::HostAlloc host_alloc(bool pinned);

/// One call's median time (host_timing.hpp): a warm-up call and batch, then batches of about 5 ms
/// until the median's error is under 1% (at least 7, at most 25; no new one after a second once
/// three are done), timed once more after the threads settle where it did not settle.
template <class F>
cpu::CallTiming timed_call(F&& f) {
    cpu::TimingPlan plan;
    plan.min_batches = 7;
    return cpu::time_call(f, plan);
}
template <class F>
double timed(F&& f) {
    return timed_call(f).ms;
}

/// CG on the host (cpu::cg, tol 0) from x = 0 until `iterations` iterations are done in all: a
/// small system stops early at an exactly zero residual (n = 8 in float: after 35 of 100), so the
/// solve restarts until the model's iterations are done (A: n x n, leading dimension lda >= n).
/// Returns the iterations done.
template <class T>
int cpu_cg_iterations(int n, const T* A, int lda, const T* b, T* x, int iterations);

/// Host bytes one measured case holds at its peak (its operands, generated once and shared by the
/// three ways; CG's solver vectors). Throws std::invalid_argument on an unknown op.
double host_bytes_needed(const Case& c);

/// The measured columns of one case (NaN where not measured).
struct Measured {
    double cpu_ms = NAN;     ///< the CPU peer: the median of its batches
    double gpu_ms = NAN;     ///< all on the GPU: copies in, the tuned kernel, copy out (one chunk: in sequence)
    double hybrid_ms = NAN;  ///< the hybrid with `gpu_part` on the GPU in `chunks` chunks (CG: White §5.2)
    double gpu_chunked_ms = NAN;  ///< all on the GPU in the hybrid's chunks (MeasurePlan::chunked)
    int hybrid_part = 0;     ///< the GPU rows the hybrid ran with
    double hybrid_error = NAN;  ///< the hybrid timing's relative standard error (host_timing.hpp)
    /// measure_case: how long the calling thread took to issue the hybrid's GPU side before its
    /// CPU share began (hybrid::SideTimes::gpu_issued_ms, the median over every call the timing
    /// made, its warm-up calls included; 0 where the GPU worker issued it and the CPU's share
    /// began at once).
    double hybrid_issue_ms = NAN;
    /// The chunks that issue covered: a balanced call's first issue (SideTimes::chunks_before_cpu,
    /// the median over its calls); 0 for a fixed share, whose issue covers all its chunks.
    int hybrid_issue_chunks = 0;
    double cpu_error = NAN;     ///< the CPU timing's relative standard error
    /// The fastest and slowest batch (ms per call) of the CPU peer and of the hybrid where they
    /// were timed in turn with the other sizes (measure_group): the host's drift during the
    /// timing shows here.
    double cpu_min_ms = NAN, cpu_max_ms = NAN, hybrid_min_ms = NAN, hybrid_max_ms = NAN;
    /// The balanced hybrid (kernels/cpu/hybrid_balance.hpp): the pieces it ran with (0: the fixed
    /// share ran), and the median over its calls of the GPU's outputs at the end over n. Where the
    /// balanced call is the hybrid, hybrid_ms is its time; --balance-ab times it beside the fixed
    /// share in the same rounds instead (NaN where not): its median, fastest and slowest batch.
    double balanced_ms = NAN, balanced_min_ms = NAN, balanced_max_ms = NAN;
    int balanced_pieces = 0;
    double balanced_share = NAN;
    /// Where a row's CPU peer and its hybrid trade places every other round (no A/B): the median
    /// batch of each in each place. The CPU peer first in its row (after the previous size's calls)
    /// and right after its hybrid; the hybrid right after its CPU peer and first in its row.
    double cpu_first_ms = NAN, cpu_after_hybrid_ms = NAN, hybrid_after_cpu_ms = NAN, hybrid_first_ms = NAN;
    /// CG: each GPU solve (the all-GPU one, White's split) that stopped before its row's iterations
    /// (cg_solve_iterations), at an exactly zero residual or a breakdown: its time was scaled to
    /// them, and the run says so (cg_stop_lines).
    struct CgStop {
        std::string solve;
        int done = 0, planned = 0;
    };
    std::vector<CgStop> cg_stopped_at = {};
};
/// An A/B of the balanced rows (the rows with more than one piece): two arms timed in the same
/// rounds at the same plan, arm a's time in Measured::hybrid_ms, arm b's in balanced_ms (and the
/// "balanced GPU share" is arm b's).
struct AbPlan {
    enum class Arms {
        none,               ///< no A/B: the balanced call is the hybrid
        fixed_vs_balanced,  ///< --balance-ab: a the fixed share, b the balanced call
        first_issue,        ///< --first-issue-ab: a the balanced call as it is, b with its first issue `first_issue`
        depth,              ///< --depth-ab: every hybrid row (fixed or balanced) as it is, b the same call at
                            ///< depth_b(its depth, depth_scale) chunks
    };
    Arms arms = Arms::none;
    double first_issue = 0;  ///< Arms::first_issue: arm b's first issue in pieces' worth (finite, > 0)
    double depth_scale = 0;  ///< Arms::depth: arm b's depth over arm a's (finite, > 0)
};
/// --depth-ab's arm b: the depth `depth` (>= 1) times `scale`, rounded, at least 1.
int depth_b(int depth, double scale);

/// The GPU's chunks of a balanced row: at most a piece's worth, ceil(g / max(depth, pieces)).
int balanced_unit(int g, int depth, int pieces);
/// Whether --first-issue-ab's two arms are different calls at a balanced row of n outputs, g planned
/// on the GPU: the first issue of `first_issue` pieces' worth and kFirstIssuePieces', each rounded
/// up to whole chunks of balanced_unit (where a chunk is a piece's worth, any first issue in (1, 2]
/// pieces is two chunks: docs/notes/split.md, session 43). False where pieces <= 1 or g is not in
/// (0, n) (no balanced call).
bool first_issue_arms_differ(int n, int g, int depth, int pieces, double first_issue);

/// One timed call of a group's rounds (measure_group): its row, the call, and the column it fills.
struct RoundCall {
    enum class Call {
        cpu,             ///< the CPU peer
        fixed,           ///< the hybrid at the fixed share
        balanced,        ///< the balanced hybrid (under --first-issue-ab: with AbPlan::first_issue)
        balanced_as_is,  ///< --first-issue-ab's arm a: the balanced hybrid as it is
        cg_split,        ///< CG's split solve (White §5.2)
        fixed_depth_b,     ///< --depth-ab's arm b at a fixed share: the hybrid at depth_b chunks
        balanced_depth_b,  ///< --depth-ab's arm b at a balanced row: the balanced call at depth_b chunks
    };
    enum class Column { cpu, hybrid, balanced };  ///< Measured's cpu_ms, hybrid_ms, balanced_ms
    std::size_t row = 0;
    Call call = Call::cpu;
    Column column = Column::cpu;
    bool operator==(const RoundCall& o) const { return row == o.row && call == o.call && column == o.column; }
};
/// The calls of a group's rounds in their order, and the pairs of them that trade places every
/// other round (cpu::time_interleaved's alternate).
struct RoundPlan {
    std::vector<RoundCall> calls;
    std::vector<std::pair<std::size_t, std::size_t>> swaps;
};
/// What measure_group times in its rounds (pure: cpu tests). Each row's CPU peer; where `gpu`,
/// CG's split solve, or (GEMV, GEMM, SYMV, the convolution, with gpu_parts[i] in (0, n)) the fixed
/// share where pieces[i] <= 1 or the op has no balanced call (SYMV), else the balanced call, or an
/// A/B's two arms. With `alternate`, the hybrid trades places with the CPU peer, an A/B's arm b
/// with arm a (the CPU peer then first in every round). Throws std::invalid_argument unless
/// gpu_parts and (where given) pieces have one entry per case, on an AbPlan::Arms::first_issue
/// whose first_issue is not finite and > 0, and on an AbPlan::Arms::depth whose depth_scale is not
/// finite and > 0. Under Arms::depth every hybrid row (fixed or balanced) runs as it is (arm a,
/// the hybrid column) and at depth_b (arm b, the balanced column), the two trading places.
RoundPlan round_plan(const std::vector<Case>& cases, const std::vector<int>& gpu_parts, const std::vector<int>& pieces,
                     bool gpu, const AbPlan& ab, bool alternate);

/// Runs the cases of one op, precision and FS (the rows of one group of the table, in order) on
/// seeded host data (page-locked where `gpu`), all sizes' data held at once: where `gpu`, each
/// size's all-GPU call, one size after another; then the CPU peer of every size and, where `gpu`,
/// its hybrid with gpu_parts[i] rows (columns) on the GPU (not run where that is 0 or all: the
/// hybrid is then one of the other two; CG always runs White's split), timed in turn across the
/// sizes (cpu::time_interleaved: a drift of the host during the timing shows as each row's
/// spread, not as a step between sizes). Throws std::invalid_argument unless the cases share one
/// op, precision and FS and gpu_parts and chunks (each case's pipeline depth, >= 1) have one
/// entry per case; throws what the calls throw. `pieces` (empty, or one entry per case): where an
/// entry is above 1 and the hybrid runs (GEMV, GEMM, SYMV and the convolution), the hybrid is the
/// balanced call with that many pieces, unless `ab` says otherwise.
/// The calls and their order are round_plan's. `alternate` off: every round in one order, each
/// hybrid (an A/B's arm a) right after its CPU peer, as the runs before 98ccc44 (A/Bs: before
/// bd67240; docs/notes/split.md, session 43).
std::vector<Measured> measure_group(const std::vector<Case>& cases, const std::vector<int>& gpu_parts,
                                    const std::vector<int>& chunks, bool gpu, int cg_iterations,
                                    const std::vector<int>& pieces = {}, const AbPlan& ab = {}, bool alternate = true);

/// The GEMM cases of one precision (the rows of its group, in order) beside the vendor's
/// host-memory GEMM (split_vendor.hpp), on seeded page-locked host data: per size ours on the GPU
/// with its transfers and cuBLASXt alone; where gpu_parts[i] is inside (0, n), also our hybrid as
/// the table's row ran it (gpu_parts[i] columns on the GPU in chunks[i] chunks, the balanced call
/// where pieces[i] > 1) and cuBLASXt with the CPU share 1 - gpu_parts[i] / n. Every call of every
/// size timed in turn (cpu::time_interleaved), ours on the GPU and cuBLASXt alone trading places
/// every other round, and so the two hybrids. Throws std::invalid_argument unless every case is a
/// GEMM of one precision and gpu_parts, chunks and pieces have one entry per case; throws what the
/// calls throw. Needs a CUDA device.
std::vector<VendorRow> measure_vendor_gemm(const std::vector<Case>& cases, const std::vector<int>& gpu_parts,
                                           const std::vector<int>& chunks, const std::vector<int>& pieces);
/// Which ways a calibration times (not CG), one after another on one case's data: the CPU peer
/// (after the threads settle), the all-GPU call in one chunk, in `chunks` chunks, then the hybrid
/// with the rows hybrid_part returns once the others are timed (it sees them; 0 or n: not run).
struct MeasurePlan {
    bool cpu = true;
    bool gpu = true;
    bool chunked = false;
    std::function<int(const Measured&)> hybrid_part;
    /// The balanced hybrid's pieces at g GPU rows (GEMV, GEMM, SYMV and the convolution; 0 or 1, or unset:
    /// the fixed share), in chunks no larger than a piece's worth.
    std::function<int(int g)> pieces;
};
Measured measure_case(const Case& c, const MeasurePlan& plan, int chunks);

/// The all-GPU call of every case (not CG) at its size, in one chunk (Measured::gpu_ms) and in
/// `chunks` chunks (gpu_chunked_ms), on page-locked host data: all of these calls timed in turn
/// (cpu::time_interleaved, the median batch), so that each figure spans the same rounds. A tiny
/// call's time is the host's fixed cost of the path (the copies' and the launch's API calls, the
/// wait), which has states lasting seconds (the same n = 8 GEMV took 24 us, then 29 us, a few
/// seconds apart): a class timed alone lands in the state of its moment, each call timed in turn
/// across the classes spans them all. Throws std::invalid_argument on a CG case; throws what the
/// calls throw.
std::vector<Measured> measure_paths_in_turn(const std::vector<Case>& cases, int chunks);

}  // namespace wb::ch07
