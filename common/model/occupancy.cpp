// occupancy.cpp — occupancy and grid metrics (declared in model/occupancy.hpp, architecture §6).
//
// Plain host arithmetic on a DeviceProfile; every formula names the equation it generalizes.
#include "model/occupancy.hpp"

#include "model/model_internal.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace wb::model {

using detail::ceil_div;
using detail::invalid;
using detail::round_up;

// ---------------------------------------------------------------------------------------------
// Occupancy
// ---------------------------------------------------------------------------------------------

const char* limiter_name(Limiter l) {
    switch (l) {
        case Limiter::blocks: return "blocks";
        case Limiter::threads: return "threads";
        case Limiter::registers: return "registers";
        case Limiter::shared_memory: return "shared memory";
    }
    return "?";
}

Occupancy occupancy(const DeviceProfile& dev, int threads_per_block, int regs_per_thread,
                    int smem_per_block) {
    const std::string fn = "occupancy";
    if (threads_per_block < 1 || threads_per_block > dev.max_threads_per_block)
        invalid(fn, "threads_per_block", threads_per_block,
                "must be in 1.." + std::to_string(dev.max_threads_per_block) + " on " + dev.name);
    if (regs_per_thread < 0 || regs_per_thread > dev.max_regs_per_thread)
        invalid(fn, "regs_per_thread", regs_per_thread,
                "must be in 0.." + std::to_string(dev.max_regs_per_thread) + " on " + dev.name);
    if (smem_per_block < 0 || smem_per_block > dev.smem_per_block_bytes)
        invalid(fn, "smem_per_block", smem_per_block,
                "must be in 0.." + std::to_string(dev.smem_per_block_bytes) + " on " + dev.name);

    Occupancy o;
    const int warp = dev.warp_size > 0 ? dev.warp_size : 32;
    const int warps_per_block = static_cast<int>(ceil_div(threads_per_block, warp));
    const int max_warps = dev.max_threads_per_sm / warp;

    o.limit_blocks = dev.max_blocks_per_sm;
    o.limit_threads = max_warps / warps_per_block;

    // Registers: per warp, rounded up to the allocation unit (CUDA occupancy calculator).
    const long long regs_per_warp = round_up(static_cast<long long>(regs_per_thread) * warp,
                                             dev.reg_alloc_unit);
    o.regs_per_block = static_cast<int>(regs_per_warp * warps_per_block);
    o.limit_registers = regs_per_warp == 0
                            ? dev.max_blocks_per_sm
                            : static_cast<int>(dev.regs_per_sm / regs_per_warp / warps_per_block);

    // Shared memory: per block, plus the per-block reservation, rounded up to the unit.
    const long long reserved = std::max(0, dev.smem_per_sm_bytes - dev.smem_per_block_bytes);
    o.smem_per_block = static_cast<int>(round_up(smem_per_block + reserved, dev.smem_alloc_unit));
    o.limit_shared_memory = o.smem_per_block == 0 ? dev.max_blocks_per_sm
                                                  : dev.smem_per_sm_bytes / o.smem_per_block;

    o.blocks_per_sm = o.limit_blocks;
    o.limiter = Limiter::blocks;
    const std::pair<int, Limiter> others[] = {{o.limit_threads, Limiter::threads},
                                              {o.limit_registers, Limiter::registers},
                                              {o.limit_shared_memory, Limiter::shared_memory}};
    for (const auto& [limit, which] : others)
        if (limit < o.blocks_per_sm) {
            o.blocks_per_sm = limit;
            o.limiter = which;
        }
    o.active_threads_per_sm = o.blocks_per_sm * threads_per_block;
    o.active_warps_per_sm = o.blocks_per_sm * warps_per_block;
    o.occupancy = max_warps > 0 ? static_cast<double>(o.active_warps_per_sm) / max_warps : 0.0;
    return o;
}

int white_active_blocks_per_sm(const DeviceProfile& dev, int threads_per_block, int regs_per_thread,
                               int smem_per_block) {
    const std::string fn = "white_active_blocks_per_sm";
    if (threads_per_block < 1 || threads_per_block > dev.max_threads_per_block)
        invalid(fn, "threads_per_block", threads_per_block,
                "must be in 1.." + std::to_string(dev.max_threads_per_block));
    if (regs_per_thread < 0) invalid(fn, "regs_per_thread", regs_per_thread, "must be >= 0");
    if (smem_per_block < 0) invalid(fn, "smem_per_block", smem_per_block, "must be >= 0");
    long long b = std::min<long long>(dev.max_blocks_per_sm, dev.max_threads_per_sm / threads_per_block);
    const long long regs_per_block = static_cast<long long>(regs_per_thread) * threads_per_block;
    if (regs_per_block > 0) b = std::min(b, dev.regs_per_sm / regs_per_block);
    if (smem_per_block > 0) b = std::min<long long>(b, dev.smem_per_sm_bytes / smem_per_block);
    return static_cast<int>(b);
}

// ---------------------------------------------------------------------------------------------
// Grid metrics
// ---------------------------------------------------------------------------------------------

GridMetrics grid_metrics(const DeviceProfile& dev, long long grid_blocks, int threads_per_block,
                         int blocks_per_sm) {
    const std::string fn = "grid_metrics";
    if (grid_blocks < 0) invalid(fn, "grid_blocks", grid_blocks, "must be >= 0");
    if (threads_per_block < 1) invalid(fn, "threads_per_block", threads_per_block, "must be >= 1");
    if (blocks_per_sm < 0) invalid(fn, "blocks_per_sm", blocks_per_sm, "must be >= 0");
    GridMetrics g;
    g.total_blocks = grid_blocks;
    g.total_threads = grid_blocks * threads_per_block;                           // Eq. 3.1
    const long long slots = static_cast<long long>(dev.sm_count) * blocks_per_sm;
    g.active_blocks = std::min(slots, grid_blocks);                              // Eq. 3.8
    g.active_threads = g.active_blocks * threads_per_block;                      // Eq. 3.9
    g.fragmented_blocks = g.active_blocks > 0 ? grid_blocks % g.active_blocks : 0;  // Eq. 3.10
    g.fragmented_threads = g.fragmented_blocks * threads_per_block;              // Eq. 3.11
    g.full_waves = g.active_blocks > 0 ? grid_blocks / g.active_blocks : 0;
    g.waves = slots > 0 ? static_cast<double>(grid_blocks) / static_cast<double>(slots) : 0.0;
    const long long last = g.fragmented_blocks > 0 ? g.fragmented_blocks : std::min(grid_blocks, slots);
    g.tail_fill = slots > 0 ? static_cast<double>(last) / static_cast<double>(slots) : 0.0;
    return g;
}

}  // namespace wb::model
