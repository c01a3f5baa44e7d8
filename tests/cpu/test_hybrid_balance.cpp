// The balanced hybrid's planner (kernels/cpu/hybrid_balance.hpp), without a GPU: every output is
// claimed once by one side; a simulated call whose sides run at other rates than planned ends
// within its granularity of the balanced time, where the fixed share pays the whole miss; the
// pieces derived from a CPU share's time; argument errors.
#include "catch.hpp"

#include "hybrid_balance.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <vector>

namespace {

using wb::hybrid::BalancePlanner;

/// A call simulated in virtual time, as detail::run_balanced_now drives the planner and its
/// ChunkLedger: the CPU runs its pieces one after another at `cpu_per` ms per output; the GPU runs
/// its chunks in order at `gpu_per` ms per output plus `chunk_fixed` ms each, each starting once it
/// is issued and the chunk before is done. Between two pieces the ledger is told of the chunks
/// done by then. Returns the call's time; `owner` marks each output's side (1 CPU, 2 GPU; it must
/// be claimed once).
struct Sim {
    double total_ms = 0, cpu_end = 0, gpu_end = 0;
    int gpu_outputs = 0;
    std::vector<int> owner;
};
Sim simulate(int n, int g, int unit, int pieces, double cpu_per, double gpu_per, double chunk_fixed = 0) {
    BalancePlanner plan(n, g, unit, pieces);
    wb::hybrid::ChunkLedger ledger;
    Sim s;
    s.owner.assign(static_cast<std::size_t>(n), 0);
    std::vector<double> chunk_end;
    double now = 0, gpu_free = 0;
    auto claim = [&](int r0, int r1, int side) {
        for (int i = r0; i < r1; ++i) {
            REQUIRE(s.owner[static_cast<std::size_t>(i)] == 0);
            s.owner[static_cast<std::size_t>(i)] = side;
        }
    };
    auto issue = [&](int count) {
        while (count > 0) {
            const int r0 = plan.take_gpu(std::min(count, unit));
            const int c = plan.lo() - r0;
            if (c <= 0) break;
            claim(r0, r0 + c, 2);
            gpu_free = std::max(gpu_free, now) + chunk_fixed + c * gpu_per;
            chunk_end.push_back(gpu_free);
            ledger.issued(c);
            count -= c;
        }
    };
    long long cpu_done = 0;
    auto cpu = [&](wb::hybrid::RowRange r) {
        claim(r.begin, r.end, 1);
        now += (r.end - r.begin) * cpu_per;
        cpu_done += r.end - r.begin;
    };
    issue(plan.initial_gpu());
    cpu(plan.take_cpu(plan.piece()));
    while (plan.remaining() > 0) {
        std::size_t upto = ledger.done();
        while (upto < ledger.chunks() && chunk_end[upto] <= now) ++upto;
        if (upto > ledger.done()) ledger.finished(upto, chunk_end[upto - 1] - chunk_end[0]);
        const BalancePlanner::Decision d = plan.decide(now / static_cast<double>(cpu_done), ledger.ms_per_output(), ledger.queued());
        REQUIRE(d.gpu + d.cpu >= 1);  // every poll claims something
        issue(d.gpu);
        cpu(plan.take_cpu(d.cpu));
    }
    s.cpu_end = now;
    s.gpu_end = gpu_free;
    s.total_ms = std::max(now, gpu_free);
    for (int i : s.owner) {
        REQUIRE(i != 0);  // every output claimed
        s.gpu_outputs += i == 2;
    }
    return s;
}

/// Both sides at once on a perfectly divisible call: n c g / (c + g), c and g the sides' ms per output.
double balanced_ms(int n, double cpu_per, double gpu_per) { return n * cpu_per * gpu_per / (cpu_per + gpu_per); }
/// The fixed share g: whichever side ends last.
double fixed_ms(int n, int g, double cpu_per, double gpu_per) { return std::max((n - g) * cpu_per, g * gpu_per); }

}  // namespace

