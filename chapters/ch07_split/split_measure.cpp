// split_measure.cpp — chapter 7's timings (split_measure.hpp): each case's host data, its three
// ways as calls on it (the CPU peer, the hybrid launchers of kernels/cpu, CG's solves), and the
// rounds that time them.
#include "split_measure.hpp"

#include "buffer.hpp"
#include "cpu_peers.hpp"
#include "host_timing.hpp"
#include "hybrid_balance.hpp"
#include "hybrid_cg.hpp"
#include "hybrid_common.hpp"
#include "hybrid_conv2d.hpp"
#include "hybrid_gemm.hpp"
#include "hybrid_gemv.hpp"
#include "hybrid_symv.hpp"
#include "random.hpp"
#include "reference_cg.hpp"
#include "xt_gemm.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <utility>

namespace wb::ch07 {

template <class T>
int cpu_cg_iterations(int n, const T* A, int lda, const T* b, T* x, int iterations) {
    int done = 0;
    while (done < iterations) {
        std::fill(x, x + n, T(0));
        CgResult res;
        cpu::cg(CgArgs<T>{n, A, lda, b, x, 0.0, iterations - done, &res});
        done += std::max(1, res.iterations);  // b == 0 converges at once: counted, so the loop ends
    }
    return done;
}

template int cpu_cg_iterations<float>(int, const float*, int, const float*, float*, int);
template int cpu_cg_iterations<double>(int, const double*, int, const double*, double*, int);

double host_bytes_needed(const Case& c) {
    const double N = c.n, nn = N * (N + c.ld_pad), e = static_cast<double>(c.elem);  // each matrix n columns (rows) of ld
    if (c.op == "gemv" || c.op == "symv") return e * (nn + 2 * N);
    if (c.op == "gemm") return e * 3 * nn;
    if (c.op == "conv2d") return e * (2 * nn + c.fs * c.fs);
    if (c.op == "cg") return e * (nn + 8 * N);  // A, b, x; the solver's r, p, q (and the split's pinned copies)
    unknown_op("ch07 host_bytes_needed", c.op);
}

namespace {

/// Timing data: values in [0.5, 1), varied in their low bits, never zero (no denormal or NaN can
/// slow a unit down; the gpu tests check results on random data).
template <class T>
void fill(T* p, std::size_t n, std::size_t salt) {
    for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<T>(0.5 + static_cast<double>((i * 2654435761u + salt) % 1021) / 2048.0);
}

/// Rows per chunk for the hybrid's GPU share g in `chunks` chunks.
int chunk_of(int g, int chunks) { return std::max(1, (g + chunks - 1) / chunks); }

/// Whether a row whose CPU share has `pieces` pieces runs the balanced call (outside an A/B): its
/// op has one and the share has more than one piece; else it runs the fixed share.
bool runs_balanced(const Case& c, int pieces) { return has_balanced_call(c.op) && pieces > 1; }

/// One case's host data (page-locked where `pinned`) and its ways as calls on it: the CPU peer;
/// not CG, the hybrid with `rows` (GEMM: columns) on the GPU in chunks of `chunk`; CG, the
/// all-GPU and the split solves from x = 0, each leaving its outcome in `solved`.
template <class T>
struct Prepared {
    std::vector<std::shared_ptr<void>> keep;  ///< the arrays the calls read and write
    std::function<void()> cpu;
    std::function<void(int rows, int chunk)> hybrid;
    std::function<void(int rows, int chunk, int pieces)> balanced;  ///< GEMV, GEMM, SYMV and the convolution
    std::function<void(double cpu_ratio)> xt;  ///< GEMM: the vendor's host-memory GEMM (cuBLASXt)
    std::function<void()> cg_gpu, cg_split;
    std::shared_ptr<CgResult> solved = std::make_shared<CgResult>();
};

template <class T>
Prepared<T> prepare(const Case& c, bool pinned, int cg_iterations) {
    const int n = c.n, ld = n + c.ld_pad;  // the leading dimension (--ld-pad): n columns (image rows) of ld
    const std::size_t un = static_cast<std::size_t>(n), nn = un * static_cast<std::size_t>(ld);
    Prepared<T> p;
    auto array = [&](std::size_t count) {
        auto a = std::make_shared<cpu::HostArray<T>>(count, host_alloc(pinned), "ch07_split: a row's operands");
        p.keep.push_back(a);
        return a->data();
    };
    if (c.op == "gemv" || c.op == "symv") {
        T *A = array(nn), *x = array(un), *y = array(un);
        fill(A, nn, 1);
        fill(x, un, 2);
        if (c.op == "gemv") {
            const GemvArgs<T> a{Op::N, n, n, T(1), A, ld, x, T(0), y};
            p.cpu = [a] { cpu::gemv(a); };
            p.hybrid = [a](int rows, int chunk) { hybrid::gemv(a, rows, chunk); };
            p.balanced = [a](int rows, int chunk, int pieces) { hybrid::gemv(a, rows, chunk, pieces); };
        } else {
            const SymvArgs<T> a{Uplo::Lower, n, T(1), A, ld, x, 1, T(0), y, 1};
            p.cpu = [a] { cpu::symv(a); };
            p.hybrid = [a](int rows, int chunk) { hybrid::symv(a, rows, chunk); };
            p.balanced = [a](int rows, int chunk, int pieces) { hybrid::symv(a, rows, chunk, pieces); };
        }
    } else if (c.op == "gemm") {
        T *A = array(nn), *B = array(nn), *C = array(nn);
        fill(A, nn, 3);
        fill(B, nn, 4);
        const GemmArgs<T> a{Op::N, Op::N, n, n, n, T(1), A, ld, B, ld, T(0), C, ld};
        p.cpu = [a] { cpu::gemm(a); };
        p.hybrid = [a](int cols, int chunk) { hybrid::gemm(a, cols, chunk); };
        p.balanced = [a](int cols, int chunk, int pieces) { hybrid::gemm(a, cols, chunk, pieces); };
        p.xt = [a](double cpu_ratio) { xt::gemm(a, cpu_ratio); };
    } else if (c.op == "conv2d") {
        T *in = array(nn), *out = array(nn);
        auto f = std::make_shared<std::vector<T>>(static_cast<std::size_t>(c.fs) * c.fs);
        p.keep.push_back(f);
        fill(in, nn, 5);
        fill(f->data(), f->size(), 6);
        const Conv2dArgs<T> a{n, n, c.fs, in, ld, f->data(), out, ld};
        p.cpu = [a] { cpu::conv2d(a); };
        p.hybrid = [a](int rows, int chunk) { hybrid::conv2d(a, rows, chunk); };
        p.balanced = [a](int rows, int chunk, int pieces) { hybrid::conv2d(a, rows, chunk, pieces); };
    } else if (c.op == "cg") {  // the row's iterations per solve; a solve that stops early is scaled to them
        T *A = array(nn), *x = array(un);
        ref::spd_matrix(n, 100.0, 77, A, ld);
        auto b = std::make_shared<std::vector<T>>(random_vector<T>(un, 78));
        p.keep.push_back(b);
        const int its = cg_solve_iterations(n, cg_iterations);
        p.cpu = [=] { cpu_cg_iterations(n, A, ld, b->data(), x, its); };
        const CgArgs<T> a{n, A, ld, b->data(), x, 0.0, its, p.solved.get()};
        p.cg_gpu = [a, x, un] {
            std::fill(x, x + un, T(0));
            hybrid::cg_gpu(a);
        };
        p.cg_split = [a, x, un] {
            std::fill(x, x + un, T(0));
            hybrid::cg_split(a);
        };
    } else {
        unknown_op("ch07 measure_case", c.op);
    }
    return p;
}

/// A solve's time for its row's `iterations` (ms): a solve that stopped early (its residual exactly
/// zero, or a breakdown), scaled; the table says which did (Measured::cg_stopped_at).
double per_solve(double ms, const CgResult& res, int iterations) {
    return ms * iterations / std::max(1, res.iterations);
}

/// The ways of `plan` on the case's host data (page-locked where `pinned`), one after another:
/// the CPU peer (after the threads settle), the whole call on the GPU (one chunk; in the hybrid's
/// chunks), the split. Not CG.
template <class T>
Measured measure_typed(const Case& c, const MeasurePlan& plan, int chunks, bool pinned) {
    const int n = c.n;
    Prepared<T> p = prepare<T>(c, pinned, 1);
    Measured r;
    // The idle threads of the previous row's calls (another peer family, perhaps) stop spinning
    // first; the ways of one row then use the same peer.
    if (plan.cpu) {
        cpu::settle_threads();
        const cpu::CallTiming t = timed_call(p.cpu);
        r.cpu_ms = t.ms;
        r.cpu_error = t.stats.rel_error();
    }
    if (plan.gpu) r.gpu_ms = timed([&] { p.hybrid(n, n); });
    if (plan.chunked) r.gpu_chunked_ms = timed([&] { p.hybrid(n, chunk_of(n, chunks)); });
    const int g = plan.hybrid_part ? plan.hybrid_part(r) : 0;
    if (g > 0 && g < n) {
        r.hybrid_part = g;
        const int pc = plan.pieces && p.balanced ? plan.pieces(g) : 0;
        if (pc > 1) r.balanced_pieces = pc;
        std::vector<double> issued, issued_chunks;  // each call's issue on the calling thread (0: the worker issued), warm-ups too
        const cpu::CallTiming h = timed_call([&] {
            if (pc > 1) p.balanced(g, balanced_unit(g, chunks, pc), pc);
            else p.hybrid(g, chunk_of(g, chunks));
            const hybrid::SideTimes s = hybrid::last_side_times();
            issued.push_back(s.issued_on_caller ? s.gpu_issued_ms : 0.0);
            issued_chunks.push_back(s.chunks_before_cpu);
        });
        if (!issued_chunks.empty()) r.hybrid_issue_chunks = static_cast<int>(cpu::quantile(issued_chunks, 0.5));
        r.hybrid_ms = h.ms;
        r.hybrid_error = h.stats.rel_error();
        if (!issued.empty()) r.hybrid_issue_ms = cpu::quantile(issued, 0.5);
    }
    return r;
}

}  // namespace

int balanced_unit(int g, int depth, int pieces) { return chunk_of(g, std::max({1, depth, pieces})); }

bool first_issue_arms_differ(int n, int g, int depth, int pieces, double first_issue) {
    if (pieces <= 1 || g <= 0 || g >= n) return false;
    const int unit = balanced_unit(g, depth, pieces);
    return hybrid::BalancePlanner(n, g, unit, pieces, first_issue).initial_gpu() !=
           hybrid::BalancePlanner(n, g, unit, pieces).initial_gpu();
}

cpu::HostAlloc host_alloc(bool pinned) {
    if (!pinned) return {};
    return [](std::size_t bytes) {
        auto b = std::make_shared<PinnedBuffer<unsigned char>>(bytes);
        return std::shared_ptr<void>(b, b->data());
    };
}

int depth_b(int depth, double scale) {
    return std::max(1, static_cast<int>(std::lround(std::max(1, depth) * scale)));
}

RoundPlan round_plan(const std::vector<Case>& cases, const std::vector<int>& gpu_parts, const std::vector<int>& pieces,
                     bool gpu, const AbPlan& ab, bool alternate) {
    if (gpu_parts.size() != cases.size() || (!pieces.empty() && pieces.size() != cases.size()))
        throw std::invalid_argument("ch07 round_plan: gpu_parts (" + std::to_string(gpu_parts.size()) + ") and pieces (" +
                                    std::to_string(pieces.size()) + ", or none) must have one entry per case (" +
                                    std::to_string(cases.size()) + ")");
    if (ab.arms == AbPlan::Arms::depth && !(ab.depth_scale > 0 && std::isfinite(ab.depth_scale)))
        throw std::invalid_argument("ch07 round_plan: ab.depth_scale (" + std::to_string(ab.depth_scale) +
                                    ") must be finite and > 0 for the depth A/B");
    if (ab.arms == AbPlan::Arms::first_issue && !(ab.first_issue > 0 && std::isfinite(ab.first_issue)))
        throw std::invalid_argument("ch07 round_plan: ab.first_issue (" + std::to_string(ab.first_issue) +
                                    ") must be finite and > 0 for the first-issue A/B");
    using Call = RoundCall::Call;
    using Column = RoundCall::Column;
    RoundPlan plan;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const Case& c = cases[i];
        plan.calls.push_back({i, Call::cpu, Column::cpu});
        const std::size_t cpu_call = plan.calls.size() - 1;
        auto add = [&](Call call, Column column, std::size_t partner) {  // trades places with `partner`
            plan.calls.push_back({i, call, column});
            if (alternate) plan.swaps.push_back({partner, plan.calls.size() - 1});
        };
        if (!gpu) continue;
        if (c.op == "cg") {
            add(Call::cg_split, Column::hybrid, cpu_call);
            continue;
        }
        const int g = gpu_parts[i];
        if (!(g > 0 && g < c.n)) continue;  // the hybrid is one of the other two ways
        const bool balanced = !pieces.empty() && runs_balanced(c, pieces[i]);
        if (ab.arms == AbPlan::Arms::depth) {  // arm a right after the CPU peer in the even rounds
            plan.calls.push_back({i, balanced ? Call::balanced : Call::fixed, Column::hybrid});
            add(balanced ? Call::balanced_depth_b : Call::fixed_depth_b, Column::balanced, plan.calls.size() - 1);
            continue;
        }
        if (!balanced) {
            add(Call::fixed, Column::hybrid, cpu_call);
            continue;
        }
        switch (ab.arms) {
            case AbPlan::Arms::depth:  // not reached: handled before the switch, for fixed and balanced rows alike
            case AbPlan::Arms::none: add(Call::balanced, Column::hybrid, cpu_call); break;
            case AbPlan::Arms::fixed_vs_balanced:  // arm a right after the CPU peer in the even rounds
                plan.calls.push_back({i, Call::fixed, Column::hybrid});
                add(Call::balanced, Column::balanced, plan.calls.size() - 1);
                break;
            case AbPlan::Arms::first_issue:
                plan.calls.push_back({i, Call::balanced_as_is, Column::hybrid});
                add(Call::balanced, Column::balanced, plan.calls.size() - 1);
                break;
        }
    }
    return plan;
}

