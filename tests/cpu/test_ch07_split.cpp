// CPU tests of chapter 7 (chapters/ch07_split): its command line (split_options: the words every
// chapter accepts, the usage errors that exit with 2 before anything is measured), the host memory
// a measured case needs (the need that decides whether a case is skipped), the iterations its CG
// column times (the model's solve, whatever n), CG's choice of the hybrid (kMinHybridGain), and the terms
// measured on a GPU: each class's all-GPU path, the pipeline, the residual, the shared host memory.
#include "catch.hpp"
#include "ch07_cli.hpp"

#include "cpu_peers.hpp"
#include "device_profile.hpp"
#include "peer_rates.hpp"
#include "reference_cg.hpp"
#include "split_cases.hpp"
#include "split_measure.hpp"
#include "split_options.hpp"
#include "split_summary.hpp"

#include "model/cpu.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

int parse(std::initializer_list<std::string> args, wb::ch07::SplitOptions& opt) { return wb::test::parse_ch07(args, opt); }
int parse(std::initializer_list<std::string> args) { return wb::test::parse_ch07(args); }

using Names = std::vector<std::string>;

}  // namespace

TEST_CASE("chapter 7 CLI: defaults are every op and both precisions", "[cpu][ch07][cli]") {
    wb::ch07::SplitOptions opt;
    REQUIRE(parse({}, opt) == -1);
    CHECK(opt.ops == wb::ch07::split_ops());
    CHECK(opt.precisions == Names{"float", "double"});
    CHECK(opt.sizes.empty());
    CHECK(opt.chunks == 4);
    CHECK(!opt.chunks_given);  // each hybrid's depth derived per call
    CHECK_FALSE(opt.price_issue);  // the issue's term off until an A/B judges it
    CHECK_FALSE(opt.symv_own_arrays);  // SYMV's grid on the shared array until an A/B judges it
    CHECK_FALSE(opt.measured_depths);  // the depths from the model alone (its A/B: session 47)
    wb::ch07::SplitOptions measured_depths;
    REQUIRE(parse({"--measured-depths"}, measured_depths) == -1);
    CHECK(measured_depths.measured_depths);
    CHECK(opt.cg_iterations == 100);
    CHECK(opt.ld_pad == 0);  // the rows' matrices are n x n with leading dimension n
    wb::ch07::SplitOptions padded;
    REQUIRE(parse({"--ld-pad", "16"}, padded) == -1);
    CHECK(padded.ld_pad == 16);
    CHECK(opt.filter_sizes == std::vector<int>{3, 9});
    CHECK_FALSE(opt.quick);
    CHECK_FALSE(opt.full);
}

TEST_CASE("chapter 7 CLI: --op all and --precision both, as in every chapter; each name once; ops in the table's order",
          "[cpu][ch07][cli]") {
    wb::ch07::SplitOptions opt;
    REQUIRE(parse({"--op", "all", "--precision", "both"}, opt) == -1);
    CHECK(opt.ops == wb::ch07::split_ops());
    CHECK(opt.precisions == Names{"float", "double"});

    wb::ch07::SplitOptions twice;
    REQUIRE(parse({"--op", "symv,gemv,symv", "--precision", "double,float,double"}, twice) == -1);
    CHECK(twice.ops == Names{"gemv", "symv"});  // the table's order: SYMV's group before CG's (split_cpu_again.hpp)
    wb::ch07::SplitOptions reversed;
    REQUIRE(parse({"--op", "cg,conv2d,symv,gemm,gemv"}, reversed) == -1);
    CHECK(reversed.ops == wb::ch07::split_ops());
    CHECK(twice.precisions == Names{"double", "float"});

    wb::ch07::SplitOptions one;
    REQUIRE(parse({"--op", "cg", "--precision", "float", "--sizes", "64,128", "--chunks", "8", "--fs", "5,1,1025"}, one) ==
            -1);
    CHECK(one.filter_sizes == std::vector<int>{5, 1, 1025});
    CHECK(one.ops == Names{"cg"});
    CHECK(one.precisions == Names{"float"});
    CHECK(one.sizes == std::vector<int>{64, 128});
    CHECK(one.chunks == 8);

    // Sizes each once and ascending (the table's order), filter sizes each once in the order given.
    wb::ch07::SplitOptions unsorted;
    REQUIRE(parse({"--sizes", "4096,64,1000,64", "--fs", "9,3,9"}, unsorted) == -1);
    CHECK(unsorted.sizes == std::vector<int>{64, 1000, 4096});
    CHECK(unsorted.filter_sizes == std::vector<int>{9, 3});
    CHECK(one.chunks_given);  // every hybrid at that depth

    // The options every chapter shares, so that ./workbook run -- OPTIONS reaches chapter 7 too.
    wb::ch07::SplitOptions shared;
    REQUIRE(parse({"--device", "1", "--full", "--trans", "N"}, shared) == -1);
    CHECK(shared.device == 1);
    CHECK(shared.full);

    wb::ch07::SplitOptions priced;
    REQUIRE(parse({"--price-issue", "--quick"}, priced) == -1);
    CHECK(priced.price_issue);
    CHECK(parse({"--price-issue=maybe"}) == 2);  // a flag takes at most a true/false word

    wb::ch07::SplitOptions own;
    REQUIRE(parse({"--symv-own-arrays"}, own) == -1);
    CHECK(own.symv_own_arrays);
    CHECK_FALSE(own.price_issue);
}

TEST_CASE("chapter 7 CLI: usage errors exit with 2, --help with 0", "[cpu][ch07][cli]") {
    CHECK(parse({"--help"}) == 0);
    CHECK(parse({"--op", "foo"}) == 2);
    CHECK(parse({"--op", "gemv,foo"}) == 2);
    CHECK(parse({"--precision", "half"}) == 2);
    CHECK(parse({"--sizes", "0"}) == 2);
    CHECK(parse({"--sizes", "-1"}) == 2);
    CHECK(parse({"--sizes", "65537"}) == 2);
    CHECK(parse({"--sizes", "abc"}) == 2);
    CHECK(parse({"--chunks", "0"}) == 2);
    CHECK(parse({"--fs", "4"}) == 2);     // even
    CHECK(parse({"--fs", "1027"}) == 2);  // above kConv2dMaxFilter
    CHECK(parse({"--fs", "-3"}) == 2);
    CHECK(parse({"--fs", "3x"}) == 2);
    CHECK(parse({"--cg-iterations", "0"}) == 2);
    CHECK(parse({"--ld-pad", "-1"}) == 2);
    CHECK(parse({"--ld-pad", "4097"}) == 2);
    CHECK(parse({"--device-preset", "foo"}) == 2);
    CHECK(parse({"--bogus"}) == 2);
    CHECK(parse({"--device", "-1"}) == 2);
    CHECK(parse({"--quick", "--full"}) == 2);
    CHECK(parse({"--trans", "T"}) == 2);  // no call of this chapter is op T
    // The A/Bs of the balanced hybrid: one at a time, a first issue in [0.25, 8] pieces.
    CHECK(parse({"--first-issue-ab", "0.1"}) == 2);
    CHECK(parse({"--first-issue-ab", "9"}) == 2);
    CHECK(parse({"--first-issue-ab", "1.5", "--balance-ab"}) == 2);
    CHECK(parse({"--first-issue-ab", "1.5", "--fixed-share"}) == 2);
    CHECK(parse({"--balance-ab", "--fixed-share"}) == 2);
    CHECK(parse({"--depth-ab", "0.01"}) == 2);
    CHECK(parse({"--depth-ab", "0.5", "--balance-ab"}) == 2);
    CHECK(parse({"--depth-ab", "0.5", "--first-issue-ab", "2"}) == 2);
    wb::ch07::SplitOptions depth;
    CHECK(parse({"--depth-ab", "0.5"}, depth) == -1);
    CHECK(depth.depth_ab == 0.5);
    wb::ch07::SplitOptions ab;
    CHECK(parse({"--first-issue-ab", "2", "--fixed-order"}, ab) == -1);
    CHECK(ab.first_issue_ab == 2.0);
    CHECK(ab.fixed_order);
    // --csv is checked before the run: a table measured for minutes is never lost to a bad path.
    CHECK(parse({"--csv", "/nonexistent-folder-of-the-workbook/x.csv"}) == 2);
    CHECK(parse({"--csv", "/"}) == 2);
}