TEST_CASE("BalancePlanner: the sides claim every output once and meet", "[cpu][split]") {
    for (int n : {2, 3, 17, 1000, 4099})
        for (int g : {1, n / 3 + 1, n - 1})
            for (int unit : {1, 7, std::max(1, g / 4), n})
                for (int pieces : {1, 2, 8}) {
                    if (g < 1 || g >= n) continue;
                    for (double cpu_per : {0.5, 1.0, 3.0}) {
                        INFO("n " << n << " g " << g << " unit " << unit << " pieces " << pieces << " cpu_per " << cpu_per);
                        const Sim s = simulate(n, g, unit, pieces, cpu_per, 1.0);
                        CHECK(s.total_ms > 0);
                        // The GPU's outputs are a prefix: no CPU output below a GPU one.
                        const auto first_cpu = std::find(s.owner.begin(), s.owner.end(), 1);
                        CHECK(std::count(first_cpu, s.owner.end(), 2) == 0);
                    }
                }
}

TEST_CASE("BalancePlanner: a side off its plan costs the granularity, not the miss", "[cpu][split]") {
    // The plan: a CPU modelled at 2 ms per output and a GPU at 1 ms, so g = n 2 / 3. The CPU then
    // runs at 1 ms (twice as fast as modelled: today's GEMV float 4096 row ran 1.85x) or 4 ms
    // (twice as slow), the GPU as planned; 8 pieces, chunks of an eighth of the GPU's plan.
    const int n = 24000, g = 16000, unit = g / 8, pieces = 8;
    for (double cpu_per : {1.0, 2.0, 4.0}) {
        INFO("CPU at " << cpu_per << " ms per output (planned 2)");
        const Sim s = simulate(n, g, unit, pieces, cpu_per, 1.0);
        const double best = balanced_ms(n, cpu_per, 1.0), fixed = fixed_ms(n, g, cpu_per, 1.0);
        // Within a piece plus a chunk of the balanced time; for a CPU off its plan, well under the fixed share.
        CHECK(s.total_ms <= best + (n - g) / pieces * cpu_per + unit * 1.0);
        if (cpu_per != 2.0) CHECK(s.total_ms < best + 0.5 * (fixed - best));
        CHECK(std::abs(s.cpu_end - s.gpu_end) <= (n - g) / pieces * cpu_per + unit * 1.0);
    }
    // A GPU slower than planned (each chunk paying a fixed cost the plan left out) moves the split
    // towards the CPU: the GPU ends with fewer outputs than planned.
    const Sim slow = simulate(n, g, unit, pieces, 2.0, 1.0, 600.0);
    CHECK(slow.gpu_outputs < g);
    CHECK(slow.total_ms < fixed_ms(n, g, 2.0, 1.0) + 8 * 600.0);
}

TEST_CASE("BalancePlanner: decisions", "[cpu][split]") {
    BalancePlanner p(1000, 600, 100, 4);  // piece 100, the planned ratio 400 / 600
    CHECK(p.piece() == 100);
    CHECK(p.initial_gpu() == 300);
    CHECK(BalancePlanner(1000, 600, 100, 1).initial_gpu() == 600);  // at most g
    // As planned (GPU 2/3 ms, CPU 1 ms per output), nothing queued: the GPU's part of the 1000
    // unclaimed is 600, of which it takes two pieces' worth now, 2 100 1 / (2/3) = 300.
    BalancePlanner::Decision d = p.decide(1.0, 2.0 / 3.0, 0);
    CHECK(d.cpu == 100);
    CHECK(d.gpu == 300);
    // Enough queued: nothing issued now.
    d = p.decide(1.0, 2.0 / 3.0, 400);
    CHECK(d.gpu == 0);
    CHECK(d.cpu == 100);
    // The GPU's rate unknown: the planned ratio stands in (the same as above).
    CHECK(p.decide(1.0, 0, 0).gpu == 300);
    // The last poll: the CPU's rest within a piece and a half takes it all, the GPU the rest.
    BalancePlanner q(1000, 600, 100, 4);
    q.take_gpu(800);
    q.take_cpu(50);  // 150 left
    d = q.decide(1.0, 2.0 / 3.0, 0);  // x = 150 (1) / (5/3) = 90, rest 60 <= 150
    CHECK(d.gpu == 90);
    CHECK(d.cpu == 60);
    // ... and where the GPU's part is under an eighth of its unit, the CPU takes everything.
    d = q.decide(1.0, 2.0 / 3.0, 200);  // x = (150 - 133) / (5/3) = 10 < 12
    CHECK(d.gpu == 0);
    CHECK(d.cpu == 150);
    // take_* clip to the unclaimed outputs.
    CHECK(q.take_gpu(1000) == 800);
    CHECK(q.remaining() == 0);
    const wb::hybrid::RowRange none = q.take_cpu(5);
    CHECK(none.begin == none.end);
}

