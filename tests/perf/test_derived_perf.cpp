// Chapter 6's derivation against the exhaustive sweep (issue 40, item 6): for each case below, in
// one run, the derived launch keeps at least 0.95x the speed of the best of the tuned step's legal
// launches (SYMV: its deterministic ones), each checked against the float64 reference (CG: a
// converged solve's true residual) before it is timed (chapters/runner/derived_comparison.cpp). The threshold is the goal.
// Measured on an H200 (docs/results/h200/perf-derive.txt, 1d9aa19): every case at 0.95x or more
// but the convolution at 2048^2 FS 17 float (0.947: the model ranks the blocked 64 x 64 tile ahead
// of the generic 128 x 64 one; its loop count is short of the kernel's executed instructions, and
// the whole-tile count that ranks FS 17 right misranks FS 9, docs/notes/conv2d.md); CG 8192 float
// 1.02 since the walk takes the H200's probe (it was 0.90 with the H100's). Run-to-run noise of
// these 20 us - 3 ms calls: about 2%.
// Run: ./build/bin/wb_perf_tests "[derive]"
#include "catch.hpp"

#include "derived_comparison.hpp"
#include "device_profile.hpp"

#include <iostream>
#include <string>
#include <vector>

namespace {

/// Every case of `op` on this device (precisions `elems`, the cases `cs` selects), swept; each
/// derived launch at least 0.95x the sweep's best.
void check_op(const std::string& op, const std::vector<int>& elems, const wb::ch06::CaseSelection& cs) {
    const wb::DeviceProfile dev = wb::device_profile_from_device(0);
    const auto rows = wb::ch06::compare_op(op, dev, elems, /*measure=*/true, /*sweep=*/true, cs);
    REQUIRE(rows.size() >= 2);  // at least two shapes
    for (const auto& c : rows) {
        INFO(c.derived.shape << ": derived " << c.derived_launch << " " << c.derived_measured_ms << " ms, best "
                             << c.best_launch << " " << c.best_ms << " ms of " << c.swept << " launches ("
                             << c.measured_note << c.sweep_note << ")");
        REQUIRE(c.swept > 0);
        REQUIRE(c.derived_measured_ms > 0);
        std::cout << "derived vs sweep best, " << op << " " << c.derived.shape << ": " << c.derived_vs_best() << "x\n";
        CHECK(c.derived_vs_best() >= 0.95);
        CHECK(c.sweep_note.find("not in the step's list") == std::string::npos);  // the list reaches the rules' choices
    }
}

wb::ch06::CaseSelection sizes(std::vector<long long> n) {
    wb::ch06::CaseSelection cs;
    cs.sizes = std::move(n);
    cs.quick = true;
    return cs;
}

}  // namespace

TEST_CASE("perf: derived GEMV launches keep 0.95x the sweep's best", "[perf][derive][gemv]") {
    check_op("gemv", {4}, wb::ch06::CaseSelection{});  // the page's three shapes
}

TEST_CASE("perf: derived GEMM launches keep 0.95x the sweep's best", "[perf][derive][gemm]") {
    check_op("gemm", {4, 8}, sizes({1024, 2048}));  // n^3, float and double
}

TEST_CASE("perf: derived convolution launches keep 0.95x the sweep's best", "[perf][derive][conv2d]") {
    check_op("conv2d", {4}, sizes({2048}));  // 2048^2 with FS 3, 7, 17, 63
}

TEST_CASE("perf: derived SYMV launches keep 0.95x the sweep's best", "[perf][derive][symv]") {
    check_op("symv", {4, 8}, wb::ch06::CaseSelection{});  // the page's n = 4096, 16384
}

TEST_CASE("perf: derived CG launches keep 0.95x the sweep's best", "[perf][derive][cg]") {
    // The solve takes the vector kernels' block from the derivation (256 on every preset) and the
    // rest from chapter 5's rules; the sweep also tries stream launches, the persistent kernel and
    // other graph lengths.
    check_op("cg", {4}, sizes({2048, 8192}));
}
