// The tuned GEMM's default rule explained for a few calls: every copies choice it weighs with its
// derived time (pack_a, pack_b, align), the derivation's lines for the call its main loop then
// runs, and the launch gemm_default returns. A report, not a test: it asserts nothing and runs
// only when named.
//
// Run (any machine; the h200 preset and its table of measured rates):
//   build-*/bin/wb_cpu_tests "[.gemm-rule-report]"
// On a GPU, the device's own profile and rates (measured at the first call, as a chapter does):
//   WB_REPORT_LIVE=1 build-*/bin/wb_cpu_tests "[.gemm-rule-report]"
// and with chapter 0's ceilings measured first (cuBLAS SGEMM and DGEMM run for their clocks, as
// in a chapter's process before its first GEMM):
//   WB_REPORT_LIVE=1 WB_REPORT_CEILINGS=1 build-*/bin/wb_cpu_tests "[.gemm-rule-report]"
// Other calls: WB_GEMM_CALLS="m,n,k,opA,ld_extra;..." (opA N or T; ld_extra > 0 leaves every
// column unaligned where it is odd), e.g. WB_GEMM_CALLS="1000,1000,1000,T,0".
#include "catch.hpp"

#include "ceilings.hpp"
#include "derive/derivation.hpp"
#include "device_profile.hpp"
#include "gemm.hpp"
#include "gemm_rule_args.hpp"
#include "tuned/gemm_default_rule.hpp"
#include "tuned/gemm_kernel_rates.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Call {
    int m, n, k;
    wb::Op op_a;
    int ld_extra;
};

/// The calls of WB_GEMM_CALLS, or four whose picks moved between runs of chapter 5 (the GEMM notes).
std::vector<Call> calls() {
    const char* env = std::getenv("WB_GEMM_CALLS");
    if (!env) return {{1000, 1000, 1000, wb::Op::N, 0}, {300, 20000, 3000, wb::Op::N, 0},
                      {4000, 4000, 4000, wb::Op::N, 64}, {256, 256, 262144, wb::Op::T, 0}};
    std::vector<Call> v;
    std::stringstream all(env);
    std::string one;
    while (std::getline(all, one, ';')) {
        Call c{};
        char op = 'N';
        if (std::sscanf(one.c_str(), "%d,%d,%d,%c,%d", &c.m, &c.n, &c.k, &op, &c.ld_extra) != 5 || c.m < 1 || c.n < 1 ||
            c.k < 1 || c.ld_extra < 0 || (op != 'N' && op != 'T'))
            FAIL("WB_GEMM_CALLS: '" << one << "' must be m,n,k,opA,ld_extra (m, n, k >= 1; opA N or T; ld_extra >= 0)");
        c.op_a = op == 'T' ? wb::Op::T : wb::Op::N;
        v.push_back(c);
    }
    return v;
}

}  // namespace

TEST_CASE("gemm default rule: report of its choices for a few calls", "[.gemm-rule-report]") {
    if (std::getenv("WB_REPORT_CEILINGS")) {
        const wb::Ceilings& c = wb::measured_ceilings();
        std::printf("chapter 0's ceilings first: SM clock under an SGEMM %.1f MHz, a DGEMM %.1f MHz\n",
                    c.sgemm_clock_mhz, c.dgemm_clock_mhz);
    }
    bool live = false;
    const wb::DeviceProfile dev =
        std::getenv("WB_REPORT_LIVE") ? wb::derive::default_profile(&live) : wb::device_preset("h200");
    std::printf("profile: %s, %d SMs, %.1f GB/s; the kernels' rates %s\n", dev.name.c_str(), dev.sm_count,
                dev.bandwidth_gbs, live ? "measured now" : "of the H200 table");
    for (const wb::tuned::GemmKernelRates& r : wb::tuned::gemm_kernel_rates<float>(live))
        std::printf("  rates: %s\n", wb::tuned::gemm_kernel_rates_line(r).c_str());
    for (const Call& c : calls()) {
        const wb::GemmArgs<float> a = wb::test::gemm_rule_args(c.m, c.n, c.k, c.op_a, wb::Op::N, c.ld_extra);
        std::vector<wb::derive::Derived> why;
        const wb::GemmArgs<float> view = wb::tuned::gemm_copies_view(a, dev, live, &why);
        std::printf("%d x %d x %d %s ld+%d\n", c.m, c.n, c.k, c.op_a == wb::Op::T ? "TN" : "NN", c.ld_extra);
        for (const auto& w : why) std::printf("  %s = %lld    %s\n", w.parameter.c_str(), w.value, w.metric.c_str());
        for (const auto& p : wb::tuned::gemm_derivation(view, dev, live, false).params)
            std::printf("  %s = %lld    %s\n", p.parameter.c_str(), p.value, p.metric.c_str());
        if (live) std::printf("  gemm_default (this process's cached pick): %s\n", wb::tuned::gemm_default(a).str().c_str());
    }
}