namespace {

/// The rows of one op, precision and FS (measure_group).
template <class T>
std::vector<Measured> group_typed(const std::vector<Case>& cases, const std::vector<int>& gpu_parts, const std::vector<int>& chunks,
                                  bool gpu, int cg_iterations, const std::vector<int>& pieces, const AbPlan& plan_ab,
                                  bool alternate) {
    const std::size_t k = cases.size();
    std::vector<Prepared<T>> p;
    for (const Case& c : cases) p.push_back(prepare<T>(c, gpu, cg_iterations));
    std::vector<Measured> r(k);
    cpu::settle_threads();  // the previous group's threads (another peer family, perhaps) stop spinning
    // The all-GPU call of each size, one size after another (the GPU's rates do not drift).
    for (std::size_t i = 0; gpu && i < k; ++i) {
        const Case& c = cases[i];
        if (c.op == "cg") {
            const int its = cg_solve_iterations(c.n, cg_iterations);
            r[i].gpu_ms = per_solve(timed(p[i].cg_gpu), *p[i].solved, its);
            if (p[i].solved->iterations < its) r[i].cg_stopped_at.push_back({"all-GPU", p[i].solved->iterations, its});
        }
        else r[i].gpu_ms = timed([&] { p[i].hybrid(c.n, c.n); });
    }
    // The CPU peer and the hybrid of every size, in turn (cpu::time_interleaved), as round_plan says.
    const RoundPlan rounds = round_plan(cases, gpu_parts, pieces, gpu, plan_ab, alternate);
    std::vector<std::vector<double>> shares(k);  // each balanced call's GPU outputs over n
    const double first_issue = plan_ab.arms == AbPlan::Arms::first_issue ? plan_ab.first_issue : 0;  // 0: as it is
    const double scale = plan_ab.arms == AbPlan::Arms::depth ? plan_ab.depth_scale : 1;
    std::vector<std::function<void()>> calls;
    using Call = RoundCall::Call;
    for (const RoundCall& rc : rounds.calls) {
        const std::size_t i = rc.row;
        const int g = gpu_parts[i];
        // --depth-ab's arm b: the same call as the row's own, at depth_b of its depth
        const bool arm_b = rc.call == Call::fixed_depth_b || rc.call == Call::balanced_depth_b;
        const int depth = arm_b ? depth_b(chunks[i], scale) : chunks[i];
        const int pc = pieces.empty() ? 0 : pieces[i];
        const int unit = balanced_unit(g, depth, pc);
        const double n = cases[i].n;
        if (rc.call == Call::fixed || rc.call == Call::balanced) r[i].hybrid_part = g;
        if (rc.call == Call::balanced) r[i].balanced_pieces = pc;
        switch (rc.call) {
            case Call::cpu: calls.push_back(p[i].cpu); break;
            case Call::cg_split: calls.push_back(p[i].cg_split); break;
            case Call::fixed:
            case Call::fixed_depth_b: calls.push_back([&p, i, g, depth] { p[i].hybrid(g, chunk_of(g, depth)); }); break;
            case Call::balanced_as_is:
            case Call::balanced_depth_b: calls.push_back([&p, i, g, unit, pc] { p[i].balanced(g, unit, pc); }); break;
            case Call::balanced:
                calls.push_back([&p, &shares, i, g, unit, pc, n, first_issue] {
                    const hybrid::ScopedFirstIssue first(first_issue);  // 0: as it is
                    p[i].balanced(g, unit, pc);
                    shares[i].push_back(hybrid::last_side_times().gpu_outputs / n);
                });
                break;
        }
    }
    cpu::TimingPlan plan;
    plan.min_batches = 7;
    const std::vector<cpu::CallTiming> t = cpu::time_interleaved(calls, plan, 0.05, nullptr, rounds.swaps);
    for (std::size_t j = 0; j < calls.size(); ++j) {
        const RoundCall& rc = rounds.calls[j];
        Measured& m = r[rc.row];
        // CG's split solve may stop early (its last solve's outcome scales every batch alike).
        const int its = cases[rc.row].op == "cg" ? cg_solve_iterations(cases[rc.row].n, cg_iterations) : 0;
        const double s = rc.call == Call::cg_split ? per_solve(1.0, *p[rc.row].solved, its) : 1.0;
        if (rc.call == Call::cg_split && p[rc.row].solved->iterations < its)
            m.cg_stopped_at.push_back({"split", p[rc.row].solved->iterations, its});
        const cpu::BatchStats& b = t[j].stats;
        if (!shares[rc.row].empty()) m.balanced_share = cpu::quantile(shares[rc.row], 0.5);
        if (!std::isnan(t[j].even_ms) && plan_ab.arms == AbPlan::Arms::none) {  // traded places with its partner
            if (rc.column == RoundCall::Column::cpu) {
                m.cpu_first_ms = t[j].even_ms;
                m.cpu_after_hybrid_ms = t[j].odd_ms;
            } else {
                m.hybrid_after_cpu_ms = s * t[j].even_ms;
                m.hybrid_first_ms = s * t[j].odd_ms;
            }
        }
        if (rc.column == RoundCall::Column::balanced) {
            m.balanced_ms = b.median;
            m.balanced_min_ms = b.min;
            m.balanced_max_ms = b.max;
        } else if (rc.column == RoundCall::Column::hybrid) {
            m.hybrid_ms = s * b.median;
            m.hybrid_min_ms = s * b.min;
            m.hybrid_max_ms = s * b.max;
            m.hybrid_error = b.rel_error();
        } else {
            m.cpu_ms = b.median;
            m.cpu_min_ms = b.min;
            m.cpu_max_ms = b.max;
            m.cpu_error = b.rel_error();
        }
    }
    return r;
}

/// Adds the all-GPU call of case c in one chunk and in `chunks` chunks to `calls`, its data to `keep`.
template <class T>
void add_path_calls(const Case& c, int chunks, std::vector<std::function<void()>>& calls,
                    std::vector<std::shared_ptr<void>>& keep) {
    auto p = std::make_shared<Prepared<T>>(prepare<T>(c, true, 1));
    keep.push_back(p);
    const int n = c.n, chunk = chunk_of(n, chunks);
    calls.push_back([p, n] { p->hybrid(n, n); });
    calls.push_back([p, n, chunk] { p->hybrid(n, chunk); });
}

}  // namespace

