// white.cpp — White's closed forms and launch derivations on the T10 (declared in
// model/white.hpp, architecture §6). Each function names the equation it reproduces.
#include "model/white.hpp"

#include "model/model_internal.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace wb::model {

using detail::invalid;
using detail::is_pow2;

namespace {

void check_pow2_n(const std::string& fn, long long n) {
    if (n < 512 || !is_pow2(n)) invalid(fn, "n", n, "must be a power of two >= 512 (White Eq. 4.1)");
}

void check_white_args(const std::string& fn, long long n, int dblk_x) {
    if (n < 1) invalid(fn, "n", n, "must be >= 1");
    if (dblk_x < 1 || dblk_x > 512 || !is_pow2(dblk_x))
        invalid(fn, "dblk_x", dblk_x, "must be a power of two in 1..512 (White §3.3)");
}

/// Thds_GPU^active (Eq. 3.8-3.9) of a White launch with Eq. 3.7's block count.
long long white_active_threads(const DeviceProfile& dev, int bx, int by, long long grid_blocks, int regs,
                               int smem) {
    const long long per_sm = white_active_blocks_per_sm(dev, bx * by, regs, smem);
    return std::min(dev.sm_count * per_sm, grid_blocks) * bx * by;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// White's closed forms and launch derivations (T10)
// ---------------------------------------------------------------------------------------------

long long white_mv_gld32(long long n, int dblk_x) {
    check_white_args("white_mv_gld32", n, dblk_x);
    if (dblk_x <= 8) return (dblk_x + 1) * n * n / dblk_x;  // Eq. 3.2, dBlk.x <= 8
    return 17 * n * n / 16;                                   // Eq. 3.2, dBlk.x >= 16
}

long long white_mm_gld32(long long n, int dblk_x) {
    check_white_args("white_mm_gld32", n, dblk_x);
    const long long n3 = n * n * n;
    return dblk_x <= 8 ? n3 / dblk_x + n3 / 16 : n3 / 16;  // Eq. 3.3
}

long long white_mm_gld64(long long n, int dblk_x) {
    check_white_args("white_mm_gld64", n, dblk_x);
    return dblk_x >= 16 ? n * n * n / 16 : 0;  // Eq. 3.4
}

long long white_mv_shared_gld(long long n, int dblk_x) {
    check_white_args("white_mv_shared_gld", n, dblk_x);
    return dblk_x <= 8 ? n * n / dblk_x : n * n / 16;  // Eq. 4.6 / 4.7
}

WhiteLaunch derive_mv_launch_t10(long long n, const DeviceProfile& dev) {
    check_pow2_n("derive_mv_launch_t10", n);
    // White §4.5.1: 10-15 registers per thread, "assuming the maximum is used".
    constexpr int regs = 15;
    // Step 1 with White's relaxation: the smallest Mv (n = 512, dBlk = 32 x 16) reaches 8192
    // active threads, so Mv asks for 8192 rather than the 12800 of Eq. 4.14.
    constexpr long long min_active = 8192;
    const int min_x = std::max(1, dev.segment_bytes / 4);  // Eq. 4.13: one 32-byte segment of floats
    // Step 2: the widest tile that fits (largest dBlk.x), then the smallest dBlk.y that saturates.
    for (int x = dev.max_threads_per_block; x >= min_x; x /= 2) {
        const int smem = (x * x + x) * 4;  // Eq. 4.11
        if (smem > dev.smem_per_block_bytes || n % x != 0) continue;
        const int y_max = std::min(dev.max_threads_per_block / x, x);  // Eq. 4.16a
        for (int y = 1; y <= y_max; y *= 2)
            if (white_active_threads(dev, x, y, n / x, regs, smem) >= min_active)
                return {x, y, n / x, 1};  // Eq. 4.16b
    }
    throw std::invalid_argument("derive_mv_launch_t10: n (" + std::to_string(n) + ") admits no launch on " +
                                dev.name + " that keeps 8192 threads active");
}

WhiteLaunch white_mv_launch_eq424(long long n) {
    check_pow2_n("white_mv_launch_eq424", n);
    return {32, static_cast<int>(std::max<long long>(8192 / n, 4)), n / 32, 1};
}

WhiteLaunch derive_mm_launch_t10(long long n, const DeviceProfile& dev, int regs_per_thread) {
    check_pow2_n("derive_mm_launch_t10", n);
    if (regs_per_thread < 1) invalid("derive_mm_launch_t10", "regs_per_thread", regs_per_thread, "must be >= 1");
    constexpr int n_ele = 16;  // Step 2: most reuse, 1 <= n_ele <= 16 (§4.5.2)
    const int min_x = std::max(1, dev.segment_bytes / 4);  // Eq. 4.13
    // Step 3: the least shared memory, SMemPerBlk = n_ele dBlk.x 4 (Eq. 4.8): smallest feasible dBlk.x.
    for (int x = min_x; x <= dev.max_threads_per_block; x *= 2) {
        const int smem = n_ele * x * 4;
        if (smem > dev.smem_per_block_bytes) break;
        bool found = false;
        WhiteLaunch best;
        double best_parts = -1;
        long long best_frag = 0;
        for (int y = 1; y <= dev.max_threads_per_block / x; y *= 2) {
            if (n % (static_cast<long long>(x) * y) != 0) continue;
            const long long gx = n / (static_cast<long long>(x) * y);  // Eq. 4.25c
            const long long gy = n / n_ele;                             // Eq. 4.29
            const int per_sm = white_active_blocks_per_sm(dev, x * y, regs_per_thread, smem);
            const GridMetrics g = grid_metrics(dev, gx * gy, x * y, per_sm);
            if (g.active_threads < kWhiteMinActiveThreadsT10) continue;  // Step 1, Eq. 4.14
            // Step 4: most partitions (Eq. 3.12-3.13); Step 5: fewest fragmented blocks (Eq. 3.10).
            const double parts = white_parts_per_gpu(dev, g.active_blocks, gx, white_parts_per_block(dev, x));
            if (!found || parts > best_parts + 1e-12 ||
                (std::abs(parts - best_parts) <= 1e-12 && g.fragmented_blocks < best_frag)) {
                found = true;
                best = {x, y, gx, gy};
                best_parts = parts;
                best_frag = g.fragmented_blocks;
            }
        }
        if (found) return best;
    }
    throw std::invalid_argument("derive_mm_launch_t10: n (" + std::to_string(n) + ") admits no launch on " +
                                dev.name + " with " + std::to_string(kWhiteMinActiveThreadsT10) +
                                " active threads");
}

WhiteLaunch white_mm_launch_eq441(long long n) {
    check_pow2_n("white_mm_launch_eq441", n);
    const long long y = std::min<long long>(16, n / (64 * std::min<long long>(n / 512, 8)));
    return {8, static_cast<int>(y), n / (8 * y), n / 16};
}

WhiteLaunch derive_conv_launch_t10(long long n, int fs, const DeviceProfile& dev) {
    check_pow2_n("derive_conv_launch_t10", n);
    if (fs < 1) invalid("derive_conv_launch_t10", "fs", fs, "must be >= 1");
    constexpr int regs = 10;  // §5.1.5: from compilation, constant
    // Step 2 (Eq. 5.8-5.11): a half-warp along x coalesces (dBlk.x >= 16) and one pass covers the
    // filter row (dBlk.x >= FS, a power of two), capped by the block size (Eq. 5.12a).
    int x = std::max(dev.transaction_threads, 1);
    while (x < fs && x < dev.max_threads_per_block) x *= 2;
    x = std::min(x, dev.max_threads_per_block);
    // Steps 1 and 3: the least shared memory (smallest dBlk.y) that keeps 12800 threads active.
    for (int y = 1; y <= dev.max_threads_per_block / x; y *= 2) {
        const int smem = (2 * x * y + x) * 4;  // Eq. 5.7
        if (smem > dev.smem_per_block_bytes) break;
        const long long blocks = (n / x) * (n / y);  // Eq. 5.12c-d
        if (white_active_threads(dev, x, y, blocks, regs, smem) >= kWhiteMinActiveThreadsT10)
            return {x, y, n / x, n / y};
    }
    throw std::invalid_argument("derive_conv_launch_t10: fs (" + std::to_string(fs) + ") admits no launch on " +
                                dev.name + " with " + std::to_string(kWhiteMinActiveThreadsT10) +
                                " active threads");
}

WhiteLaunch white_conv_launch_eq519(long long n, int fs) {
    check_pow2_n("white_conv_launch_eq519", n);
    if (fs < 1) invalid("white_conv_launch_eq519", "fs", fs, "must be >= 1");
    int p2 = 1;
    while (p2 < fs && p2 < 512) p2 *= 2;  // 2^ceil(log2 FS), capped below
    const int x = std::min(std::max(16, p2), 512);
    const int y = std::max(64 / x, 1);
    return {x, y, n / x, n / y};
}

}  // namespace wb::model
