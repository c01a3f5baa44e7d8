// cg.cpp — the CG model per ladder step (declared in model/cg.hpp, architecture §6). Runs (and is
// tested) without a GPU.
#include "model/cg.hpp"

#include "model/model_internal.hpp"
#include "model/occupancy.hpp"
#include "model/kernel_time.hpp"
#include "model/symv.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace wb::model {

CgStageDesign cg_stage_design(const CgModelStep& step, int check_every) {
    const double per = 1.0 / (check_every > 0 ? check_every : 8);
    CgStageDesign d;
    if (!step) {  // the cuBLAS-composed peer: GEMV 2, dot 2, axpy 3 + 3, dot 1, scal 2, axpy 3
        d.vector_elems = 16;
        d.vector_launches = 8;  // 2 dots of 2 kernels, 3 AXPYs, SCAL
        d.round_trips = 2;
        return d;
    }
    const Stage stage = *step;
    if (stage == Stage::kNaive) {  // GEMV reads p, writes q; the rest is on the CPU
        d.vector_elems = 2;
        d.round_trips = 2;  // p sent, q brought back (pageable copies)
        d.host_vectors = true;
    } else if (stage == Stage::kShared) {  // GEMV 2, dot 2, axpy 3 + 3, dot 1, xpby 3
        d.vector_elems = 14;
        d.mv_launches = 2;      // x's chunk copied into constant memory, then the GEMV kernel
        d.vector_launches = 7;  // 2 x (partial + final) dots, 2 AXPYs, p update
        d.round_trips = 2;
    } else if (stage == Stage::kPattern) {  // GEMV 2, dot 2, x/r update 6, p update 3
        d.vector_elems = 13;
        d.vector_launches = 3;
        d.round_trips = per;
    } else if (stage == Stage::kAccess) {
        d.symmetric = true;
        d.vector_elems = 13;
        d.mv_launches = 3;  // diagonal, off-diagonal, reduction
        d.vector_launches = 3;
        d.round_trips = per;
    } else if (stage == Stage::kTuned) {  // SYMV 2, fused: p.q 2, x/r 6, p 3 (p, q the second time from L2)
        d.symmetric = true;
        d.vector_elems = 13;
        d.mv_launches = 2;  // symv kernel + deterministic reduction
        d.vector_launches = 1;
        d.round_trips = per;  // the status copy and its event, on the stream between two chunks
        d.graph = true;
    } else {
        throw std::invalid_argument(std::string("cg_stage_design: stage (\"") + stage_name(stage) +
                                    "\") has no CG model");
    }
    return d;
}

CgPersistentPlan cg_persistent_plan(long long n, int elem_bytes, const DeviceProfile& dev) {
    CgPersistentPlan pl;
    if (n <= 0 || dev.sm_count <= 0) return pl;
    const long long nt = (n + 63) / 64, tiles = nt * (nt + 1) / 2;
    const int want = tuned_symv_min_blocks(64, 4, elem_bytes);
    // The kernel's static shared memory: per group parity and tile of a group (2 x 2), row sums of
    // 4 warp pairs, column sums of 2 row halves and p of 2 x 64, and block_sum's 32 warp sums;
    // 16 bytes more (ptxas, sm_90: 8336 float, 16656 double).
    const long long stat = static_cast<long long>(elem_bytes) * (2 * 2 * (4 + 2 + 2) * 64 + 32) + 16;
    const long long reserve = 1024, tile = 64LL * 64 * elem_bytes;
    const int deal = cg_persistent_deal(elem_bytes);
    const long long units = (tiles + deal - 1) / deal;  // tiles are dealt in units of `deal`
    pl.grid = static_cast<int>(std::min<long long>({units, static_cast<long long>(want) * dev.sm_count, 1024}));
    const long long count = deal * ((units + pl.grid - 1) / pl.grid);  // the most tiles of a block
    const long long table = (count * 4 + 15) / 16 * 16;
    const long long room = std::min<long long>(dev.smem_per_block_bytes - stat, dev.smem_per_sm_bytes / want - reserve - stat) - table;
    pl.cache_tiles = static_cast<int>(std::min(count, std::max(0LL, room) / tile));
    pl.onchip_share = cg_persistent_share(tiles, pl.grid, pl.cache_tiles, deal);
    return pl;
}

