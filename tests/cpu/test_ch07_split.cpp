// CPU tests of chapter 7 (chapters/ch07_split): its command line (split_options: the words every
// chapter accepts, the usage errors that exit with 2 before anything is measured), the host memory
// a measured case needs (the need that decides whether a case is skipped), the iterations its CG
// column times (the model's solve, whatever n) and CG's choice of the hybrid (the 5% rule).
#include "catch.hpp"

#include "cpu_peers.hpp"
#include "device_profile.hpp"
#include "reference_cg.hpp"
#include "split_cases.hpp"
#include "split_options.hpp"

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

/// Runs parse_split_cli on "ch07_split <args...>" and returns its code.
int parse(std::initializer_list<std::string> args, wb::ch07::SplitOptions& opt) {
    std::vector<std::string> storage = {"ch07_split"};
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& s : storage) argv.push_back(s.data());
    argv.push_back(nullptr);
    return wb::ch07::parse_split_cli(static_cast<int>(storage.size()), argv.data(), opt);
}

int parse(std::initializer_list<std::string> args) {
    wb::ch07::SplitOptions opt;
    return parse(args, opt);
}

using Names = std::vector<std::string>;

}  // namespace

TEST_CASE("chapter 7 CLI: defaults are every op and both precisions", "[cpu][ch07][cli]") {
    wb::ch07::SplitOptions opt;
    REQUIRE(parse({}, opt) == -1);
    CHECK(opt.ops == wb::ch07::split_ops());
    CHECK(opt.precisions == Names{"float", "double"});
    CHECK(opt.sizes.empty());
    CHECK(opt.chunks == 4);
    CHECK(opt.cg_iterations == 100);
}

TEST_CASE("chapter 7 CLI: --op all and --precision both, as in every chapter; each name once", "[cpu][ch07][cli]") {
    wb::ch07::SplitOptions opt;
    REQUIRE(parse({"--op", "all", "--precision", "both"}, opt) == -1);
    CHECK(opt.ops == wb::ch07::split_ops());
    CHECK(opt.precisions == Names{"float", "double"});

    wb::ch07::SplitOptions twice;
    REQUIRE(parse({"--op", "symv,gemv,symv", "--precision", "double,float,double"}, twice) == -1);
    CHECK(twice.ops == Names{"symv", "gemv"});
    CHECK(twice.precisions == Names{"double", "float"});

    wb::ch07::SplitOptions one;
    REQUIRE(parse({"--op", "cg", "--precision", "float", "--sizes", "64,128", "--chunks", "8"}, one) == -1);
    CHECK(one.ops == Names{"cg"});
    CHECK(one.precisions == Names{"float"});
    CHECK(one.sizes == std::vector<int>{64, 128});
    CHECK(one.chunks == 8);

    // The options every chapter shares, so that ./workbook run -- OPTIONS reaches chapter 7 too.
    wb::ch07::SplitOptions shared;
    REQUIRE(parse({"--device", "1", "--full", "--trans", "N"}, shared) == -1);
    CHECK(shared.device == 1);
    CHECK(shared.full);
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
    CHECK(parse({"--cg-iterations", "0"}) == 2);
    CHECK(parse({"--device-preset", "foo"}) == 2);
    CHECK(parse({"--bogus"}) == 2);
    CHECK(parse({"--device", "-1"}) == 2);
    CHECK(parse({"--quick", "--full"}) == 2);
    CHECK(parse({"--trans", "T"}) == 2);  // no call of this chapter is op T
    // --csv is checked before the run: a table measured for minutes is never lost to a bad path.
    CHECK(parse({"--csv", "/nonexistent-folder-of-the-workbook/x.csv"}) == 2);
    CHECK(parse({"--csv", "/"}) == 2);
}

TEST_CASE("chapter 7: the host bytes a measured case needs", "[cpu][ch07]") {
    using wb::ch07::host_bytes_needed;
    const double n = 1000, nn = n * n;
    CHECK(host_bytes_needed("gemv", 1000, 4, false) == 4 * (nn + 2 * n));
    CHECK(host_bytes_needed("gemv", 1000, 8, true) == 8 * (2 * nn + 4 * n));  // the pinned copies beside A
    CHECK(host_bytes_needed("gemm", 1000, 8, false) == 8 * 3 * nn);
    CHECK(host_bytes_needed("symv", 1000, 4, true) == 4 * (nn + 2 * n));
    CHECK(host_bytes_needed("conv2d", 1000, 4, false) > 4 * 2 * nn);
    CHECK(host_bytes_needed("cg", 1000, 8, false) > 8 * nn);
    // The largest size the option takes: 96 GiB for a double GEMM, more than a build machine holds.
    CHECK(host_bytes_needed("gemm", 65536, 8, false) == 8.0 * 3 * 65536.0 * 65536.0);
    CHECK_THROWS_AS(host_bytes_needed("gemv2", 1000, 4, false), std::invalid_argument);
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
        CHECK(wb::ch07::cpu_cg_iterations(n, Af.data(), bf.data(), xf.data(), iters) == iters);
        CHECK(wb::ch07::cpu_cg_iterations(n, Ad.data(), bd.data(), xd.data(), iters) == iters);
        if (n == 8) {  // the early stop the restart is there for
            wb::CgResult r;
            std::fill(xf.begin(), xf.end(), 0.0f);
            wb::cpu::cg(wb::CgArgs<float>{n, Af.data(), n, bf.data(), xf.data(), 0.0, iters, &r});
            CHECK(r.iterations < iters);
        }
    }
}

TEST_CASE("chapter 7: CG's hybrid (White §5.2) is chosen only with the 5% gain, as every op's", "[cpu][ch07][split]") {
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
                    const auto p = wb::ch07::predict_case("cg", n, elem, m).split;
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