TEST_CASE("chapter 7: the host bytes a measured case needs", "[cpu][ch07]") {
    using wb::ch07::host_bytes_needed;
    using wb::ch07::Case;
    const double n = 1000, nn = n * n;
    CHECK(host_bytes_needed(Case{"gemv", 1000, 4}) == 4 * (nn + 2 * n));
    CHECK(host_bytes_needed(Case{"symv", 1000, 8}) == 8 * (nn + 2 * n));
    CHECK(host_bytes_needed(Case{"gemm", 1000, 8}) == 8 * 3 * nn);
    CHECK(host_bytes_needed(Case{"conv2d", 1000, 4, 9}) == 4 * (2 * nn + 81));
    CHECK(host_bytes_needed(Case{"cg", 1000, 8}) == 8 * (nn + 8 * n));
    // The largest size the option takes: 96 GiB for a double GEMM, more than a build machine holds.
    CHECK(host_bytes_needed(Case{"gemm", 65536, 8}) == 8.0 * 3 * 65536.0 * 65536.0);
    CHECK_THROWS_AS(host_bytes_needed(Case{"gemv2", 1000, 4}), std::invalid_argument);
    // With --ld-pad P each matrix (image) is n columns (rows) of n + P elements.
    CHECK(host_bytes_needed(Case{"gemv", 1000, 4, 0, 16}) == 4 * (n * (n + 16) + 2 * n));
    CHECK(host_bytes_needed(Case{"gemm", 1000, 8, 0, 3}) == 8 * 3 * n * (n + 3));
    CHECK(host_bytes_needed(Case{"conv2d", 1000, 4, 9, 5}) == 4 * (2 * n * (n + 5) + 81));
}

TEST_CASE("chapter 7: the size sets: --full is the issue's ranges, the default every other size", "[cpu][ch07]") {
    using wb::ch07::default_sizes;
    using wb::ch07::SizeSet;
    CHECK(default_sizes("gemv", SizeSet::full) == std::vector<int>{64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384});
    CHECK(default_sizes("symv", SizeSet::full) == default_sizes("gemv", SizeSet::full));
    CHECK(default_sizes("gemm", SizeSet::full) == std::vector<int>{16, 32, 64, 128, 256, 512, 1024, 2048, 4096});
    CHECK(default_sizes("conv2d", SizeSet::full) == std::vector<int>{64, 128, 256, 512, 1024, 2048, 4096, 8192});
    CHECK(default_sizes("cg", SizeSet::full) == std::vector<int>{256, 512, 1024, 2048, 4096, 8192, 16384});
    // The default keeps both ends of each range, so it spans the same crossover.
    CHECK(default_sizes("gemv", SizeSet::normal) == std::vector<int>{64, 256, 1024, 4096, 16384});
    CHECK(default_sizes("gemm", SizeSet::normal) == std::vector<int>{16, 64, 256, 1024, 4096});
    CHECK(default_sizes("conv2d", SizeSet::normal) == std::vector<int>{64, 256, 1024, 4096, 8192});
    CHECK(default_sizes("cg", SizeSet::normal) == std::vector<int>{256, 1024, 4096, 16384});
    for (const auto& op : wb::ch07::split_ops()) CHECK(default_sizes(op, SizeSet::quick).size() == 2);
    CHECK(wb::ch07::default_filter_sizes() == std::vector<int>{3, 9});
    CHECK_THROWS_AS(default_sizes("gemv2", SizeSet::full), std::invalid_argument);
}

TEST_CASE("chapter 7: the CG it times does every iteration of the model's solve", "[cpu][ch07][split]") {
    if (!wb::cpu::have_cblas()) return;  // cpu::cg throws without CBLAS (test_cpu_peers checks that)
    // With tol 0 a small system still stops early, at an exactly zero residual (n = 8: 35 float
    // iterations of 100); cpu_cg_iterations restarts it until the model's iterations are done.
    const int iters = 100;
    for (int n : {1, 2, 3, 8, 16, 256}) {
        INFO("n " << n);
        std::vector<float> Af(static_cast<std::size_t>(n) * n);
        std::vector<double> Ad(Af.size());
        wb::ref::spd_matrix(n, 100.0, 77, Af.data(), n);
        wb::ref::spd_matrix(n, 100.0, 77, Ad.data(), n);
        std::vector<float> bf(static_cast<std::size_t>(n), 1.0f), xf(bf.size());
        std::vector<double> bd(bf.size(), 1.0), xd(bf.size());
        CHECK(wb::ch07::cpu_cg_iterations(n, Af.data(), n, bf.data(), xf.data(), iters) == iters);
        CHECK(wb::ch07::cpu_cg_iterations(n, Ad.data(), n, bd.data(), xd.data(), iters) == iters);
        if (n == 8) {  // the early stop the restart is there for
            wb::CgResult r;
            std::fill(xf.begin(), xf.end(), 0.0f);
            wb::cpu::cg(wb::CgArgs<float>{n, Af.data(), n, bf.data(), xf.data(), 0.0, iters, &r});
            CHECK(r.iterations < iters);
        }
    }
}

TEST_CASE("chapter 7: CG's hybrid (White §5.2) is chosen only with kMinHybridGain, as every op's", "[cpu][ch07][split]") {
    // The §5.2 split beats the all-GPU solve only where a copy of p and q costs less than the GPU's
    // vector kernels' launches: a grid of copy set-up times c1 (below the 10 us of the default
    // link) and of hosts, on the H200 preset. Every hybrid choice must be at least kMinHybridGain
    // faster than the better single side, and the grid must reach hybrids inside that margin too.
    const double inf = std::numeric_limits<double>::infinity();
    wb::ch07::Machines m;
    m.gpu = wb::device_preset("h200");
    int chosen = 0, near = 0;
    for (double c1_ms : {0.0, 0.001, 0.002, 0.003, 0.004, 0.005, 0.006})
        for (double bw = 10; bw < 2000; bw *= 1.05)
            for (int n : {256, 1024, 4096})
                for (std::size_t elem : {std::size_t{4}, std::size_t{8}}) {
                    m.links.h2d = wb::TransferModel(55.5, {{0, inf, 0, c1_ms, 0}});
                    m.links.d2h = wb::TransferModel(55.4, {{0, inf, 0, c1_ms, 0}});
                    m.cpu.bandwidth_gbs = bw;
                    m.cpu.fp32_gflops = 20 * bw;
                    m.cpu.fp64_gflops = 10 * bw;
                    const auto p = wb::ch07::predict_case(wb::ch07::Case{"cg", n, elem}, m).split;
                    const double best_single = std::min(p.cpu_ms, p.gpu_ms);
                    if (p.hybrid_ms < best_single && p.hybrid_ms > (1 - wb::split::kMinHybridGain) * best_single)
                        ++near;
                    if (p.choice != wb::split::Where::Hybrid) continue;
                    ++chosen;
                    INFO("c1 " << c1_ms << " ms, bandwidth " << bw << " n " << n << " elem " << elem);
                    CHECK(p.hybrid_ms <= (1 - wb::split::kMinHybridGain) * best_single);
                }
    CHECK(chosen > 0);
    CHECK(near > 0);
}

namespace {

/// A host of 16 threads and 100 GB/s (an LLC of 64 MiB), the H200 preset and its assumed link.
wb::ch07::Machines plain_host() {
    wb::ch07::Machines m;
    m.gpu = wb::device_preset("h200");
    m.links = wb::ch07::h200_pinned_links();
    m.cpu = wb::model::cpu_machine("t", 16, 100, 1000, 500);
    m.cpu.llc_bytes = 64 * 1024.0 * 1024.0;
    return m;
}

/// A host whose read bandwidth is 400 GB/s while the working set fits its 64 MiB LLC and 50 GB/s
/// from 256 MiB on, with GEMV's class reaching 60% of it in the cache (32 MiB) and 90% beyond
/// (1 GiB).
wb::ch07::Machines cached_host() {
    wb::ch07::Machines m = plain_host();
    m.cpu = wb::model::cpu_machine("test", 16, 50, 600, 300);
    const double MiB = 1024.0 * 1024.0;
    m.cpu.bandwidth = {{1 * MiB, 400}, {64 * MiB, 400}, {256 * MiB, 50}};
    m.cpu.peers[wb::model::peer_key("gemv", 4)] = {0.002, {{32 * MiB, 0.6}, {1024 * MiB, 0.9}}};
    return m;
}

}  // namespace

