// gemv.cpp — chapter 6's GEMV derivation (derive/derivation.hpp): White's Mv procedure on the
// T10 (§4.5.1, Eq. 4.24), the tuned kernel's launch from Little's law and the waves elsewhere.
#include "derive/derivation.hpp"
#include "derive/derive_internal.hpp"

#include "model/memory.hpp"
#include "model/model_internal.hpp"
#include "model/occupancy.hpp"
#include "model/white.hpp"

#include <algorithm>
#include <initializer_list>
#include <string>

namespace wb::derive {

using model::detail::ceil_div;
using model::detail::fmt;

namespace {

/// White §4.5.1 on the T10: dBlk.x from Step 2 (the widest padded tile, Eq. 4.11, that fits
/// shared memory), dBlk.y from Step 1 (8192 active threads, Eq. 4.16), dGrd.x = n / dBlk.x.
void white_mv(const DeviceProfile& dev, long long n, Derivation& d) {
    const model::WhiteLaunch l = model::derive_mv_launch_t10(n, dev);
    const int smem = (l.dblk_x * l.dblk_x + l.dblk_x) * 4;
    const int threads = l.dblk_x * l.dblk_y;
    const int per_sm = model::white_active_blocks_per_sm(dev, threads, 15, smem);
    const long long active = std::min<long long>(static_cast<long long>(dev.sm_count) * per_sm, l.dgrd_x) * threads;
    d.params.push_back({"dBlk.x", l.dblk_x, "most shared-memory reuse (rule 2, White Eq. 4.11)",
                        "tile of (dBlk.x^2 + dBlk.x) x 4 B = " + std::to_string(smem) + " B fits " +
                            std::to_string(dev.smem_per_block_bytes) + " B; twice as wide does not"});
    d.params.push_back({"dBlk.y", l.dblk_y, "saturate the bus (rule 1, White Eq. 4.16, 4.24)",
                        std::to_string(active) + " active threads >= 8192 (the smallest dBlk.y that gets there)"});
    d.params.push_back({"dGrd.x", l.dgrd_x, "one block per tile of rows (White Eq. 4.16b)",
                        std::to_string(n) + " / " + std::to_string(l.dblk_x)});
    d.params.push_back({"partitions", static_cast<long long>(detail::white_partitions(dev, l, threads, 15, smem)),
                        "most partitions (rule 4, White Eq. 3.13)",
                        fmt("%.1f", detail::white_partitions(dev, l, threads, 15, smem)) + " of " +
                            std::to_string(dev.partitions) + " partitions touched", false});
}

/// Rule 1 for an unroll: the smallest of `values` (the ones the tuned kernel instantiates) whose
/// resident threads (registers regs_of(p)) keep bytes_of(p) each in flight, together twice
/// Little's law per SM (the margin hides each block's reduction tail); the largest that fits
/// where none gets there.
template <class Regs, class Bytes>
Derived unroll(const DeviceProfile& dev, const std::string& name, int threads, std::initializer_list<int> values,
               Regs regs_of, Bytes bytes_of) {
    const double need = 2.0 * model::bytes_in_flight_needed_per_sm(dev);
    int pick = *values.begin();
    double have = 0;
    int resident = 0;
    for (int p : values) {
        const auto o = model::occupancy(dev, threads, std::min(regs_of(p), dev.max_regs_per_thread), 0);
        if (o.blocks_per_sm < 1) break;
        pick = p;
        resident = o.active_threads_per_sm;
        have = static_cast<double>(resident) * bytes_of(p);
        if (have >= need) break;
    }
    return {name, pick, "Little's law x 2, the reduction tail's margin (rule 1)",
            std::to_string(resident) + " resident threads x " + std::to_string(bytes_of(pick)) + " B = " +
                fmt("%.0f B", have) + " per SM against 2 x " + fmt("%.0f B", need / 2) +
                (have < need ? " (capped by registers)" : "")};
}

}  // namespace

Derivation derive_gemv(const DeviceProfile& dev, bool trans, long long m, long long n, int elem_bytes) {
    detail::check_shape("derive_gemv", elem_bytes, m, n);
    Derivation d;
    d.op = "gemv";
    d.shape = std::string(trans ? "T " : "N ") + std::to_string(m) + " x " + std::to_string(n) + " " +
              detail::precision(elem_bytes);
    if (trans && elem_bytes == 4 && detail::white_case(dev, m, n)) {
        white_mv(dev, n, d);
        return d;
    }
    const int w = 16 / elem_bytes;  // elements per 16-byte load
    d.params.push_back(bytes_in_flight_per_sm(dev));
    constexpr int kThreads = 256;   // 8 warps: two per scheduler of a 4-scheduler SM
    if (!trans) {
        // Coalescing: a row of threads reads one 128-byte line (4 sectors) of a column per load.
        const int bx = std::max(1, 4 * dev.segment_bytes / 16);
        d.params.push_back({"block_x", bx, "coalescing (rule 2: whole lines)",
                            std::to_string(bx) + " threads x 16 B = " + std::to_string(16 * bx) + " B per column"});
        const int q = kThreads / bx;
        d.params.push_back({"block_y", q, "thread rows sharing a tile's reduction", std::to_string(kThreads) +
                                                                                      " threads per block / block_x"});
        // Rule 1: U 16-byte loads of A (4 registers each) and U elements of x, two batches in flight.
        auto regs_n = [&](int p) { return 32 + 2 * p * (4 + elem_bytes / 4); };
        // The tuned N kernel instantiates U = 2, 4, 8 (kernels/tuned/gemv.cu).
        const Derived loads = unroll(dev, "U", kThreads, {2, 4, 8}, regs_n, [](int p) { return 2 * p * 16; });
        const int u = static_cast<int>(loads.value);
        d.params.push_back(loads);
        const int regs = std::min(regs_n(u), dev.max_regs_per_thread);
        const Derived bps = blocks_per_sm(dev, kThreads, regs, 0);
        d.params.push_back(bps);
        const long long tiles = ceil_div(m, static_cast<long long>(bx) * w);
        d.params.push_back(wave_split(dev, tiles, static_cast<int>(bps.value), std::max<long long>(1, n / (q * u))));
        return d;
    }
    // T: a warp reads down a column (32 lanes x 16 B), 8 warps split the rows, C columns per block.
    d.params.push_back({"block_x", dev.warp_size, "coalescing (rule 2: a warp along a column)",
                        std::to_string(dev.warp_size) + " lanes x 16 B = " + std::to_string(16 * dev.warp_size) +
                            " B of a column per load"});
    const int q = kThreads / dev.warp_size;
    d.params.push_back({"block_y", q, "warps splitting the rows", std::to_string(kThreads) + " threads per block"});
    // Rule 1: C columns each one 16-byte load, plus x, two steps in flight: 2 (C + 1) x 16 B a thread.
    auto regs_t = [](int p) { return 32 + 2 * (p + 1) * 4; };
    // The tuned T kernel instantiates C = 2, 4, 8 (kernels/tuned/gemv.cu).
    const Derived loads = unroll(dev, "C", kThreads, {2, 4, 8}, regs_t, [](int p) { return 2 * (p + 1) * 16; });
    const int c = static_cast<int>(loads.value);
    d.params.push_back(loads);
    const int regs = std::min(regs_t(c), dev.max_regs_per_thread);
    const Derived bps = blocks_per_sm(dev, kThreads, regs, 0);
    d.params.push_back(bps);
    const long long tiles = ceil_div(n, c);
    d.params.push_back(wave_split(dev, tiles, static_cast<int>(bps.value),
                                  std::max<long long>(1, m / (2LL * dev.warp_size * q * w))));
    return d;
}

}  // namespace wb::derive
