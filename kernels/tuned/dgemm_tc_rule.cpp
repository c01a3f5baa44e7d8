/// \file tuned/dgemm_tc_rule.cpp
/// \brief The tensor-core DGEMM's default launch (host code; dgemm_tc_rule.hpp): its tile, its
///        split of k, and whether the tensor cores pay at all against the FMA kernels.
#include "tuned/dgemm_tc_rule.hpp"

#include "launch_checks.hpp"
#include "tuned/dgemm_tensor_core.hpp"
#include "tuned/gemm_default_rule.hpp"
#include "tuned/gemm_pack.hpp"
#include "tuned/gemm_rule_common.hpp"
#include "tuned/gemm_splitk.hpp"
#include "tuned/tensor_core_launch.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace wb::tuned {
namespace {

using launch_checks::ceil_div;
using launch_checks::sm_count;
using rule::kSumBytesPerSecond;
using rule::kSumLaunchSeconds;
using rule::split_candidates;

constexpr double kStreamShare = 0.9;       // of the theoretical bandwidth a read stream reaches (chapter 0: 0.93)
constexpr double kLatencySeconds = 700e-9; // DRAM latency under load (chapter 0; the h100/h200 presets)
/// Little's law with a margin of 2, as GEMV's rule 1 asks (derive/gemv.cpp): a block's pipeline
/// holds STAGES - 1 tiles in flight only just after it issues, and drains towards STAGES - 2
/// while it waits, and the latency grows as the bus fills. Without the margin the rule took one
/// block per SM on skinny C (16 x 8192 x 4096: split 2, 0.84 of the sweep's best; split 3, which
/// the margin picks, 0.95: H200, docs/notes/gemm.md); where C has blocks for every slot the bytes
/// in flight never bind, and no other choice of the held-out shapes moves.
constexpr double kLittleMargin = 2.0;

/// What the rule reads of a device: its SMs, SM clock and theoretical DRAM bandwidth (tc::Machine),
/// and each tile's resident blocks per SM. From the device itself (its attributes and the
/// occupancy calculator), or from a profile where the launch is predicted for a named device
/// without running there.
struct TcMachine : tc::Machine {
    int resident[kDgemmTcTileCount] = {};
};

TcMachine machine_of(int device) {
    TcMachine mc;
    static_cast<tc::Machine&>(mc) = tc::machine();
    for (int i = 0; i < kDgemmTcTileCount; ++i) mc.resident[i] = dgemm_tc_blocks_or_sm90(device, i);
    return mc;
}

/// A profile's machine: its counts, and the tiles' blocks per SM as compiled for sm_90 (the
/// tensor-core kernel exists for sm_90 and later only).
TcMachine machine_of(const DeviceProfile& dev) {
    TcMachine mc;
    static_cast<tc::Machine&>(mc) = tc::machine(dev);
    for (int i = 0; i < kDgemmTcTileCount; ++i) mc.resident[i] = kDgemmTcTiles[i].sm90_blocks;
    return mc;
}

/// The tensor-core kernel's time for `split` slices of k (seconds; -1 where the split does not
/// apply), the FMA estimate's terms with the tensor cores' numbers: the tile's flops at the SM's
/// FP64 tensor-core rate (kTensorOverFmaRate x the FP64 lanes x 2 flops x the clock) shared by
/// the blocks resident on it, in waves of SMs x resident blocks, each block paying its pipeline
/// fill (STAGES - 1 k-tiles); no faster than its bytes at the rate its blocks can stream (Little's
/// law: the bytes their pipelines keep in flight over the DRAM latency, at most the stream rate);
/// a split adds its second pass. Split k pays where C has fewer tiles than the GPU has block
/// slots: with long k (256 x 256 x 262144 is 16 tiles of 64 x 64 for 396 slots) for the tensor
/// cores' time, with skinny C (8192 x 8 x 8192: 64 tiles of 128 x 16, A's 512 MB to stream) for
/// the bytes in flight.
double tc_seconds(const GemmArgs<double>& a, int split, const TcMachine& mc, int index) {
    const DgemmTcTile tile = kDgemmTcTiles[index];
    const auto [kc, slices] = splitk::slice_k(std::max(1, a.k), split, tile.tile_k);
    if (split > 1 && (slices < split || static_cast<double>(slices) * a.m * a.n * sizeof(double) > kMaxWorkspaceBytes))
        return -1;
    const int resident = mc.resident[index];
    const double fp64_lanes = 64;  // FP64 FMA lanes per SM where the tensor cores run (sm_90: device_profile.cpp)
    const double sm_flops = kTensorOverFmaRate * fp64_lanes * 2.0 * std::max(1e3, mc.sm_hz);
    const long long blocks = ceil_div(a.m, tile.tile_m) * ceil_div(a.n, tile.tile_n) * slices;
    const long long slots = static_cast<long long>(mc.sms) * resident;
    const double waves = static_cast<double>((blocks + slots - 1) / slots);
    const double kt = static_cast<double>(slices > 1 ? kc : std::max(1, a.k)) / tile.tile_k + (tile.stages - 1);
    const double block_s = 2.0 * tile.tile_m * tile.tile_n * tile.tile_k * kt / (sm_flops / resident);
    double seconds = waves * block_s;
    const double c_io = a.beta == 0.0 ? 1.0 : 2.0;
    const double bytes = sizeof(double) * (static_cast<double>(a.m) * a.k + static_cast<double>(a.k) * a.n + c_io * a.m * a.n);
    // The stream: kStreamShare of the theoretical bandwidth (chapter 0's read ceiling is 93% of it
    // on the H200), or what the resident blocks keep in flight per DRAM latency: each block's
    // STAGES - 1 tiles ahead, of the operand rows inside C.
    const double theoretical = mc.dram_bytes_per_second;
    const double per_block = (tile.stages - 1.0) * tile.tile_k * sizeof(double) *
                             (std::min(tile.tile_m, std::max(1, a.m)) + std::min(tile.tile_n, std::max(1, a.n)));
    const double in_flight = per_block * static_cast<double>(std::min(blocks, slots));
    const double stream = theoretical > 0 ? std::min(kStreamShare * theoretical, in_flight / (kLittleMargin * kLatencySeconds))
                                          : kSumBytesPerSecond;  // no attributes: the FMA rule's stream rate
    seconds = std::max(seconds, bytes / stream);
    if (slices > 1)
        seconds += (2.0 * slices + c_io) * a.m * a.n * sizeof(double) / kSumBytesPerSecond + kSumLaunchSeconds;
    return seconds;
}

/// The fraction of a tile grid's area inside C (its useful work).
double useful(const GemmArgs<double>& a, int tm, int tn) {
    return static_cast<double>(a.m) * a.n /
           (static_cast<double>(ceil_div(a.m, tm)) * tm * static_cast<double>(ceil_div(a.n, tn)) * tn);
}

/// The tensor cores' tile: a skinny one where C is one of its tiles wide (the long operand then
/// streams once, and the skinny tile wastes least: 128 x 16 for n <= 16, 16 x 128 for m <= 16);
/// 64 x 64 otherwise, whose operand reuse (64 rows and columns per tile against 16) wins as soon
/// as C is two skinny tiles wide (8192 x 40 x 8192: 0.79x cuBLAS in 128 x 16 tiles, 1.01x in
/// 64 x 64, H200).
int tc_tile_for(const GemmArgs<double>& a) {
    for (int i = 1; i < kDgemmTcTileCount; ++i) {
        const DgemmTcTile t = kDgemmTcTiles[i];
        if (dgemm_tc_skinny(t) && (t.tile_n < t.tile_m ? a.n <= t.tile_n : a.m <= t.tile_m) &&
            useful(a, t.tile_m, t.tile_n) > useful(a, kDgemmTcTile.tile_m, kDgemmTcTile.tile_n))
            return i;
    }
    return 0;
}

/// A tensor-core launch of tile `index` (the 64 x 64 tile leaves the tile fields 0).
}  // namespace