TEST_CASE("chapter 7: the CPU model reads from the level the op's working set lives in", "[cpu][ch07][split]") {
    const wb::ch07::Machines m = cached_host();
    const double MiB = 1024.0 * 1024.0;
    // n = 2048 float: 16 MiB, in the LLC: 400 GB/s at the class's 60%, plus its t0.
    const auto w2 = wb::model::cpu_work_gemv(false, 2048, 2048, 4, false);
    CHECK(wb::ch07::predict_case({"gemv", 2048, 4}, m).cpu_model_ms == Approx(0.002 + w2.bytes / 400e6 / 0.6));
    // n = 8192 float: 256 MiB, beyond it: 50 GB/s; the efficiency interpolated in log(ws) between
    // its two points (32 MiB and 1 GiB: 256 MiB lies 3/5 of the way).
    const auto w8 = wb::model::cpu_work_gemv(false, 8192, 8192, 4, false);
    const double e8 = 0.6 + (0.9 - 0.6) * std::log(w8.bytes / (32 * MiB)) / std::log(32.0);
    CHECK(e8 == Approx(0.78).epsilon(0.001));
    CHECK(wb::ch07::predict_case({"gemv", 8192, 4}, m).cpu_model_ms == Approx(0.002 + w8.bytes / 50e6 / e8));
    // A class not measured is the roofline: SYMV at n = 2048 in the cache.
    const auto ws = wb::model::cpu_work_symv(2048, 4);
    CHECK(wb::ch07::predict_case({"symv", 2048, 4}, m).cpu_model_ms == Approx(ws.bytes / 400e6));
}

TEST_CASE("chapter 7: every op's hybrid share ends both sides together", "[cpu][ch07][split]") {
    // Shares strictly inside (0, 1) are balanced: both sides' times meet, so the hybrid's predicted
    // time is below the CPU's whole time, and the GPU's rows are f* n rounded. (It need not be
    // below the all-GPU time: the hybrid's GPU side pays its chunks' halos and set-ups; the model
    // then does not choose it.) A slow host (5 GB/s, 50 GFLOP/s) gives every op some rows on each
    // side.
    wb::ch07::Machines m;
    m.gpu = wb::device_preset("h200");
    m.links = wb::ch07::h200_pinned_links();
    m.cpu = wb::model::cpu_machine("slow", 4, 5, 50, 25);
    int split_rows = 0;
    for (const char* op : {"gemv", "gemm", "symv", "conv2d"})
        for (std::size_t elem : {std::size_t{4}, std::size_t{8}})
            for (int n : {256, 1023, 4096}) {
                INFO(op << " elem " << elem << " n " << n);
                const auto p = wb::ch07::predict_case({op, n, elem, std::string(op) == "conv2d" ? 9 : 0}, m);
                const double f = p.split.gpu_share;
                REQUIRE(f >= 0);
                REQUIRE(f <= 1);
                CHECK(p.gpu_part == wb::split::gpu_rows(n, f, 1));
                if (f <= 0 || f >= 1) continue;
                ++split_rows;
                CHECK(p.split.hybrid_ms < p.split.cpu_ms);
                if (p.split.choice == wb::split::Where::Hybrid)
                    CHECK(p.split.hybrid_ms <= (1 - wb::split::kMinHybridGain) * std::min(p.split.cpu_ms, p.split.gpu_ms));
            }
    CHECK(split_rows >= 12);
}

TEST_CASE("chapter 7: the convolution's CPU share beside the GPU runs on one thread fewer", "[cpu][ch07][split]") {
    // hybrid_conv_threads = threads - 1 (a core left to the thread that waits for the GPU) makes the convolution's
    // CPU share threads / (threads - 1) slower at every share inside (0, 1): the balance gives the
    // GPU more rows; the all-CPU time and the other ops do not change.
    wb::ch07::Machines m;
    m.gpu = wb::device_preset("h200");
    m.links = wb::ch07::h200_pinned_links();
    m.cpu = wb::model::cpu_machine("slow", 4, 5, 50, 25);
    wb::ch07::Machines fewer = m;
    fewer.hybrid_conv_threads = 3;
    const wb::ch07::Case conv{"conv2d", 1023, 4, 9}, gemv{"gemv", 1023, 4, 0};
    const auto a = wb::ch07::predict_case(conv, m), b = wb::ch07::predict_case(conv, fewer);
    REQUIRE(a.split.gpu_share > 0);
    REQUIRE(a.split.gpu_share < 1);
    CHECK(b.split.cpu_ms == a.split.cpu_ms);
    CHECK(b.split.gpu_share > a.split.gpu_share);
    CHECK(b.split.hybrid_ms > a.split.hybrid_ms);
    const double f = a.split.gpu_share;
    CHECK(wb::ch07::hybrid_model_ms(conv, fewer, f) >= wb::ch07::hybrid_model_ms(conv, m, f));
    const auto g1 = wb::ch07::predict_case(gemv, m), g2 = wb::ch07::predict_case(gemv, fewer);
    CHECK(g2.split.hybrid_ms == g1.split.hybrid_ms);
    CHECK(g2.split.gpu_share == g1.split.gpu_share);
}

TEST_CASE("chapter 7: the GEMM's threaded CPU share beside the GPU is predicted by its own class", "[cpu][ch07][split]") {
    // A "gemm share" class (the skinny n x n/16 x n product) at half the square class's e makes
    // the hybrid's CPU side slower at the same share, so the balance gives the GPU more columns;
    // the all-CPU column (the square call) does not move. Without the class, the square one. A
    // fast host (200 GB/s, 5000 GFLOP/s) keeps a few hundred columns of C on the CPU.
    wb::ch07::Machines m;
    m.gpu = wb::device_preset("h200");
    m.links = wb::ch07::h200_pinned_links();
    m.cpu = wb::model::cpu_machine("fast", 64, 200, 5000, 2500);
    const std::string square = wb::model::peer_key("gemm", 4), share = wb::model::peer_key(wb::cpu::kGemmShareClass, 4);
    wb::model::PeerRate r;
    r.fixed_ms = 0.01;
    r.efficiency = {{1e3, 0.8}, {1e9, 0.8}};
    m.cpu.peers[square] = r;
    wb::ch07::Machines skinny = m;
    r.efficiency = {{1e3, 0.4}, {1e9, 0.4}};
    skinny.cpu.peers[share] = r;
    const wb::ch07::Case c{"gemm", 1024, 4, 0};
    const auto a = wb::ch07::predict_case(c, m), b = wb::ch07::predict_case(c, skinny);
    REQUIRE(a.split.gpu_share > 0);
    REQUIRE(a.split.gpu_share < 0.95);  // a threaded share: n r n > 262144
    CHECK(b.split.cpu_ms == a.split.cpu_ms);
    CHECK(b.split.gpu_share > a.split.gpu_share);
    const double f = a.split.gpu_share;
    CHECK(wb::ch07::hybrid_model_ms(c, skinny, f) > wb::ch07::hybrid_model_ms(c, m, f));
}

TEST_CASE("chapter 7: SYMV's CPU share is the SYMV of its diagonal block; before, both of its products", "[cpu][ch07][split]") {
    // The CPU's rows [g, n) are a SYMV of n - g; the GPU adds the block beside them, which its
    // chunks hold already (hybrid_symv.hpp). A run from before that change priced the share as
    // that SYMV and a GEMV of (n - g) x g: more than the SYMV alone, so at any share its CPU side
    // cost more and its balanced share gave the GPU more rows.
    wb::ch07::Machines m;
    m.gpu = wb::device_preset("h200");
    m.links = wb::ch07::h200_pinned_links();
    m.cpu = wb::model::cpu_machine("t", 8, 40, 400, 200);
    wb::ch07::Machines before = m;
    before.symv_share_one_call = false;
    for (const wb::ch07::Machines* mm : {&m, &before}) {
        const bool one = mm->symv_share_one_call;
        INFO("one call " << one);
        const auto p = wb::ch07::predict_case({"symv", 4096, 4}, *mm);
        REQUIRE(p.split.gpu_share > 0);
        REQUIRE(p.split.gpu_share < 1);
        const int r = 4096 - p.gpu_part, g = p.gpu_part;
        const double cpu_side =
            wb::model::predict_cpu_ms(mm->cpu, wb::model::cpu_work_symv(r, 4), 4) +
            (one ? 0.0 : wb::model::predict_cpu_ms(mm->cpu, wb::model::cpu_work_gemv(false, r, g, 4, false), 4));
        // the predicted hybrid time is the balanced time of both sides (to one row's worth)
        CHECK(p.split.hybrid_ms == Approx(cpu_side).epsilon(0.01));
    }
    const auto now = wb::ch07::predict_case({"symv", 4096, 4}, m), then = wb::ch07::predict_case({"symv", 4096, 4}, before);
    CHECK(now.split.gpu_share < then.split.gpu_share);
    CHECK(now.split.hybrid_ms < then.split.hybrid_ms);
    CHECK(now.cpu_model_ms == Approx(then.cpu_model_ms));  // the CPU alone is one SYMV either way
}