namespace {

/// measure_vendor_gemm for one precision.
template <class T>
std::vector<VendorRow> vendor_typed(const std::vector<Case>& cases, const std::vector<int>& gpu_parts,
                                    const std::vector<int>& chunks, const std::vector<int>& pieces) {
    const std::size_t k = cases.size();
    std::vector<Prepared<T>> p;
    for (const Case& c : cases) p.push_back(prepare<T>(c, true, 1));
    std::vector<VendorRow> r(k);
    std::vector<std::function<void()>> calls;
    std::vector<std::pair<std::size_t, std::size_t>> pairs;  // trade places every other round
    std::vector<double VendorRow::*> column;                 // the column each call fills
    std::vector<std::size_t> row;
    auto add = [&](std::size_t i, double VendorRow::*col, std::function<void()> f) {
        calls.push_back(std::move(f));
        column.push_back(col);
        row.push_back(i);
    };
    for (std::size_t i = 0; i < k; ++i) {
        const int n = cases[i].n, g = gpu_parts[i];
        r[i].c = cases[i];
        add(i, &VendorRow::gpu_ms, [&p, i, n] { p[i].hybrid(n, n); });
        add(i, &VendorRow::xt_ms, [&p, i] { p[i].xt(0); });
        pairs.push_back({calls.size() - 2, calls.size() - 1});
        if (!(g > 0 && g < n)) continue;
        const int depth = std::max(1, chunks[i]), pc = pieces[i];
        r[i].cpu_ratio = 1.0 - static_cast<double>(g) / n;
        if (runs_balanced(cases[i], pc)) {  // as the table's row ran it (round_plan)
            const int unit = balanced_unit(g, depth, pc);
            add(i, &VendorRow::hybrid_ms, [&p, i, g, unit, pc] { p[i].balanced(g, unit, pc); });
        } else {
            add(i, &VendorRow::hybrid_ms, [&p, i, g, depth] { p[i].hybrid(g, chunk_of(g, depth)); });
        }
        const double ratio = r[i].cpu_ratio;
        add(i, &VendorRow::xt_cpu_ms, [&p, i, ratio] { p[i].xt(ratio); });
        pairs.push_back({calls.size() - 2, calls.size() - 1});
    }
    cpu::TimingPlan plan;
    plan.min_batches = 7;
    cpu::settle_threads();
    const std::vector<cpu::CallTiming> t = cpu::time_interleaved(calls, plan, 0.05, nullptr, pairs);
    for (std::size_t j = 0; j < calls.size(); ++j) r[row[j]].*column[j] = t[j].ms;
    return r;
}

}  // namespace