double cg_persistent_share(long long tiles, int grid, int cache, int deal) {
    if (tiles <= 0 || grid <= 0 || deal < 1) return 0;
    const long long units = (tiles + deal - 1) / deal, q = units / grid, r = units % grid;  // r blocks: q + 1 units
    const long long c = std::max(0, cache);
    long long kept = r * std::min(c, deal * (q + 1)) + (grid - r) * std::min(c, deal * q);
    const long long short_by = units * deal - tiles;  // the last unit's missing tiles
    if (short_by > 0) {  // the block of the last unit holds that many tiles fewer
        const long long full = deal * ((units - 1) % grid < r ? q + 1 : q);
        kept -= std::min(c, full) - std::min(c, full - short_by);
    }
    return static_cast<double>(kept) / static_cast<double>(tiles);
}

double cg_persistent_fixed_us(long long n, int elem_bytes, const DeviceProfile& dev, const CgOverheads& oh) {
    const CgPersistentPlan pl = cg_persistent_plan(n, elem_bytes, dev);
    const double nt = std::ceil(static_cast<double>(n) / 64), tiles = nt * (nt + 1) / 2;
    // Besides its two grid barriers, an iteration waits for the vectors other blocks wrote, read
    // through the L2 (tuned/cg_persistent.cuh: alpha's partials after the first barrier, the
    // owners' partial rows of q, beta's after the second): three dependent L2 round trips; and
    // each block's walk over its tiles, a dependent chain per tile (the row sum's L FMAs, its
    // share of a barrier per two tiles, the shared loads of the sums) that the bytes' rate does
    // not show.
    const double fma = elem_bytes == 4 ? kFmaCycles : kDfmaCycles;
    const double tiles_per_block = pl.grid > 0 ? tiles / pl.grid : 0;
    const double chain_us = tiles_per_block * (16 * fma + kBarrierCycles / 2 + kSharedLoadCycles) / dev.sm_clock_mhz;
    return 2 * oh.grid_barrier_us + 3 * dev.l2_latency_ns / 1e3 + chain_us;
}

namespace {
/// Tiles a block of the persistent kernel streams per iteration (the ones it does not keep).
double streamed_tiles_per_block(long long n, int elem_bytes, const DeviceProfile& dev) {
    const CgPersistentPlan pl = cg_persistent_plan(n, elem_bytes, dev);
    const double nt = std::ceil(static_cast<double>(n) / 64), tiles = nt * (nt + 1) / 2;
    return pl.grid > 0 ? tiles * (1 - pl.onchip_share) / pl.grid : 0;
}
}  // namespace

double cg_walk_tile_cycles(int elem_bytes, const DeviceProfile& dev) {
    if (elem_bytes != 4 && elem_bytes != 8)
        throw std::invalid_argument("cg_walk_tile_cycles: elem_bytes (" + std::to_string(elem_bytes) + ") must be 4 or 8");
    const bool h200 = dev.card == "h200";
    const DeviceProfile probe = device_preset(h200 ? "h200" : "h100-sxm");  // the card the probe ran on
    const double probe_us = h200 ? (elem_bytes == 4 ? kWalkProbeH200UsFloat : kWalkProbeH200UsDouble)
                                 : (elem_bytes == 4 ? kWalkProbeUsFloat : kWalkProbeUsDouble);
    const double us = probe_us - cg_persistent_fixed_us(kWalkProbeN, elem_bytes, probe);
    return us * probe.sm_clock_mhz / streamed_tiles_per_block(kWalkProbeN, elem_bytes, probe);
}

double cg_walk_line_factor(long long lda, int elem_bytes) {
    if (elem_bytes != 4 && elem_bytes != 8)
        throw std::invalid_argument("cg_walk_line_factor: elem_bytes (" + std::to_string(elem_bytes) + ") must be 4 or 8");
    if (lda <= 0) return 1;
    constexpr long long kLine = 128;
    const long long column = 64LL * elem_bytes, stride = (lda * elem_bytes) % kLine;
    double lines = 0;
    for (long long j = 0; j < kLine; ++j) lines += static_cast<double>((j * stride % kLine + column + kLine - 1) / kLine);
    return lines / kLine / (static_cast<double>(column) / kLine);
}