namespace {

wb::ch07::RowResult row(int n, double cpu, double gpu, double hybrid, wb::split::Where choice, int gpu_part = 10) {
    wb::ch07::RowResult r;
    r.c = {"gemv", n, 4};
    r.m = {cpu, gpu, hybrid};
    r.p.split.choice = choice;
    r.p.gpu_part = gpu_part;
    r.p.split.cpu_ms = cpu;
    r.p.split.gpu_ms = gpu;
    r.p.split.hybrid_ms = hybrid;
    return r;
}

}  // namespace

TEST_CASE("chapter 7: the measured best, the hit within 5%, and the hybrid at a share of 0 or 1", "[cpu][ch07]") {
    using wb::split::Where;
    const auto a = row(64, 1.0, 2.0, 0.5, Where::Hybrid);
    CHECK(wb::ch07::measured_best(a) == "hybrid");
    CHECK(wb::ch07::choice_over_best(a) == Approx(1.0));
    CHECK(wb::ch07::is_hit(a));
    const auto b = row(64, 1.0, 1.04, 1.2, Where::Gpu);  // GPU chosen, 4% slower than the CPU: a hit
    CHECK(wb::ch07::measured_best(b) == "CPU");
    CHECK(wb::ch07::choice_over_best(b) == Approx(1.04));
    CHECK(wb::ch07::is_hit(b));
    const auto c = row(64, 1.0, 1.06, 1.2, Where::Gpu);  // 6% slower: a miss
    CHECK_FALSE(wb::ch07::is_hit(c));
    // The hybrid did not run (share 0): it is the CPU, never the best on its own, and a choice of
    // it costs the CPU's time.
    auto d = row(64, 1.0, 2.0, NAN, Where::Hybrid, 0);
    CHECK(wb::ch07::measured_best(d) == "CPU");
    CHECK(wb::ch07::hybrid_or_its_side(d) == 1.0);
    CHECK(wb::ch07::is_hit(d));
    auto e = row(64, 3.0, 2.0, NAN, Where::Cpu, 64);  // every row on the GPU: the hybrid is the GPU
    CHECK(wb::ch07::hybrid_or_its_side(e) == 2.0);
    CHECK(wb::ch07::choice_over_best(e) == Approx(1.5));
    // Nothing measured on the GPU: no verdict.
    const auto f = row(64, 1.0, NAN, NAN, Where::Cpu);
    CHECK(wb::ch07::measured_best(f) == "-");
    CHECK(std::isnan(wb::ch07::choice_over_best(f)));
    CHECK_FALSE(wb::ch07::is_hit(f));
    CHECK(wb::ch07::within(1.15, 1.0));
    CHECK_FALSE(wb::ch07::within(1.16, 1.0));
    CHECK(wb::ch07::within(0.86, 1.0));
    CHECK_FALSE(wb::ch07::within(1.0, NAN));
}

TEST_CASE("chapter 7: crossovers and the summary's counts", "[cpu][ch07]") {
    using wb::split::Where;
    // Sizes out of order on purpose: groups() sorts each group by n.
    std::vector<wb::ch07::RowResult> rows{row(1024, 2.0, 1.0, 0.8, Where::Hybrid), row(64, 1.0, 2.0, 1.5, Where::Cpu),
                                          row(256, 1.0, 1.2, 0.95, Where::Gpu)};
    rows.push_back(row(64, 1.0, 3.0, NAN, Where::Cpu));
    rows.back().c.elem = 8;  // a second group: every size on the CPU
    const auto g = wb::ch07::groups(rows);
    REQUIRE(g.size() == 2);
    REQUIRE(g[0].size() == 3);
    CHECK(g[0][0].c.n == 64);
    CHECK(g[0][2].c.n == 1024);
    CHECK(wb::ch07::crossover(g[0], true) == 256);   // the model leaves the CPU at 256
    CHECK(wb::ch07::crossover(g[0], false) == 256);  // measured: the hybrid (0.95) beats the CPU at 256
    CHECK(wb::ch07::crossover(g[1], true) == -1);
    CHECK(wb::ch07::crossover(g[1], false) == -1);
    const auto lines = wb::ch07::summary_lines(rows);
    // hits: 1024 (hybrid best), 64 (CPU best); 256 chose the GPU (1.2) over the hybrid (0.95): a miss
    CHECK(lines[0] == "model's choice is the measured best or within 5% of it: 3 of 4 (75%)");
    CHECK(lines[1] == "CPU model within 15% of the measured CPU: 4 of 4 (100%)");
    // the hybrid model (equal to the measurement here) predicted >= 15% below both sides at 1024
    // (0.8 against 1.0) and at 256 (0.95 against 1.0: 5%, not counted)
    CHECK(lines[4] == "hybrid predicted >= 15% faster than both sides: measured >= 10% faster: 1 of 1 (100%)");
    CHECK(lines[5] == "hybrid chosen by the model but slower than a single side: 0 of 1 (0%)");
    // The margin: 1024 predicts a gain of 20% (0.8 against 1.0), 256 one of 5% (0.95 against 1.0),
    // both at shares inside (0, 1); under the default margin of 15% only 256's is kept out.
    rows[0].p.split.gpu_share = 0.5;
    rows[2].p.split.gpu_share = 0.3;
    // A CPU timing whose median kept a 5% error (above the 3% that triggers a repeat).
    rows[1].m.cpu_error = 0.05;
    rows[0].m.cpu_error = 0.02;
    const auto more = wb::ch07::summary_lines(rows);
    REQUIRE(more.size() == 8);  // every row has both measured single sides: all judged
    CHECK(more[6] == "hybrid predicted faster, but by less than the run's margin (the single side chosen): 1 of 2 (50%)");
    CHECK(more[7] == "CPU timings whose median kept an error above 3%: 1 of 4 (25%)");
    // With a run's margin of 25%, 1024's gain is within it too.
    for (auto& r : rows) r.p.split.margin = 0.25;
    CHECK(wb::ch07::summary_lines(rows)[6] ==
          "hybrid predicted faster, but by less than the run's margin (the single side chosen): 2 of 2 (100%)");
}

TEST_CASE("chapter 7: a measured all-GPU path anchors the GPU column and the hybrid's GPU side", "[cpu][ch07][split]") {
    wb::ch07::Machines m = plain_host();
    m.derived_chunks = false;  // at the calibration's depth (the derived depth: its own test)
    const wb::ch07::Case c{"gemv", 4096, 4}, tiny{"gemv", 8, 4};
    const auto before = wb::ch07::predict_case(c, m);
    wb::ch07::GpuPath p;
    p.tiny_n = 8;
    p.mid_n = 4096;
    p.t0_ms = 0.025;
    p.t0_chunked_ms = 0.040;
    p.pipeline = 0.8;
    m.paths["gemv float"] = p;
    // The GPU column: the measured fixed cost plus the model's growth from the tiny size to n.
    const auto pn = wb::ch07::gpu_side_parts(c, m), pt = wb::ch07::gpu_side_parts(tiny, m);
    CHECK(pn.all_gpu_ms == Approx(before.split.gpu_ms));
    const auto after = wb::ch07::predict_case(c, m);
    CHECK(after.split.gpu_ms == Approx(0.025 + pn.all_gpu_ms - pt.all_gpu_ms));
    CHECK(wb::ch07::predict_case(tiny, m).split.gpu_ms == Approx(0.025));
    // The hybrid's GPU side: t0 in chunks (x, the whole operand, grows by its model) and the serial
    // proportional time times the pipeline; with the CPU far slower, the GPU side is the hybrid's
    // time at a share near 1.
    m.cpu = wb::model::cpu_machine("slow", 1, 0.1, 1, 1);
    const double f = 0.99;
    CHECK(wb::ch07::hybrid_model_ms(c, m, f) ==
          Approx(std::max(0.040 + (pn.whole_ms - pt.whole_ms) + f * 0.8 * pn.serial_ms,
                          wb::model::predict_cpu_ms(m.cpu, wb::model::cpu_work_gemv(false, 41, 4096, 4, false), 4))));
    // The residual is paid by the hybrid's prediction, not by the model it is measured against.
    m.cpu = plain_host().cpu;
    const auto no_res = wb::ch07::predict_case(c, m);
    REQUIRE(no_res.split.gpu_share > 0);
    REQUIRE(no_res.split.gpu_share < 1);
    m.paths["gemv float"].residual_ms = 0.2;
    const auto res = wb::ch07::predict_case(c, m);
    CHECK(res.split.hybrid_ms == Approx(no_res.split.hybrid_ms + 0.2));
    CHECK(res.split.hybrid_ms == Approx(wb::ch07::hybrid_model_ms(c, m, res.split.gpu_share) + 0.2));
    // another class (double) is not anchored by the float path
    CHECK(wb::ch07::predict_case({"gemv", 4096, 8}, m).split.gpu_ms ==
          Approx(wb::ch07::gpu_side_parts({"gemv", 4096, 8}, m).all_gpu_ms));
}