std::vector<VendorRow> measure_vendor_gemm(const std::vector<Case>& cases, const std::vector<int>& gpu_parts,
                                           const std::vector<int>& chunks, const std::vector<int>& pieces) {
    if (cases.empty()) return {};
    if (gpu_parts.size() != cases.size() || chunks.size() != cases.size() || pieces.size() != cases.size())
        throw std::invalid_argument("ch07 measure_vendor_gemm: gpu_parts (" + std::to_string(gpu_parts.size()) + "), chunks (" +
                                    std::to_string(chunks.size()) + ") and pieces (" + std::to_string(pieces.size()) +
                                    ") must have one entry per case (" + std::to_string(cases.size()) + ")");
    for (const Case& c : cases)
        if (c.op != "gemm" || c.elem != cases.front().elem)
            throw std::invalid_argument("ch07 measure_vendor_gemm: cases must be GEMMs of one precision (" + c.op + ", " +
                                        std::to_string(c.elem) + "-byte elements)");
    return cases.front().elem == 4 ? vendor_typed<float>(cases, gpu_parts, chunks, pieces)
                                   : vendor_typed<double>(cases, gpu_parts, chunks, pieces);
}

std::vector<Measured> measure_paths_in_turn(const std::vector<Case>& cases, int chunks) {
    std::vector<std::function<void()>> calls;
    std::vector<std::shared_ptr<void>> keep;
    for (const Case& c : cases)
        if (c.op == "cg") throw std::invalid_argument("ch07 measure_paths_in_turn: a CG case has no all-GPU path call (op cg)");
    for (const Case& c : cases) {
        if (c.elem == 4) add_path_calls<float>(c, chunks, calls, keep);
        else add_path_calls<double>(c, chunks, calls, keep);
    }
    cpu::TimingPlan plan;
    plan.min_batches = 7;
    const std::vector<cpu::CallTiming> t = cpu::time_interleaved(calls, plan);
    std::vector<Measured> r(cases.size());
    for (std::size_t i = 0; i < cases.size(); ++i) {
        r[i].gpu_ms = t[2 * i].ms;
        r[i].gpu_chunked_ms = t[2 * i + 1].ms;
    }
    return r;
}