int cg_tuned_schedule(long long n, int elem_bytes, const DeviceProfile& dev, double mv_ms, int check,
                      const CgOverheads& oh, long long lda) {
    if (n > 65535LL * 64) return 1;  // past the persistent kernel's tile table
    const double persistent =
        predict_cg(Stage::kTuned, n, elem_bytes, dev, 1, 0.5, check, mv_ms, 2, oh, lda).predicted_ms;
    const double graph = predict_cg(Stage::kTuned, n, elem_bytes, dev, 1, 0.5, check, mv_ms, 1, oh, lda).predicted_ms;
    return persistent * (1 + kCgScheduleResolution) < graph ? 2 : 1;
}

int cg_iteration_bound(double kappa, double tol) {
    if (tol >= 1) return 0;
    if (!(tol > 0)) return 1 << 30;
    return std::max(1, static_cast<int>(std::ceil(std::sqrt(std::max(1.0, kappa)) / 2 * std::log(2 / tol))));
}

double cg_iteration_bytes(const CgModelStep& step, long long n, int elem_bytes) {
    const CgStageDesign d = cg_stage_design(step);
    const double nn = static_cast<double>(n);
    const double matrix = d.symmetric ? nn * (nn + 1) / 2 : nn * nn;
    return elem_bytes * (matrix + d.vector_elems * nn);
}