GemmLaunch dgemm_tc_launch(int index, int split) {
    GemmLaunch g;
    g.math = 2;
    g.split_k = split > 1 ? split : 0;
    if (index > 0) {
        g.tile_m = kDgemmTcTiles[index].tile_m;
        g.tile_n = kDgemmTcTiles[index].tile_n;
        g.tile_k = kDgemmTcTiles[index].tile_k;
    }
    return g;
}

namespace {

/// Tile `index`'s launch with the least tc_seconds over the splits, and that time (a split must
/// win by more than its model's noise, 3%).
std::pair<GemmLaunch, double> best_split(const GemmArgs<double>& a, const TcMachine& mc, int index) {
    GemmLaunch g = dgemm_tc_launch(index, 0);
    double best_s = tc_seconds(a, 1, mc, index);
    for (int split : split_candidates()) {
        if (split < 2) continue;
        const double s = tc_seconds(a, split, mc, index);
        if (s > 0 && s < 0.97 * best_s) {
            best_s = s;
            g.split_k = split;
        }
    }
    return {g, best_s};
}

/// The large-C tile of least traffic (96 x 128 x 32: dgemm_tensor_core.hpp).
constexpr int kLeastTrafficTile = dgemm_tc_tile_index(96, 128);
static_assert(kLeastTrafficTile > 0, "kDgemmTcTiles holds the 96 x 128 tile");

/// The tensor cores' launch on machine `mc`: the tile that wastes least, the split with the least
/// tc_seconds. Where that is 64 x 64 unsplit (C of a wave of tiles or more) and both operands take
/// 16-byte copies, the 96 x 128 tile unsplit instead wherever its time is within the model's noise
/// (3%) of 64 x 64's: the model counts both at the same rate per SM clock, which they run at (H200,
/// 4096^3), but not the clock the board holds under each one's traffic: at 8192^3 the 64 x 64 tile
/// read 15-22 GB from DRAM at 1.86-1.87 GHz where 96 x 128 read 8.1-8.2 GB at 1.96-1.98 (Nsight
/// Compute at the boost clock, H200, \ref notes_gemm, session 25). Where its waves cost more
/// (4096^3: 11 of 132 tiles against 64 x 64's 16 of 264, 3.9% more in the model, 3% slower
/// measured) 64 x 64 stays.
GemmLaunch tc_default_on(const GemmArgs<double>& a, const TcMachine& mc) {
    const int index = tc_tile_for(a);
    const auto [g, s] = best_split(a, mc, index);
    // Split launches stay: one block per SM of the large tile fills the SMs with fewer slices, a
    // trade the model has not been measured on.
    if (index == 0 && g.split_k == 0 && mc.resident[kLeastTrafficTile] > 0 && pack::aligned16(a.A, a.lda) &&
        pack::aligned16(a.B, a.ldb)) {
        const double s_large = tc_seconds(a, 1, mc, kLeastTrafficTile);
        if (s_large > 0 && 0.97 * s_large <= s) return dgemm_tc_launch(kLeastTrafficTile, 0);
    }
    return g;
}

}  // namespace

