/// \file model/kernel_time.hpp
/// \brief The time of one kernel from what its blocks do (architecture §6): the largest of four
///        bounds — DRAM bandwidth, the latency walk of its blocks (Little's law per block), the
///        SM's load/store pipe (L1 and shared-memory wavefronts) and its instruction issue —
///        over the waves its grid takes, plus the fixed cost of the launch.
///
/// Each op's model (model/\<op\>.cpp) describes its kernels in these terms (how many blocks, what
/// one block reads, how many dependent memory round trips its warps wait for one after the
/// other, how many wavefronts and instructions it issues) and this file times them, so every
/// op is timed by the same physics:
///
///   t = launch + max(DRAM bytes / bandwidth + one latency,   (the stream, and its first bytes)
///                    waves x (rounds x (DRAM latency + chain) + L2 rounds x L2 latency),  (the walk)
///                    blocks per SM x wavefronts / clock,     (one L1/shared wavefront per clock)
///                    blocks per SM x instructions / (4 clock))  (four schedulers per SM)
///
/// where "blocks per SM" is the busiest SM's share of the grid, ceil(blocks / SMs), and "waves"
/// how many times that SM fills its resident slots, ceil(blocks per SM / resident blocks).
/// A block's warps run side by side, so a block's walk is that of its busiest warp: the rounds
/// of dependent loads it waits for (a loop that keeps u loads in flight and makes i iterations
/// waits for about i / u rounds). The bandwidth bound and the walk together are Little's law:
/// bytes in flight / latency cannot exceed the bandwidth, and a kernel that keeps too few bytes
/// in flight waits for its rounds instead. The walk is followed round by round: the resident
/// blocks (at most SMs x resident per SM, later blocks taking the slots of those that finish)
/// advance one round per max(latency, the bytes all of them read in that round / bandwidth),
/// so a grid whose blocks walk unequal lengths (a triangle) pays the bandwidth while many run
/// and the latency once only its longest walks are left. The walk's latency is the profile's idle latency
/// (dev.idle_latency_ns): a walk-bound kernel is by definition far from saturating the bus.
///
/// Plain host arithmetic on a DeviceProfile: runs and is unit-tested without a GPU.
#pragma once

#include "device_profile.hpp"

#include <string>
#include <vector>