TEST_CASE("chapter 7: a hybrid CPU share of several calls is priced at its footprint", "[cpu][ch07][split]") {
    // SYMV float n = 8192 with 40% of the rows on the GPU: the CPU keeps 4915 rows, a SYMV of the
    // trailing block (46 MiB) and a GEMV of the panel beside it (61 MiB), each inside this host's
    // 64 MiB LLC. Run back to back, call after call, the two find the caches holding both: each
    // is priced at the 107 MiB of the share, where the read rate has fallen, not at its own
    // working set. (A host ten times slower than cached_host's, so that the CPU side is the
    // hybrid's time at this share.)
    // The share of two calls is that of a run from before the GPU added the block beside the
    // CPU's rows (symv_share_one_call false); now it is one call, its own footprint.
    wb::ch07::Machines on = cached_host();
    const double MiB = 1024.0 * 1024.0;
    on.cpu.bandwidth = {{1 * MiB, 40}, {64 * MiB, 40}, {256 * MiB, 5}};
    on.symv_share_one_call = false;
    wb::ch07::Machines off = on;
    off.share_footprint = false;
    const wb::ch07::Case c{"symv", 8192, 4};
    const double f = 0.4;
    const long long r = std::llround((1 - f) * 8192), g = 8192 - r;
    const auto sy = wb::model::cpu_work_symv(r, 4), gv = wb::model::cpu_work_gemv(false, r, g, 4, false);
    REQUIRE(sy.bytes < 64 * MiB);
    REQUIRE(gv.bytes < 64 * MiB);
    const double ws = sy.bytes + gv.bytes;
    using wb::model::peer_key;
    using wb::model::predict_peer_ms;
    const double own = predict_peer_ms(on.cpu, peer_key("symv", 4), sy, 4) + predict_peer_ms(on.cpu, peer_key("gemv", 4), gv, 4);
    const double shared = predict_peer_ms(on.cpu, peer_key("symv", 4), sy, 4, ws) +
                          predict_peer_ms(on.cpu, peer_key("gemv", 4), gv, 4, ws);
    CHECK(shared > 1.2 * own);  // the footprint lies past the LLC
    CHECK(wb::ch07::hybrid_model_ms(c, on, f) == Approx(shared));  // no residual in hybrid_model_ms
    CHECK(wb::ch07::hybrid_model_ms(c, off, f) == Approx(own));
    // One call is its own footprint: GEMV's share, and the CPU alone, the same either way.
    CHECK(wb::ch07::hybrid_model_ms({"gemv", 8192, 4}, on, f) == Approx(wb::ch07::hybrid_model_ms({"gemv", 8192, 4}, off, f)));
    CHECK(wb::ch07::predict_case(c, on).cpu_model_ms == Approx(wb::ch07::predict_case(c, off).cpu_model_ms));
    wb::ch07::Machines one_on = on, one_off = off;
    one_on.symv_share_one_call = one_off.symv_share_one_call = true;
    CHECK(wb::ch07::hybrid_model_ms(c, one_on, f) == Approx(wb::ch07::hybrid_model_ms(c, one_off, f)));
    CHECK(wb::ch07::hybrid_model_ms(c, one_on, f) < wb::ch07::hybrid_model_ms(c, off, f));
}

TEST_CASE("chapter 7: the hybrid is bounded by the host memory both sides read", "[cpu][ch07][split]") {
    // GEMV n = 16384 float (1 GiB): beyond twice the 64 MiB LLC the CPU's share reads DRAM. At a
    // shared rate of 110 GB/s the hybrid moves its whole matrix through host memory once: no
    // share can end before 1 GiB / 110 GB/s.
    wb::ch07::Machines m = plain_host();
    const wb::ch07::Case c{"gemv", 16384, 4};
    const auto free_p = wb::ch07::predict_case(c, m);
    m.host_shared_gbs = 110;
    const auto bound = wb::ch07::predict_case(c, m);
    const double bytes = 16384.0 * 16384 * 4;
    CHECK(bound.split.hybrid_ms >= bytes / 110e6 * 0.999);
    CHECK(bound.split.hybrid_ms > free_p.split.hybrid_ms);
    // In the cache (n = 2048 float: 16 MiB, under half the LLC) only the copies count: no bound.
    const wb::ch07::Case small{"gemv", 2048, 4};
    CHECK(wb::ch07::predict_case(small, m).split.hybrid_ms ==
          Approx(wb::ch07::predict_case(small, plain_host()).split.hybrid_ms));
}

TEST_CASE("chapter 7: CG's CPU solve is its iterations' calls in sequence, where that class was measured", "[cpu][ch07][split]") {
    wb::ch07::Machines m = plain_host();
    const double MiB = 1024.0 * 1024.0;
    using wb::model::peer_key;
    m.cpu.peers[peer_key("symv", 8)] = {0.004, {{1 * MiB, 0.5}}};
    m.cpu.peers[peer_key("cg vectors", 8)] = {0.0005, {{0.1 * MiB, 0.8}}};
    const int I = m.cg_iterations;
    auto peer = [&](const char* cls, const wb::model::CpuWork& w) { return wb::model::predict_peer_ms(m.cpu, peer_key(cls, 8), w, 8); };
    for (int n : {150, 1024}) {
        INFO("n " << n);
        const wb::ch07::Case c{"cg", n, 8};
        const double mv = peer("symv", wb::model::cpu_work_symv(n, 8));
        const double vec = peer("cg vectors", wb::model::cpu_work_cg_vectors(n, 8));
        // Without the sequence measured: I + 1 products and I vector iterations, each class alone.
        CHECK(wb::ch07::predict_case(c, m).cpu_model_ms == Approx((I + 1) * mv + I * vec));
        // With it: the initial product, then I iterations of the sequence (SYMV's regime: n = 150
        // takes the single-thread class), whatever the classes of its calls say.
        m.cpu.peers[peer_key("cg iteration", 8)] = {0.012, {{1 * MiB, 0.4}}};
        m.cpu.peers[wb::model::single_thread_key(peer_key("cg iteration", 8))] = {0.001, {{0.1 * MiB, 0.2}}};
        const double it = peer("cg iteration", wb::model::cpu_work_cg_iteration(n, 8));
        CHECK(wb::ch07::predict_case(c, m).cpu_model_ms == Approx(mv + I * it));
        const wb::model::PeerRate& used =
            m.cpu.peers.at(n < 200 ? wb::model::single_thread_key(peer_key("cg iteration", 8)) : peer_key("cg iteration", 8));
        CHECK(it == Approx(used.fixed_ms + wb::model::predict_cpu_ms(m.cpu, wb::model::cpu_work_cg_iteration(n, 8), 8) /
                                               used.efficiency[0].value));
        CHECK(it > mv + vec);  // these rates: the sequence slower than its calls alone
        m.cpu.peers.erase(peer_key("cg iteration", 8));
        m.cpu.peers.erase(wb::model::single_thread_key(peer_key("cg iteration", 8)));
    }
}

TEST_CASE("chapter 7: CG's split pays the SYMV path's measured fixed cost each product", "[cpu][ch07][split]") {
    wb::ch07::Machines m = plain_host();
    const wb::ch07::Case c{"cg", 1024, 8};
    const double before = wb::ch07::predict_case(c, m).split.hybrid_ms;
    wb::ch07::GpuPath p;
    p.tiny_n = 8;
    p.t0_ms = 0.030;
    p.t0_chunked_ms = 0.045;
    m.paths["symv double"] = p;
    const double after = wb::ch07::predict_case(c, m).split.hybrid_ms;
    // 101 products, each now anchored on 30 us instead of the copies' and kernel's set-ups
    const double per_product = (after - before) / 101;
    CHECK(per_product > 0);
    CHECK(after > before);
    CHECK_THROWS_AS(wb::ch07::measure_case(c, wb::ch07::MeasurePlan{}, 4), std::invalid_argument);
    // the paths' tiny calls timed in turn: CG has none (its solves are timed whole), refused before
    // any host data is prepared (which needs a GPU for its page-locked arrays)
    CHECK_THROWS_AS(wb::ch07::measure_paths_in_turn({wb::ch07::Case{"gemv", 8, 4}, c}, 4), std::invalid_argument);
}