TEST_CASE("balance_pieces: one piece per quarter millisecond, 1 to 8", "[cpu][split]") {
    using wb::hybrid::balance_pieces;
    CHECK(balance_pieces(0.1) == 1);
    CHECK(balance_pieces(0.5) == 2);
    CHECK(balance_pieces(1.99) == 7);
    CHECK(balance_pieces(100.0) == wb::hybrid::kBalanceMaxPieces);
    CHECK(balance_pieces(-1.0) == 1);
    CHECK(balance_pieces(std::nan("")) == 1);
}

TEST_CASE("balance_pieces with a floor on a piece; a GEMM piece's fewest columns", "[cpu][split]") {
    using wb::hybrid::balance_pieces;
    CHECK(balance_pieces(100.0, 118, 440) == 1);   // a GEMM's 118 CPU columns: one piece, the fixed share
    CHECK(balance_pieces(100.0, 2000, 440) == 4);  // 2000 / 440
    CHECK(balance_pieces(1.0, 2000, 440) == 4);    // the time's bound
    CHECK(balance_pieces(100.0, 4096, 1) == wb::hybrid::kBalanceMaxPieces);
    CHECK(balance_pieces(100.0, 0, 0) == 1);
    // 10 e F / B: float on a host of 1100 GFLOP/s and 100 GB/s, double at 630 GFLOP/s
    CHECK(wb::hybrid::gemm_min_piece_cols(4, 1100, 100) == 440);
    CHECK(wb::hybrid::gemm_min_piece_cols(8, 630, 100) == 504);
    CHECK(wb::hybrid::gemm_min_piece_cols(8, 0, 100) == 1);
    CHECK(wb::hybrid::gemm_min_piece_cols(4, 1100, std::nan("")) == 1);
}

TEST_CASE("BalancePlanner: bad arguments name the argument and the rule", "[cpu][split]") {
    CHECK_THROWS_WITH(BalancePlanner(1, 1, 1, 1), "hybrid::BalancePlanner: n (1) must be >= 2");
    CHECK_THROWS_WITH(BalancePlanner(10, 10, 1, 1), "hybrid::BalancePlanner: g (10) must be in [1, n - 1] ([1, 9])");
    CHECK_THROWS_WITH(BalancePlanner(10, 0, 1, 1), "hybrid::BalancePlanner: g (0) must be in [1, n - 1] ([1, 9])");
    CHECK_THROWS_WITH(BalancePlanner(10, 5, 0, 1), "hybrid::BalancePlanner: unit (0) must be >= 1");
    CHECK_THROWS_WITH(BalancePlanner(10, 5, 1, 0), "hybrid::BalancePlanner: pieces (0) must be >= 1");
    CHECK_THROWS_WITH(BalancePlanner(10, 5, 1, 2, 0.0), Catch::Matchers::Contains("first_issue (0.000000) must be finite and > 0"));
    CHECK_THROWS_WITH(BalancePlanner(10, 5, 1, 2, std::nan("")), Catch::Matchers::Contains("first_issue (nan) must be finite"));
    CHECK_THROWS_WITH(wb::hybrid::set_first_issue_pieces(-1.0), Catch::Matchers::Contains("pieces (-1.000000) must be finite and >= 0"));
}