CgPrediction predict_cg(const CgModelStep& step, long long n, int elem_bytes, const DeviceProfile& dev, double kappa,
                        double tol, int check_every, double mv_ms, int schedule, const CgOverheads& oh,
                        long long lda) {
    if (n < 0) throw std::invalid_argument("predict_cg: n (" + std::to_string(n) + ") must be >= 0");
    if (elem_bytes != 4 && elem_bytes != 8)
        throw std::invalid_argument("predict_cg: elem_bytes (" + std::to_string(elem_bytes) + ") must be 4 or 8");
    const CgStageDesign d = cg_stage_design(step, check_every);
    const double nn = static_cast<double>(n), e = elem_bytes;
    CgPrediction p;
    p.matrix_bytes = e * (d.symmetric ? nn * (nn + 1) / 2 : nn * nn);
    // SYMV's partials: n x (ceil(n / 64) + 1) written and read (access; tuned with Y = 1).
    p.workspace_bytes = d.symmetric ? 2 * e * nn * (std::ceil(nn / 64) + 1) : 0;
    p.vector_bytes = e * d.vector_elems * nn;
    p.useful_bytes = p.matrix_bytes + p.vector_bytes;
    p.launches = d.mv_launches + d.vector_launches;
    p.round_trips = d.round_trips;
    const double bw = dev.bandwidth_gbs > 0 ? dev.bandwidth_gbs : 1.0;
    // The vectors (13-16 n elements) stay in the L2 between the iteration's kernels: they move
    // at the L2's bandwidth where the L2 holds them.
    const double vec_bw = dev.l2_bytes > 0 && p.vector_bytes <= dev.l2_bytes ? kL2OverDram * bw : bw;
    if (mv_ms >= 0) {
        // The Mv model's time without its launch costs (the first kernel's launch and the queued
        // start of the others: charged below, as stream launches or graph nodes), plus the
        // vector traffic.
        const double mv_launch_ms = (kLaunchOverheadUs + (d.mv_launches - 1) * kNextKernelUs) / 1e3;  // as the Mv model charged
        const double mv_bare_ms = std::max(0.0, mv_ms - mv_launch_ms);
        p.bandwidth_ms = mv_bare_ms + p.vector_bytes / (vec_bw * 1e6);
    } else {
        p.bandwidth_ms = (p.matrix_bytes + p.workspace_bytes + p.vector_bytes) / (bw * 1e6);
    }
    const bool tuned = step == Stage::kTuned;
    if (tuned && schedule < 0) schedule = cg_tuned_schedule(n, elem_bytes, dev, mv_ms, check_every, oh, lda);
    if (tuned && schedule == 2) {
        // The persistent kernel: the tiles it does not keep (loaded evict-first: they come from
        // DRAM every iteration), its partials (row and column sums of every tile, written and
        // read), the vectors; no launch, no round trip. Its walk streams at most at its own rate
        // per SM (cg_walk_tile_cycles, more where columns straddle lines: cg_walk_line_factor),
        // whatever the DRAM could give.
        const CgPersistentPlan pl = cg_persistent_plan(n, elem_bytes, dev);
        const double nt = std::ceil(nn / 64), tiles = nt * (nt + 1) / 2;
        p.matrix_bytes *= 1 - pl.onchip_share;
        p.workspace_bytes = 4 * 64 * e * tiles;
        p.launches = 0;
        p.round_trips = 0;
        const double off_chip = p.matrix_bytes + p.workspace_bytes + p.vector_bytes;
        const double walk_ms = streamed_tiles_per_block(n, elem_bytes, dev) * cg_walk_tile_cycles(elem_bytes, dev) *
                               cg_walk_line_factor(lda > 0 ? lda : n, elem_bytes) / dev.sm_clock_mhz / 1e3;
        p.bandwidth_ms = std::max(off_chip / (bw * 1e6), walk_ms);
        p.overhead_ms = cg_persistent_fixed_us(n, elem_bytes, dev, oh) / 1e3;
        p.predicted_ms = p.bandwidth_ms + p.overhead_ms;
        p.predicted_gbs = p.predicted_ms > 0 ? p.useful_bytes / (p.predicted_ms * 1e6) : 0;
        p.roofline_ms = e * (nn * (nn + 1) / 2 + 13 * nn) / (bw * 1e6);
        p.iterations = cg_iteration_bound(kappa, tol);
        p.note = "persistent kernel, " + std::to_string(static_cast<int>(std::lround(100 * pl.onchip_share))) +
                 "% of the triangle on chip; " +
                 (p.bandwidth_ms >= p.overhead_ms ? (walk_ms >= off_chip / (bw * 1e6) ? "the walk's rate" : "bandwidth")
                                                  : "grid barriers");
        return p;
    }
    // The GPU's time: the kernels' work and each kernel's start behind the one before. The
    // host's: a stream launch per kernel (the GPU drains a queue of short kernels faster than the
    // host fills it), or one graph launch per chunk of iterations. An iteration takes the longer,
    // then its round trips: the host waits for the queue to drain and copies a scalar back.
    // The tuned step's fused vector kernel is cooperative: its two grid barriers are GPU time too.
    // Schedule 0 runs the tuned step's kernels as stream launches.
    const double chunk = check_every > 0 ? check_every : 8;
    const bool graph = d.graph && !(tuned && schedule == 0);
    const double fixed_gpu_ms = (p.launches * oh.node_us + (tuned ? 2 * oh.grid_barrier_us : 0)) / 1e3;
    const double gpu_ms = p.bandwidth_ms + fixed_gpu_ms;
    const double host_ms = (graph ? oh.launch_us / chunk : p.launches * oh.launch_us) / 1e3;
    double over_ms = std::max(0.0, host_ms - gpu_ms) + fixed_gpu_ms + p.round_trips * oh.round_trip_us / 1e3;
    if (d.host_vectors) {
        // Chapter 1: p to the device and q back (pageable copies, the second waits), the GEMV's
        // launch, and the CPU's vector work, one after the other.
        p.host_bytes = 2 * e * nn;
        over_ms = (oh.launch_us + kCopyToDeviceUs + kCopyToHostUs + p.host_bytes / (kPageableGbs * 1e3) +
                   10 * e * nn / (kCpuVectorGbs * 1e3)) / 1e3;  // 2 dots, 2 AXPYs, p update on the CPU
    }
    p.overhead_ms = over_ms;
    p.predicted_ms = p.bandwidth_ms + p.overhead_ms;
    p.predicted_gbs = p.predicted_ms > 0 ? p.useful_bytes / (p.predicted_ms * 1e6) : 0;
    p.roofline_ms = e * (nn * (nn + 1) / 2 + 13 * nn) / (bw * 1e6);
    p.iterations = cg_iteration_bound(kappa, tol);
    p.note = p.bandwidth_ms >= p.overhead_ms ? (mv_ms >= 0 ? "the Mv (its own model) and the vectors"
                                                           : "bandwidth: the matrix read each iteration")
                                             : (d.host_vectors ? "host link and CPU vector work"
                                                               : "launches and host round trips");
    return p;
}

}  // namespace wb::model