TEST_CASE("chapter 7: the hybrid's pipeline depth is derived per call from its anchors", "[cpu][ch07][split]") {
    wb::ch07::Machines m = plain_host();
    m.chunks = 4;  // the calibration's depth K0
    for (const char* key : {"gemv float", "gemm float", "symv float"}) {
        wb::ch07::GpuPath p;
        p.tiny_n = 8;
        p.mid_n = 2048;
        p.t0_ms = 0.025;
        p.t0_chunked_ms = 0.025 + 3 * 0.010;  // 10 us a chunk
        p.pipeline = 0.8;
        m.paths[key] = p;
    }
    const wb::ch07::Case gemv{"gemv", 4096, 4}, gemm{"gemm", 4096, 4}, symv{"symv", 8192, 4};
    for (const auto& c : {gemv, gemm, symv}) {
        INFO(c.op << " n " << c.n);
        // The derived depth is the fastest of kDepths with a share inside (0, 1), each predicted
        // at its own depth.
        const auto d = wb::ch07::predict_case(c, m);
        double best = 1e300;
        for (int k : wb::ch07::kDepths) {
            const auto p = wb::ch07::predict_case_at(c, m, k);
            if (p.split.gpu_share > 0 && p.split.gpu_share < 1) best = std::min(best, p.split.hybrid_ms);
        }
        REQUIRE(best < 1e300);
        CHECK(d.split.hybrid_ms == best);
        CHECK(wb::ch07::predict_case_at(c, m, d.chunks).split.hybrid_ms == best);
        // At the calibration's depth the anchors are the measured ones: as a run before the
        // derivation (derived_chunks false) predicted.
        wb::ch07::Machines fixed = m;
        fixed.derived_chunks = false;
        const auto at_k0 = wb::ch07::predict_case(c, fixed);
        CHECK(at_k0.chunks == 4);
        CHECK(at_k0.split.hybrid_ms == wb::ch07::predict_case_at(c, m, 4).split.hybrid_ms);
        // The floor is the side's fixed cost at its depth: t0 and 10 us for every chunk beyond one.
        for (int k : wb::ch07::kDepths)
            CHECK(wb::ch07::predict_case_at(c, m, k).split.min_saving_ms == Approx(0.025 + (k - 1) * 0.010));
    }
    // Nearly free chunks (a nanosecond each): the deepest pipeline wins wherever stages overlap;
    // dear chunks (10 ms each, more than any overlap of these calls): one chunk.
    for (auto& [key, p] : m.paths) p.t0_chunked_ms = p.t0_ms + 3 * 1e-6;
    CHECK(wb::ch07::predict_case(gemm, m).chunks == 16);
    for (auto& [key, p] : m.paths) p.t0_chunked_ms = p.t0_ms + 3 * 10.0;
    CHECK(wb::ch07::predict_case(gemm, m).chunks == 1);
    CHECK(wb::ch07::predict_case(gemv, m).chunks == 1);
    // A depth whose fixed cost leaves the GPU no share predicts the single side, not a faster
    // hybrid: with chunks at 0.1 ms and a residual of 0.05 ms (paid by a hybrid, not by a side
    // alone), GEMV 1024's deepest pipeline gets no share and its CPU time is below the hybrid's at
    // one chunk, yet the derived depth is one with a share.
    for (auto& [key, p] : m.paths) p.t0_chunked_ms = p.t0_ms + 3 * 0.1;
    m.paths["gemv float"].residual_ms = 0.05;
    const wb::ch07::Case small{"gemv", 1024, 4};
    const auto deep = wb::ch07::predict_case_at(small, m, 16), one = wb::ch07::predict_case_at(small, m, 1);
    REQUIRE(deep.split.gpu_share == 0);
    REQUIRE(one.split.gpu_share > 0);
    REQUIRE(deep.split.hybrid_ms < one.split.hybrid_ms);
    const auto derived = wb::ch07::predict_case(small, m);
    CHECK(derived.split.gpu_share > 0);
    CHECK(derived.split.gpu_share < 1);
    m.paths["gemv float"].residual_ms = 0;
    // Without a measured path a chunk's cost is unknown: the calibration's depth; so too where the
    // path's chunked call did not come out dearer than its one-chunk call (a broken timing).
    wb::ch07::Machines bare = plain_host();
    CHECK(wb::ch07::predict_case(gemm, bare).chunks == bare.chunks);
    wb::ch07::Machines broken = m;
    broken.paths["gemm float"].t0_chunked_ms = broken.paths["gemm float"].t0_ms;
    CHECK(wb::ch07::predict_case(gemm, broken).chunks == broken.chunks);
    // SYMV's chunks copy their diagonal blocks whole: in one chunk its side copies g^2 / 2 more
    // than in 16, on top of what the overlap saves. With free chunks and the GPU side setting the
    // hybrid's time (a slow CPU: f near 1), one chunk over 16 costs SYMV well beyond what it costs
    // GEMV of the same n, whose copies have no triangle.
    for (auto& [key, p] : m.paths) p.t0_chunked_ms = p.t0_ms;
    m.cpu = wb::model::cpu_machine("slow", 1, 0.1, 1, 1);
    const wb::ch07::Case gemv8k{"gemv", 8192, 4};
    auto ratio = [&](const wb::ch07::Case& c) {
        return wb::ch07::predict_case_at(c, m, 1).split.hybrid_ms / wb::ch07::predict_case_at(c, m, 16).split.hybrid_ms;
    };
    CHECK(ratio(symv) > 1.3 * ratio(gemv8k));
    CHECK_THROWS_WITH(wb::ch07::predict_case_at(gemv, m, 0), Catch::Contains("chunks (0) must be >= 1"));
}

TEST_CASE("chapter 7: a depth factor interpolates in log2 of the depth, 1 where none was measured", "[cpu][ch07][split]") {
    wb::ch07::GpuPath p;
    for (int k : {1, 3, 4, 16, 64}) CHECK(wb::ch07::depth_factor_at(p, k) == 1.0);
    p.depth_factors = {{1, 0.9}, {4, 1.0}, {16, 1.3}};
    CHECK(wb::ch07::depth_factor_at(p, 1) == 0.9);
    CHECK(wb::ch07::depth_factor_at(p, 2) == Approx(0.95));
    CHECK(wb::ch07::depth_factor_at(p, 4) == 1.0);
    CHECK(wb::ch07::depth_factor_at(p, 8) == Approx(1.15));
    CHECK(wb::ch07::depth_factor_at(p, 16) == 1.3);
    CHECK(wb::ch07::depth_factor_at(p, 32) == 1.3);  // beyond the deepest measured: its factor
}

TEST_CASE("chapter 7: a path's depth factors scale the hybrid at each depth and move the derived depth",
          "[cpu][ch07][split]") {
    wb::ch07::Machines m = plain_host();
    m.chunks = 4;
    wb::ch07::GpuPath p;
    p.tiny_n = 8;
    p.mid_n = 2048;
    p.t0_ms = 0.025;
    p.t0_chunked_ms = 0.025 + 3 * 0.001;  // 1 us a chunk: the model alone runs the GEMM deep
    p.pipeline = 0.8;
    p.residual_ms = 0.05;
    m.paths["gemm float"] = p;
    const wb::ch07::Case gemm{"gemm", 4096, 4};
    const auto plain = wb::ch07::predict_case(gemm, m);
    REQUIRE(plain.chunks == 16);
    REQUIRE(plain.split.gpu_share > 0);
    REQUIRE(plain.split.gpu_share < 1);
    // Each depth's hybrid scaled by its factor; the residual, the share, the single sides and the
    // all-CPU and all-GPU columns do not move.
    wb::ch07::Machines measured = m;
    measured.paths["gemm float"].depth_factors = {{1, 1.0}, {2, 1.0}, {4, 1.0}, {8, 1.2}, {16, 1.5}};
    for (int k : wb::ch07::kDepths) {
        INFO("depth " << k);
        const auto a = wb::ch07::predict_case_at(gemm, m, k), b = wb::ch07::predict_case_at(gemm, measured, k);
        REQUIRE(a.split.gpu_share > 0);
        REQUIRE(a.split.gpu_share < 1);
        const double phi = wb::ch07::depth_factor_at(measured.paths["gemm float"], k);
        CHECK(b.split.hybrid_ms == Approx(phi * (a.split.hybrid_ms - 0.05) + 0.05));
        CHECK(b.split.gpu_share == Approx(a.split.gpu_share));
        CHECK(b.split.cpu_ms == a.split.cpu_ms);
        CHECK(b.split.gpu_ms == a.split.gpu_ms);
        const double f = a.split.gpu_share;
        CHECK(wb::ch07::hybrid_model_ms_at(gemm, measured, f, k) == Approx(phi * wb::ch07::hybrid_model_ms_at(gemm, m, f, k)));
    }
    // At the calibration's depth nothing moves: the residual is measured against that model.
    CHECK(wb::ch07::hybrid_model_ms(gemm, measured, 0.9) == wb::ch07::hybrid_model_ms(gemm, m, 0.9));
    // The derived depth is the fastest with the factors: here 4, where 16 cost half as much again.
    const auto derived = wb::ch07::predict_case(gemm, measured);
    CHECK(derived.chunks == 4);
    CHECK(derived.split.hybrid_ms == wb::ch07::predict_case_at(gemm, measured, 4).split.hybrid_ms);
    // Another class's path, or none, keeps its model.
    CHECK(wb::ch07::predict_case({"gemm", 4096, 8}, measured).split.hybrid_ms ==
          wb::ch07::predict_case({"gemm", 4096, 8}, m).split.hybrid_ms);
    CHECK_THROWS_AS(wb::ch07::hybrid_model_ms_at(gemm, m, 0.9, 0), std::invalid_argument);
}