TEST_CASE("BalancePlanner: the first issue's size, and its A/B setting", "[cpu][split]") {
    // g = 1073 over 2 pieces (run e's GEMV double 4096). Chunks of a quarter of g (269): two
    // pieces' worth is the whole plan; one and a half, 806 rounded up to whole chunks, leaves room
    // both ways.
    CHECK(BalancePlanner(4096, 1073, 269, 2).initial_gpu() == 1073);
    CHECK(BalancePlanner(4096, 1073, 269, 2, 1.5).initial_gpu() == 807);
    CHECK(BalancePlanner(4096, 1073, 269, 8, 1.5).initial_gpu() == 269);  // 1.5 x 135 = 203: one chunk
    // Chapter 7 gives a balanced call chunks of at most a piece's worth, ceil(g / max(K, pieces)):
    // with K <= pieces a chunk is exactly a piece's worth, and any first issue in (1, 2] pieces is
    // two chunks (run e's row had K = 1: chunks of 537). The first-issue A/B of session 43 was an
    // A/A at those rows.
    CHECK(BalancePlanner(4096, 1073, 537, 2, 1.5).initial_gpu() == BalancePlanner(4096, 1073, 537, 2).initial_gpu());
    CHECK(BalancePlanner(8192, 2376, 476, 5, 1.5).initial_gpu() == BalancePlanner(8192, 2376, 476, 5).initial_gpu());
    CHECK(wb::hybrid::first_issue_pieces() == wb::hybrid::kFirstIssuePieces);
    {
        wb::hybrid::ScopedFirstIssue ab(1.5);
        CHECK(wb::hybrid::first_issue_pieces() == 1.5);
        {
            wb::hybrid::ScopedFirstIssue inner(3.0);
            CHECK(wb::hybrid::first_issue_pieces() == 3.0);
        }
        CHECK(wb::hybrid::first_issue_pieces() == 1.5);
    }
    CHECK(wb::hybrid::first_issue_pieces() == wb::hybrid::kFirstIssuePieces);
    CHECK(wb::hybrid::set_first_issue_pieces(0) == 0);  // the scopes restored the setting itself: none
}

TEST_CASE("ChunkLedger: what is queued, and the pipeline's rate from the first chunk's end", "[cpu][split]") {
    wb::hybrid::ChunkLedger l;
    for (int c : {100, 200, 300, 400}) l.issued(c);
    CHECK(l.queued() == Approx(1000 - 50));  // the oldest running chunk counted half done
    CHECK(l.ms_per_output() == 0);           // nothing finished
    l.finished(1, 0.0);
    CHECK(l.ms_per_output() == 0);  // one chunk: its latency, not the pipeline's rate
    l.finished(3, 70.0);            // a poll that finds two more done: chunk 2 ended 70 ms after chunk 0
    CHECK(l.done() == 3);
    CHECK(l.done_outputs() == 600);
    CHECK(l.queued() == Approx(400 - 200));
    CHECK(l.ms_per_output() == Approx(70.0 / 500));
    l.finished(4, 110.0);
    CHECK(l.queued() == 0);
    CHECK(l.ms_per_output() == Approx(110.0 / 900));
    CHECK_THROWS_WITH(l.finished(4, 120.0), Catch::Matchers::Contains("upto (4) must be in (done, chunks] = (4, 4]"));
    CHECK_THROWS_WITH(l.issued(0), "hybrid::ChunkLedger::issued: outputs (0) must be >= 1");
    wb::hybrid::ChunkLedger m;
    m.issued(10);
    CHECK_THROWS_WITH(m.finished(2, 1.0), Catch::Matchers::Contains("upto (2) must be in (done, chunks] = (0, 1]"));
    CHECK_THROWS_WITH(m.finished(1, -1.0), Catch::Matchers::Contains("ms_after_first (-1.000000) must be finite and >= 0"));
}