std::vector<Measured> measure_group(const std::vector<Case>& cases, const std::vector<int>& gpu_parts,
                                    const std::vector<int>& chunks, bool gpu, int cg_iterations, const std::vector<int>& pieces,
                                    const AbPlan& ab, bool alternate) {
    if (cases.empty()) return {};
    if (gpu_parts.size() != cases.size() || chunks.size() != cases.size())
        throw std::invalid_argument("ch07 measure_group: gpu_parts (" + std::to_string(gpu_parts.size()) +
                                    " entries) and chunks (" + std::to_string(chunks.size()) +
                                    ") must have one entry per case (" + std::to_string(cases.size()) + ")");
    for (int k : chunks)
        if (k < 1) throw std::invalid_argument("ch07 measure_group: chunks (" + std::to_string(k) + ") must be >= 1");
    if (!pieces.empty() && pieces.size() != cases.size())
        throw std::invalid_argument("ch07 measure_group: pieces (" + std::to_string(pieces.size()) +
                                    " entries) must be empty or have one entry per case (" + std::to_string(cases.size()) + ")");
    for (const Case& c : cases)
        if (c.op != cases.front().op || c.elem != cases.front().elem || c.fs != cases.front().fs)
            throw std::invalid_argument("ch07 measure_group: cases must share one op, precision and FS (" + c.op +
                                        " differs from " + cases.front().op + ")");
    return cases.front().elem == 4 ? group_typed<float>(cases, gpu_parts, chunks, gpu, cg_iterations, pieces, ab, alternate)
                                   : group_typed<double>(cases, gpu_parts, chunks, gpu, cg_iterations, pieces, ab, alternate);
}

Measured measure_case(const Case& c, const MeasurePlan& plan, int chunks) {
    if (c.op == "cg") throw std::invalid_argument("ch07 measure_case: a MeasurePlan is not for CG (op cg)");
    const bool pinned = plan.gpu || plan.chunked || static_cast<bool>(plan.hybrid_part);
    return c.elem == 4 ? measure_typed<float>(c, plan, chunks, pinned) : measure_typed<double>(c, plan, chunks, pinned);
}

}  // namespace wb::ch07