TEST_CASE("chapter 7: the calls a group's rounds time, and the pairs that trade places", "[cpu][ch07][split]") {
    using wb::ch07::AbPlan;
    using wb::ch07::RoundCall;
    using Call = RoundCall::Call;
    using Col = RoundCall::Column;
    using Pairs = std::vector<std::pair<std::size_t, std::size_t>>;
    // GEMV at three sizes: a share of 0 (CPU only), one piece (fixed share), three pieces (balanced).
    const std::vector<wb::ch07::Case> gemv{{"gemv", 64, 4, 0}, {"gemv", 2048, 4, 0}, {"gemv", 8192, 4, 0}};
    const std::vector<int> parts{0, 400, 2000}, pieces{0, 1, 3};
    auto plan = wb::ch07::round_plan(gemv, parts, pieces, true, {}, true);
    CHECK(plan.calls == std::vector<RoundCall>{{0, Call::cpu, Col::cpu},
                                               {1, Call::cpu, Col::cpu},
                                               {1, Call::fixed, Col::hybrid},
                                               {2, Call::cpu, Col::cpu},
                                               {2, Call::balanced, Col::hybrid}});
    CHECK(plan.swaps == Pairs{{1, 2}, {3, 4}});  // each hybrid with its CPU peer
    CHECK(wb::ch07::round_plan(gemv, parts, pieces, true, {}, false).swaps.empty());  // --fixed-order
    // Without a GPU: the CPU peers alone.
    plan = wb::ch07::round_plan(gemv, parts, pieces, false, {}, true);
    CHECK(plan.calls.size() == 3);
    CHECK(plan.swaps.empty());
    // --balance-ab: a balanced row's arm a (the fixed share) and arm b trade places; a one-piece
    // row's fixed share trades with its CPU peer.
    plan = wb::ch07::round_plan(gemv, parts, pieces, true, {AbPlan::Arms::fixed_vs_balanced, 0}, true);
    CHECK(plan.calls == std::vector<RoundCall>{{0, Call::cpu, Col::cpu},
                                               {1, Call::cpu, Col::cpu},
                                               {1, Call::fixed, Col::hybrid},
                                               {2, Call::cpu, Col::cpu},
                                               {2, Call::fixed, Col::hybrid},
                                               {2, Call::balanced, Col::balanced}});
    CHECK(plan.swaps == Pairs{{1, 2}, {4, 5}});
    // --first-issue-ab: arm a the balanced call as it is.
    plan = wb::ch07::round_plan(gemv, parts, pieces, true, {AbPlan::Arms::first_issue, 1.5}, true);
    CHECK(plan.calls[4] == RoundCall{2, Call::balanced_as_is, Col::hybrid});
    CHECK(plan.calls[5] == RoundCall{2, Call::balanced, Col::balanced});
    // --depth-ab: every hybrid row's call as it runs (arm a) and at another depth (arm b), the two
    // trading places; the fixed share's arm b a fixed call, the balanced row's a balanced one.
    plan = wb::ch07::round_plan(gemv, parts, pieces, true, {AbPlan::Arms::depth, 0, 0.5}, true);
    CHECK(plan.calls == std::vector<RoundCall>{{0, Call::cpu, Col::cpu},
                                               {1, Call::cpu, Col::cpu},
                                               {1, Call::fixed, Col::hybrid},
                                               {1, Call::fixed_depth_b, Col::balanced},
                                               {2, Call::cpu, Col::cpu},
                                               {2, Call::balanced, Col::hybrid},
                                               {2, Call::balanced_depth_b, Col::balanced}});
    CHECK(plan.swaps == Pairs{{2, 3}, {5, 6}});
    CHECK(wb::ch07::depth_b(16, 0.5) == 8);
    CHECK(wb::ch07::depth_b(1, 0.5) == 1);  // at least one chunk
    CHECK(wb::ch07::depth_b(3, 0.5) == 2);  // rounded
    CHECK(wb::ch07::depth_b(4, 2) == 8);
    CHECK(wb::ch07::depth_b(0, 1) == 1);
    // SYMV balances where its rows get pieces (--balanced-symv); CG has no balanced call: it runs
    // its split solve.
    plan = wb::ch07::round_plan({{"symv", 8192, 4, 0}}, {900}, {4}, true, {}, true);
    CHECK(plan.calls[1] == RoundCall{0, Call::balanced, Col::hybrid});
    plan = wb::ch07::round_plan({{"symv", 8192, 4, 0}}, {900}, {1}, true, {}, true);
    CHECK(plan.calls[1] == RoundCall{0, Call::fixed, Col::hybrid});
    plan = wb::ch07::round_plan({{"cg", 4096, 8, 0}}, {0}, {}, true, {}, true);
    CHECK(plan.calls[1] == RoundCall{0, Call::cg_split, Col::hybrid});
    CHECK(plan.swaps == Pairs{{0, 1}});
    // A share of all the outputs: the hybrid is the GPU's way, not timed here.
    CHECK(wb::ch07::round_plan({{"gemm", 512, 4, 0}}, {512}, {}, true, {}, true).calls.size() == 1);
    // Errors name the argument and the rule.
    CHECK_THROWS_WITH(wb::ch07::round_plan(gemv, {1, 2}, {}, true, {}, true),
                      "ch07 round_plan: gpu_parts (2) and pieces (0, or none) must have one entry per case (3)");
    CHECK_THROWS_WITH(wb::ch07::round_plan(gemv, parts, pieces, true, {AbPlan::Arms::first_issue, 0}, true),
                      Catch::Matchers::Contains("ab.first_issue (0.000000) must be finite and > 0"));
    CHECK_THROWS_WITH(wb::ch07::round_plan(gemv, parts, pieces, true, {AbPlan::Arms::depth, 0, 0}, true),
                      Catch::Matchers::Contains("ab.depth_scale (0.000000) must be finite and > 0"));
}

TEST_CASE("chapter 7: --depth-ab's lines, each row whose arms ran at different depths and the medians",
          "[cpu][ch07][split]") {
    auto row = [](const char* op, int n, int chunks, double a, double b) {
        wb::ch07::RowResult r;
        r.c = wb::ch07::Case{op, n, 4, 0};
        r.p.chunks = chunks;
        r.m.hybrid_ms = a;
        r.m.balanced_ms = b;
        return r;
    };
    std::vector<wb::ch07::RowResult> rows{row("gemm", 4096, 16, 5.0, 4.0), row("gemm", 2048, 8, 2.0, 2.2),
                                          row("gemm", 1024, 1, 0.3, 0.1),  // one chunk: both arms at 1, left out
                                          row("gemv", 8192, 2, 1.0, 0.9), row("symv", 64, 0, NAN, NAN)};
    const std::vector<std::string> lines = wb::ch07::depth_ab_lines(rows, 0.5);
    REQUIRE(lines.size() == 6);
    CHECK(lines[0] == "gemm float 4096: 16 chunks 5.0000 ms, 8 chunks 4.0000 ms, x0.800");
    CHECK(lines[1] == "gemm float 2048: 8 chunks 2.0000 ms, 4 chunks 2.2000 ms, x1.100");
    CHECK(lines[2] == "gemv float 8192: 2 chunks 1.0000 ms, 1 chunks 0.9000 ms, x0.900");
    CHECK(lines[3] == "gemm: the depth times 0.5 over the row's own, median x0.950 over 2 rows, faster at 1");
    CHECK(lines[4] == "gemv: the depth times 0.5 over the row's own, median x0.900 over 1 rows, faster at 1");
    CHECK(lines[5] == "every op: the depth times 0.5 over the row's own, median x0.900 over 3 rows, faster at 2");
    CHECK(wb::ch07::depth_ab_lines({row("symv", 64, 0, NAN, NAN)}, 0.5).empty());
}