namespace wb::model {

/// L2-to-SM bandwidth assumed as a multiple of DRAM bandwidth (Hopper: roughly 2-2.5x; the
/// profile has no L2 figure).
constexpr double kL2OverDram = 2.0;

/// What one kernel does, as the timing model needs it. Per-block quantities are those of the
/// busiest block (every block of the ladder's kernels does the same work, up to the edges).
struct KernelWork {
    long long blocks = 0;        ///< blocks in the grid
    int blocks_per_sm = 1;       ///< resident blocks per SM (occupancy(); at least 1)
    double rounds = 0;           ///< dependent DRAM round trips one block's busiest warp waits for
    double l2_rounds = 0;        ///< dependent round trips to the L2 (hits) it waits for besides
    double chain_cycles = 0;     ///< per round, cycles of dependent work that waits for the round's
                                 ///< data and must finish before the next round's loads go out
                                 ///< (barriers, a reduction's chain of shared loads and adds)
    double wavefronts = 0;       ///< L1 / shared-memory wavefronts one block issues (bank
                                 ///< conflicts and uncoalesced lines included)
    double instructions = 0;     ///< warp instructions one block issues
    double dram_bytes = 0;       ///< the whole kernel's DRAM traffic
    double dram_written = 0;     ///< of which written (the rest read): dram_ms() prices the mix
    double l2_requests = 0;      ///< the whole kernel's L2 requests (tag lookups), where they, not the
                                 ///< bytes, may bind: requests of a sector or two (0: not counted)
    /// Unequal blocks (a triangle's block rows or columns): the rounds of each block in launch
    /// order (`blocks` and `rounds` are then read off it). Empty: every block walks `rounds`.
    std::vector<double> walks;
    /// Of each block's rounds, the last `bare_rounds` move none of its bytes (a tile loop's last
    /// tile, used after its loads, and the column sums written at the block's end): while a block
    /// is in them the other resident blocks alone keep the bus busy (Little's law per round), so a
    /// grid of few resident blocks per SM pays for each block's end, one of many does not.
    double bare_rounds = 0;
    /// The bytes it reads are in the L2 already (an iterative solver's next call on a matrix that
    /// fits): its round trips wait for the L2's latency and its bytes move at the L2's bandwidth
    /// (kL2OverDram x DRAM).
    bool warm = false;
};

/// Latencies of the instructions a round's dependent chain is made of, cycles (Hopper
/// microbenchmarks: a shared-memory load about 30 cycles, an FP32 FMA 4 and an FP64 FMA 8, a
/// barrier whose warps have all arrived about 20). A chain of n dependent adds or FMAs after a
/// batch of shared loads costs kSharedLoadCycles + n x the add's latency.
constexpr double kSharedLoadCycles = 30;
constexpr double kFmaCycles = 4;
constexpr double kDfmaCycles = 8;
constexpr double kBarrierCycles = 20;
/// Warps an SM needs to keep a pipe busy: four per scheduler, one issuing while the others wait
/// out their last instruction's latency (an FMA's 4 cycles, a shared load's pipeline).
constexpr double kBusyWarps = 16;
/// Warp schedulers per SM on every GPU since Maxwell (compute 5.0): each issues one warp
/// instruction per clock.
constexpr int kWarpSchedulers = 4;

/// DRAM time of `read` and `written` bytes, ms: the read bandwidth (dev.bandwidth_gbs), lowered
/// towards the copy ceiling (dev.copy_over_read of it, reached at equal reads and writes) as the
/// written share grows: the bus loses time turning between reads and writes.
double dram_ms(double read_bytes, double written_bytes, const DeviceProfile& dev);

/// Which bound sets a kernel's time.
enum class KernelLimit { launch, dram, walk, lsu, issue, l2_requests };

/// "launch", "DRAM bandwidth", "latency walk", "L1/shared wavefronts", "instruction issue",
/// "L2 requests".
const char* kernel_limit_name(KernelLimit l);

/// A kernel's predicted time and its parts, milliseconds.
struct KernelTime {
    double ms = 0;          ///< launch + the largest bound
    double launch_ms = 0;   ///< the launch's fixed cost (launch_ms argument)
    double dram_ms = 0;     ///< DRAM bytes / bandwidth + one latency (the first bytes)
    double walk_ms = 0;     ///< waves x (rounds x idle latency + L2 rounds x L2 latency)
    double lsu_ms = 0;      ///< busiest SM's wavefronts / clock
    double issue_ms = 0;    ///< busiest SM's instructions / (4 x clock)
    double l2_ms = 0;       ///< L2 requests / the L2's lookups per ns (dev.l2_lookups_per_ns; 0: not known)
    double busiest_blocks = 0;  ///< ceil(blocks / SMs)
    double waves = 0;       ///< ceil(busiest_blocks / blocks_per_sm)
    KernelLimit limit = KernelLimit::launch;
};

/// Times `w` on `dev`; `launch_ms` is the fixed cost charged for starting it (kLaunchOverheadUs
/// for the first kernel of a call, kNextKernelUs for one queued behind another). Uses
/// dev.bandwidth_gbs (a live run sets it to the measured read ceiling), dev.idle_latency_ns,
/// dev.l2_latency_ns and dev.sm_clock_mhz. Throws std::invalid_argument on negative quantities, blocks_per_sm < 1 while
/// blocks > 0, or a profile without SMs or a clock.
KernelTime kernel_time(const KernelWork& w, const DeviceProfile& dev, double launch_ms);

/// The time of a call that runs `kernels` one after the other in one stream: the first pays
/// kLaunchOverheadUs, every later one kNextKernelUs (it was queued while the one before ran).
/// Returns the sum; `parts` (optional) receives each kernel's time.
double kernels_time_ms(const std::vector<KernelWork>& kernels, const DeviceProfile& dev,
                       std::vector<KernelTime>* parts = nullptr);

}  // namespace wb::model
