// kernel_time.cpp — one kernel's time from what its blocks do (declared in model/kernel_time.hpp).
#include "model/kernel_time.hpp"

#include "model/model_internal.hpp"
#include "model/occupancy.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <string>
#include <utility>

namespace wb::model {

const char* kernel_limit_name(KernelLimit l) {
    switch (l) {
        case KernelLimit::launch: return "launch";
        case KernelLimit::dram: return "DRAM bandwidth";
        case KernelLimit::walk: return "latency walk";
        case KernelLimit::lsu: return "L1/shared wavefronts";
        case KernelLimit::issue: return "instruction issue";
        case KernelLimit::l2_requests: return "L2 requests";
    }
    return "?";
}

double dram_ms(double read_bytes, double written_bytes, const DeviceProfile& dev) {
    const double total = read_bytes + written_bytes;
    if (total <= 0) return 0;
    const double share = std::min(0.5, written_bytes / total);  // the copy ceiling's mix at 0.5
    const double ratio = dev.copy_over_read > 0 ? dev.copy_over_read : 1.0;
    return total / (dev.bandwidth_gbs * (1.0 - 2.0 * share * (1.0 - ratio)) * 1e6);
}

namespace {

/// The fluid walk of model/kernel_time.hpp: between two events (a block finishing, or entering its
/// bare rounds) the number of resident blocks a, and of those still moving bytes s, is constant,
/// and each round takes max(round latency, s x bytes per block round / BW).
double walk_ms(const KernelWork& w, double bandwidth_gbs, int sm_count, double latency_ms, double l2_ms,
               double clock_per_ms, double* bus_ms) {
    std::vector<double> walks = w.walks;
    if (walks.empty()) walks.assign(static_cast<std::size_t>(w.blocks), w.rounds);
    double total = 0, bare_total = 0;
    const double bare = std::max(0.0, w.bare_rounds);
    for (double r : walks) {
        total += r;
        bare_total += std::min(bare, r);
    }
    *bus_ms = 0;
    if (total <= 0) return 0;
    const double rounds_per_block = total / static_cast<double>(walks.size());
    // Each round waits one DRAM latency plus the block's share of its L2 round trips.
    const double round_ms = latency_ms + (rounds_per_block > 0 ? w.l2_rounds / rounds_per_block : 0.0) * l2_ms +
                            w.chain_cycles / clock_per_ms;
    // One block's bytes per round that moves bytes (all of them but its bare rounds).
    const double bytes_per_round = total > bare_total ? w.dram_bytes / (total - bare_total) : 0.0;
    const double bw_bytes_per_ms = bandwidth_gbs * 1e6;
    const long long slots = static_cast<long long>(sm_count) * std::max(1, w.blocks_per_sm);
    using Event = std::pair<double, bool>;  // rounds done when it happens; the block has bare rounds
    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> finish;
    std::priority_queue<double, std::vector<double>, std::greater<double>> enter;  // bare rounds begin
    std::size_t next = 0;
    long long in_bare = 0;    // resident blocks in their bare rounds
    double done = 0, ms = 0;  // rounds every resident block has walked so far, and the time
    const auto enter_bare = [&] {  // the blocks whose bare rounds have begun by `done`
        for (; !enter.empty() && enter.top() <= done; enter.pop()) ++in_bare;
    };
    while (next < walks.size() || !finish.empty()) {
        while (next < walks.size() && static_cast<long long>(finish.size()) < slots) {
            const double r = walks[next++], b = std::min(bare, r);
            finish.push({done + r, b > 0});
            if (b > 0) enter.push(done + r - b);
        }
        enter_bare();
        double until = finish.top().first;
        if (!enter.empty()) until = std::min(until, enter.top());
        const double a = static_cast<double>(finish.size()) - static_cast<double>(in_bare);
        const double bus = a * bytes_per_round / bw_bytes_per_ms;
        ms += (until - done) * std::max(round_ms, bus);
        if (bus > round_ms) *bus_ms += (until - done) * bus;
        done = until;
        enter_bare();  // before the finished blocks leave: each left its bare rounds' count
        while (!finish.empty() && finish.top().first <= done) {
            if (finish.top().second) --in_bare;
            finish.pop();
        }
    }
    return ms;
}

}  // namespace

KernelTime kernel_time(const KernelWork& w_in, const DeviceProfile& dev, double launch_ms) {
    KernelWork w = w_in;
    if (!w.walks.empty()) {
        w.blocks = static_cast<long long>(w.walks.size());
        w.rounds = *std::max_element(w.walks.begin(), w.walks.end());
    }
    const std::string fn = "kernel_time";
    if (w.blocks < 0) detail::invalid(fn, "blocks", w.blocks, "must be >= 0");
    if (w.blocks > 0 && w.blocks_per_sm < 1)
        detail::invalid(fn, "blocks_per_sm", w.blocks_per_sm, "must be >= 1 (a block that cannot be resident never runs)");
    detail::require(w.rounds >= 0 && w.l2_rounds >= 0 && w.wavefronts >= 0 && w.instructions >= 0 && w.dram_bytes >= 0 &&
                        w.l2_requests >= 0 && launch_ms >= 0,
                    fn, "rounds, wavefronts, instructions, dram_bytes, l2_requests and launch_ms must be >= 0");
    detail::require(dev.sm_count > 0 && dev.sm_clock_mhz > 0 && dev.bandwidth_gbs > 0, fn,
                    "the profile (\"" + dev.name + "\") needs SMs, a clock and a bandwidth");
    KernelTime t;
    t.launch_ms = launch_ms;
    t.ms = launch_ms;
    if (w.blocks == 0) return t;
    const double clock_per_ms = dev.sm_clock_mhz * 1e3;
    const double l2_ms = dev.l2_latency_ns * 1e-6;
    // Warm: the DRAM round trips are L2 hits, the bytes come at the L2's bandwidth.
    const double latency_ms = w.warm && dev.l2_latency_ns > 0 ? l2_ms : dev.idle_latency_ns * 1e-6;
    const double bandwidth_gbs = dev.bandwidth_gbs * (w.warm && dev.l2_bytes > 0 ? kL2OverDram : 1.0);
    // The busiest SM: blocks are dealt to SMs as slots free up; with every block doing the same
    // work the busiest SM gets ceil(blocks / SMs) of them, in ceil(that / resident) waves.
    t.busiest_blocks = std::ceil(static_cast<double>(w.blocks) / dev.sm_count);
    t.waves = std::ceil(t.busiest_blocks / w.blocks_per_sm);
    // DRAM: the bytes at the bandwidth, and the latency before the first of them arrive.
    // (Warm: the L2 serves reads and writes alike.)
    t.dram_ms = (w.warm ? w.dram_bytes / (bandwidth_gbs * 1e6)
                        : dram_ms(w.dram_bytes - w.dram_written, w.dram_written, dev)) +
                (w.dram_bytes > 0 ? latency_ms : 0.0);
    // The walk, round by round (Little's law per round): the resident blocks advance together,
    // a round taking the latency or, when they ask for more bytes than the bus moves in that
    // time, those bytes at the bandwidth. Blocks start in launch order as slots free up.
    double bus_ms = 0;
    t.walk_ms = walk_ms(w, bandwidth_gbs, dev.sm_count, latency_ms, l2_ms, clock_per_ms, &bus_ms);
    // The SM's load/store pipe serves one wavefront per clock; four schedulers issue one warp
    // instruction each per clock.
    t.lsu_ms = t.busiest_blocks * w.wavefronts / clock_per_ms;
    t.issue_ms = t.busiest_blocks * w.instructions / (4.0 * clock_per_ms);
    // The L2's slices look up one request's tag each per clock, whatever its size: a kernel of
    // small requests (a sector each) can be held to their rate before the bytes bind.
    t.l2_ms = dev.l2_lookups_per_ns > 0 ? w.l2_requests / (dev.l2_lookups_per_ns * 1e6) : 0.0;
    const std::pair<double, KernelLimit> bounds[] = {{t.dram_ms, KernelLimit::dram},
                                                     {t.walk_ms, KernelLimit::walk},
                                                     {t.lsu_ms, KernelLimit::lsu},
                                                     {t.issue_ms, KernelLimit::issue},
                                                     {t.l2_ms, KernelLimit::l2_requests}};
    double worst = 0;
    for (const auto& [ms, which] : bounds)
        if (ms > worst) {
            worst = ms;
            t.limit = which;
        }
    // A walk that spent most of its time waiting for the bus, not for latencies, is bandwidth-bound.
    if (t.limit == KernelLimit::walk && bus_ms > 0.5 * t.walk_ms) t.limit = KernelLimit::dram;
    t.ms = launch_ms + worst;
    return t;
}

double kernels_time_ms(const std::vector<KernelWork>& kernels, const DeviceProfile& dev,
                       std::vector<KernelTime>* parts) {
    double ms = 0;
    if (parts) parts->clear();
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        const KernelTime t = kernel_time(kernels[i], dev, (i == 0 ? kLaunchOverheadUs : kNextKernelUs) * 1e-3);
        ms += t.ms;
        if (parts) parts->push_back(t);
    }
    return ms;
}

}  // namespace wb::model