TEST_CASE("chapter 7: where --first-issue-ab's two arms are different calls", "[cpu][ch07][split]") {
    // Chunks of a piece's worth (depth <= pieces): 1.5 pieces' worth rounds up to the same two
    // chunks as 2 (run e's GEMV double 4096: g 1073, depth 1, 2 pieces).
    CHECK(wb::ch07::balanced_unit(1073, 1, 2) == 537);
    CHECK_FALSE(wb::ch07::first_issue_arms_differ(4096, 1073, 1, 2, 1.5));
    CHECK_FALSE(wb::ch07::first_issue_arms_differ(8192, 2376, 2, 5, 1.5));
    // Chunks smaller than a piece (depth 8 > 2 pieces): 1.5 pieces' worth is 3 chunks, 2 is 4.
    CHECK(wb::ch07::balanced_unit(1073, 8, 2) == 135);
    CHECK(wb::ch07::first_issue_arms_differ(4096, 1073, 8, 2, 1.5));
    // One piece, or no hybrid: no balanced call.
    CHECK_FALSE(wb::ch07::first_issue_arms_differ(4096, 1073, 8, 1, 1.5));
    CHECK_FALSE(wb::ch07::first_issue_arms_differ(4096, 0, 8, 4, 1.5));
    CHECK_FALSE(wb::ch07::first_issue_arms_differ(4096, 4096, 8, 4, 1.5));
    // Where chunks are a piece's worth, one piece's worth or less is one chunk against two.
    CHECK(wb::ch07::first_issue_arms_differ(4096, 1000, 4, 4, 1.0));
    CHECK(wb::ch07::first_issue_arms_differ(4096, 1000, 4, 4, 0.5));
}

TEST_CASE("chapter 7: the place in the round, from the rows' two places", "[cpu][ch07]") {
    using wb::split::Where;
    // Three rows: the CPU model 1.0 ms each (row()'s CPU column); the CPU peer first in its row at
    // 1.0, 1.1, 1.2 ms and right after its hybrid 1.2, 1.21, 1.2 ms (ratios 1.2, 1.1, 1.0); the
    // hybrid right after its CPU peer at 1.0 and first in its row at 0.9, 0.8, 1.0.
    std::vector<wb::ch07::RowResult> rows;
    const double first[] = {1.0, 1.1, 1.2}, after[] = {1.2, 1.21, 1.2}, hfirst[] = {0.9, 0.8, 1.0};
    for (int i = 0; i < 3; ++i) {
        rows.push_back(row(256 << i, 1.0, 2.0, 0.8, Where::Hybrid));
        rows.back().m.cpu_first_ms = first[i];
        rows.back().m.cpu_after_hybrid_ms = after[i];
        rows.back().m.hybrid_after_cpu_ms = 1.0;
        rows.back().m.hybrid_first_ms = hfirst[i];
    }
    rows.push_back(row(64, 1.0, 2.0, NAN, Where::Cpu));  // a row without the two places: left out
    const auto lines = wb::ch07::place_lines(rows);
    REQUIRE(lines.size() == 4);
    CHECK(lines[0] == "CPU peer right after its hybrid / first in its row: median 1.100 over 3 rows");
    // within 15% of 1.0: first 1.0 and 1.1 (1.2 is 1/1.2 - 1 = 16.7% off); after: none
    CHECK(lines[1] == "CPU model within 15% of the CPU peer first in its row: 2 of 3 (67%)");
    CHECK(lines[2] == "CPU model within 15% of the CPU peer right after its hybrid: 0 of 3 (0%)");
    CHECK(lines[3] == "hybrid first in its row / right after its CPU peer: median 0.900 over 3 rows");
    // No row with both places (--fixed-order, an A/B, no GPU): nothing to say.
    CHECK(wb::ch07::place_lines({row(64, 1.0, 2.0, NAN, Where::Cpu)}).empty());
}

TEST_CASE("chapter 7: a CG row below the option's iterations is a solve of n, in the model and in words", "[cpu][ch07][split]") {
    using wb::ch07::cg_solve_iterations;
    CHECK(cg_solve_iterations(1, 100) == 1);
    CHECK(cg_solve_iterations(3, 100) == 3);
    CHECK(cg_solve_iterations(99, 100) == 99);
    CHECK(cg_solve_iterations(100, 100) == 100);
    CHECK(cg_solve_iterations(16384, 100) == 100);
    CHECK(cg_solve_iterations(8, 5) == 5);
    CHECK(cg_solve_iterations(0, 100) == 1);  // never a solve of no iterations (the scaling divides by it)
    // The model counts min(n, I): at n = 3, I = 100 predicts what I = 3 does; at n = 150 the two part.
    wb::ch07::Machines m = plain_host();
    const double MiB = 1024.0 * 1024.0;
    using wb::model::peer_key;
    for (std::size_t e : {std::size_t{4}, std::size_t{8}}) {
        m.cpu.peers[peer_key("symv", e)] = {0.004, {{1 * MiB, 0.5}}};
        m.cpu.peers[peer_key("cg vectors", e)] = {0.0005, {{0.1 * MiB, 0.8}}};
    }
    auto predict = [&](int n, int I, std::size_t e) {
        m.cg_iterations = I;
        return wb::ch07::predict_case(wb::ch07::Case{"cg", n, e}, m).split;
    };
    for (std::size_t e : {std::size_t{4}, std::size_t{8}}) {
        INFO("elem " << e);
        const auto small_100 = predict(3, 100, e), small_3 = predict(3, 3, e);
        CHECK(small_100.cpu_ms == Approx(small_3.cpu_ms));
        CHECK(small_100.gpu_ms == Approx(small_3.gpu_ms));
        CHECK(small_100.hybrid_ms == Approx(small_3.hybrid_ms));
        CHECK(predict(150, 100, e).gpu_ms > 1.5 * predict(150, 3, e).gpu_ms);
        // and each column grows with the iterations below n: n = 50 does more than n = 3
        CHECK(predict(50, 100, e).cpu_ms > predict(3, 100, e).cpu_ms);
    }
    // A measured solve's fixed cost ("cg solve": its set-up around the loop) is paid once per
    // solve in the all-GPU column, at n = 3 (3 iterations) as at n = 256 (100): never per iteration.
    for (std::size_t e : {std::size_t{4}, std::size_t{8}}) {
        INFO("elem " << e);
        const double few = predict(3, 100, e).gpu_ms, many = predict(256, 100, e).gpu_ms;
        const double few_split = predict(3, 100, e).hybrid_ms;
        m.gpu_rates.rates[peer_key("cg solve", e)] = wb::ch07::GpuRate{0.06, 1};
        CHECK(predict(3, 100, e).gpu_ms == Approx(few + 0.06));
        CHECK(predict(256, 100, e).gpu_ms == Approx(many + 0.06));
        CHECK(predict(3, 100, e).hybrid_ms == Approx(few_split));  // the split runs no GPU solve
        m.gpu_rates.rates.erase(peer_key("cg solve", e));
    }
    // cg_path_copies_ms is the all-GPU solve's copies in predict_cg: with the solve's fixed cost
    // and one iteration, the model of the path at n = 64 is exactly the three (the calibration's
    // cg_path_fixed_ms subtracts these two from that call's time).
    for (std::size_t e : {std::size_t{4}, std::size_t{8}}) {
        m.gpu_rates.rates[peer_key("cg solve", e)] = wb::ch07::GpuRate{0.05, 1};
        m.gpu_rates.rates[peer_key("cg", e)] = wb::ch07::GpuRate{0.005, 0.8};
        const wb::model::CpuWork it = wb::model::cpu_work_cg_iteration(1, e);
        CHECK(predict(1, 100, e).gpu_ms ==
              Approx(wb::ch07::cg_path_copies_ms(m.links, 1, e) + 0.05 + 0.005 +
                     wb::ch07::gpu_roofline_ms(m.gpu, it.bytes, it.flops, e) / 0.8));
        m.gpu_rates.rates.erase(peer_key("cg solve", e));
        m.gpu_rates.rates.erase(peer_key("cg", e));
    }
    // The words: the rows below I in one line, then each solve that stopped early.
    std::vector<wb::ch07::RowResult> rows(3);
    rows[0].c = {"cg", 3, 4};
    rows[1].c = {"cg", 256, 8};
    rows[2].c = {"gemv", 3, 4};
    rows[0].m.cg_stopped_at.push_back({"all-GPU", 2, 3});
    const std::vector<std::string> lines = wb::ch07::cg_iteration_lines(rows, 100);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] ==
          "CG below n = 100 (float n=3): a solve of n iterations in every column and in the model (CG solves an n x n "
          "system in at most n; more would only grind its rounding)");
    CHECK(lines[1] == "cg float n=3: the all-GPU solve stopped after 2 of 3 iterations (its residual exactly zero, or a "
                      "breakdown): its time is scaled to 3");
    // Every CG row at or above I, no early stop: nothing to say.
    CHECK(wb::ch07::cg_iteration_lines({rows[1], rows[2]}, 100).empty());
}