GemmLaunch dgemm_tc_default(const GemmArgs<double>& a, int device) { return tc_default_on(a, machine_of(device)); }

GemmLaunch dgemm_tc_default(const GemmArgs<double>& a, const DeviceProfile& dev) {
    return tc_default_on(a, machine_of(dev));
}

std::vector<GemmLaunch> dgemm_tc_launches(const GemmArgs<double>& a, int dev) {
    std::vector<GemmLaunch> v;
    for (int index = 0; index < kDgemmTcTileCount; ++index) {
        const DgemmTcTile t = kDgemmTcTiles[index];
        v.push_back(dgemm_tc_launch(index, 0));
        const long long tiles = ceil_div(std::max(1, a.m), t.tile_m) * ceil_div(std::max(1, a.n), t.tile_n);
        const long long slots =
            static_cast<long long>(sm_count()) * dgemm_tc_blocks_or_sm90(dev, index);
        for (int split : split_candidates()) {
            const auto [kc, slices] = splitk::slice_k(std::max(1, a.k), split, t.tile_k);
            (void)kc;
            if (split < 2 || slices < split || tiles * split > 2 * slots ||
                static_cast<double>(slices) * std::max(1, a.m) * std::max(1, a.n) * sizeof(double) > kMaxWorkspaceBytes)
                continue;
            v.push_back(dgemm_tc_launch(index, split));
        }
    }
    // Unaligned operands: each launch also with them copied to aligned columns first.
    if (!pack::aligned16(a.A, a.lda) || !pack::aligned16(a.B, a.ldb)) {
        const std::size_t in_place = v.size();
        for (std::size_t i = 0; i < in_place; ++i) {
            GemmLaunch g = v[i];
            g.align = 2;
            v.push_back(g);
        }
    }
    return v;
}

}  // namespace wb::tuned
