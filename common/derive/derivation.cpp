// derivation.cpp — the op-independent launch rules of chapter 6 (declared in derive/derivation.hpp).
// Each rule cites the equation it generalizes; none holds a constant read off a sweep.
#include "derive/derivation.hpp"

#include "model/memory.hpp"
#include "model/model_internal.hpp"
#include "model/occupancy.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace wb::derive {

using model::detail::fmt;
using model::detail::invalid;

long long Derivation::value(const std::string& parameter) const {
    for (const Derived& d : params)
        if (d.parameter == parameter) return d.value;
    throw std::invalid_argument("Derivation::value: parameter (\"" + parameter + "\") must be one of " + launch());
}

std::string Derivation::launch() const {
    std::string s;
    for (const Derived& d : params)
        if (d.sets_launch) s += (s.empty() ? "" : " ") + d.parameter + "=" + std::to_string(d.value);
    return s;
}

Derived bytes_in_flight_per_sm(const DeviceProfile& dev) {
    // Little's law: what is in flight = arrival rate x time in the system (GB/s x ns = bytes).
    const double per_sm = model::bytes_in_flight_needed_per_sm(dev);
    return {"bytes in flight per SM", static_cast<long long>(std::ceil(per_sm)), "Little's law (rule 1)",
            fmt("%.0f GB/s", dev.bandwidth_gbs) + " x " + fmt("%.0f ns", dev.latency_ns) + " / " +
                std::to_string(dev.sm_count) + " SMs = " + fmt("%.0f B", per_sm), false};
}

Derived active_threads_needed(const DeviceProfile& dev, int bytes_per_thread) {
    if (bytes_per_thread < 1) invalid("active_threads_needed", "bytes_per_thread", bytes_per_thread, "must be >= 1");
    if (dev.partitions > 0) {
        // White Eq. 4.14: a partition serves a half-warp's request in 8 cycles, so latency / 8
        // warps per partition keep it busy, for each of the partitions.
        const double cycles = dev.latency_ns * dev.sm_clock_mhz / 1e3;
        const long long warps = std::llround(cycles) / 8;
        const long long t = warps * dev.partitions * dev.warp_size;
        return {"active threads", t, "saturate the bus (rule 1, White Eq. 4.14)",
                fmt("%.0f cycles", cycles) + " / 8 = " + std::to_string(warps) + " warps x " +
                    std::to_string(dev.partitions) + " partitions x " + std::to_string(dev.warp_size) + " threads", false};
    }
    const double bytes = model::bytes_in_flight_needed(dev);
    const long long t = static_cast<long long>(std::ceil(bytes / bytes_per_thread));
    return {"active threads", t, "Little's law (rule 1)",
            fmt("%.0f B", bytes) + " in flight / " + std::to_string(bytes_per_thread) + " B per thread", false};
}

Derived loads_per_thread(const DeviceProfile& dev, int resident_threads_per_sm, int load_bytes, int max_loads,
                         double margin) {
    const std::string fn = "loads_per_thread";
    if (resident_threads_per_sm < 1) invalid(fn, "resident_threads_per_sm", resident_threads_per_sm, "must be >= 1");
    if (load_bytes < 1) invalid(fn, "load_bytes", load_bytes, "must be >= 1");
    if (max_loads < 1) invalid(fn, "max_loads", max_loads, "must be >= 1");
    const double need = margin * model::bytes_in_flight_needed_per_sm(dev);
    int u = 1;
    while (u < max_loads && static_cast<double>(resident_threads_per_sm) * u * load_bytes < need) u *= 2;
    u = std::min(u, max_loads);
    const double have = static_cast<double>(resident_threads_per_sm) * u * load_bytes;
    return {"loads per thread", u, "Little's law (rule 1)",
            std::to_string(resident_threads_per_sm) + " threads x " + std::to_string(u) + " x " +
                std::to_string(load_bytes) + " B = " + fmt("%.0f B", have) + " per SM against " +
                fmt("%.0f B", need) + (have < need ? " (capped by registers)" : "")};
}

Derived blocks_per_sm(const DeviceProfile& dev, int threads_per_block, int regs_per_thread, int smem_per_block) {
    const model::Occupancy o = model::occupancy(dev, threads_per_block, regs_per_thread, smem_per_block);
    return {"blocks per SM", o.blocks_per_sm, "occupancy (White Eq. 3.7, with granularity)",
            std::to_string(threads_per_block) + " threads, " + std::to_string(regs_per_thread) + " registers, " +
                std::to_string(smem_per_block) + " B shared: limited by " + model::limiter_name(o.limiter) + " (" +
                fmt("%.0f%%", 100 * o.occupancy) + " occupancy)", false};
}

Derived wave_split(const DeviceProfile& dev, long long tiles, int blocks_per_sm, long long max_y,
                   const std::string& parameter) {
    const std::string fn = "wave_split";
    if (tiles < 1) invalid(fn, "tiles", tiles, "must be >= 1");
    if (blocks_per_sm < 1) invalid(fn, "blocks_per_sm", blocks_per_sm, "must be >= 1");
    const long long slots = static_cast<long long>(dev.sm_count) * blocks_per_sm;
    // A split's blocks are equally long: one block past the wave doubles the time, an idle slot
    // costs only its share. So the most blocks per tile that stay within one wave.
    long long y = tiles >= slots ? 1 : slots / tiles;
    y = std::clamp<long long>(y, 1, std::max<long long>(1, max_y));
    const double before = static_cast<double>(tiles) / slots, after = static_cast<double>(tiles * y) / slots;
    return {parameter, y, "waves (rule 5, KBLAS Y)",
            parameter + " = " + std::to_string(y) + ": " + fmt("%.2f", before) + " waves of " +
                std::to_string(slots) + " slots (" + std::to_string(dev.sm_count) + " SMs x " +
                std::to_string(blocks_per_sm) + ") without it, " + fmt("%.2f", after) + " with it" +
                (y == max_y && y > 1 ? " (capped: each block keeps its minimum of work)" : "")};
}

}  // namespace wb::derive
