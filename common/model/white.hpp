/// \file model/white.hpp
/// \brief White's closed forms and launch derivations on the Tesla T10 (dissertation Eq. 3.2-3.4,
///        4.6-4.7, 4.24, 4.41, 5.19; §4.5, §5.1.5), which the unit tests reproduce on the `t10`
///        preset. The derivations evaluate the occupancy, grid and partition metrics of
///        model/occupancy.hpp and model/memory.hpp.
#pragma once

#include "device_profile.hpp"
#include "model/memory.hpp"
#include "model/occupancy.hpp"

namespace wb::model {

// ------------------------------------------------------------------------------------------------
// White's closed forms on the T10 (float data, powers of two, n >= 512)
// ------------------------------------------------------------------------------------------------

/// Eq. 3.2: 32-byte reads of the global-memory Mv (thread j reads row j of a row-major A):
/// (dBlk.x + 1) n^2 / dBlk.x when dBlk.x <= 8, 17 n^2 / 16 when dBlk.x >= 16.
/// Throws std::invalid_argument when n < 1 or dblk_x is not a power of two in 1..512.
long long white_mv_gld32(long long n, int dblk_x);
/// Eq. 3.3: 32-byte reads of the global-memory MM.
long long white_mm_gld32(long long n, int dblk_x);
/// Eq. 3.4: 64-byte reads of the global-memory MM (0 when dBlk.x <= 8).
long long white_mm_gld64(long long n, int dblk_x);
/// Eq. 4.7: 64-byte reads of the shared-memory Mv when dBlk.x >= 16 (n^2 / 16); Eq. 4.6,
/// n^2 / dBlk.x 32-byte reads, when dBlk.x <= 8 (returned as the count of either size).
long long white_mv_shared_gld(long long n, int dblk_x);

/// Active threads White requires to saturate the T10's memory bus (§4.5, Eq. 4.14): 400-cycle
/// latency / 8 cycles per warp = 50 warps per partition x 8 partitions x 32 threads = 12800.
constexpr long long kWhiteMinActiveThreadsT10 = 12800;

/// A launch shape in White's notation.
struct WhiteLaunch {
    int dblk_x = 0;        ///< dBlk.x: threads per block in x
    int dblk_y = 0;        ///< dBlk.y: threads per block in y
    long long dgrd_x = 0;  ///< dGrd.x: blocks in x
    long long dgrd_y = 0;  ///< dGrd.y: blocks in y
    /// Equal when all four parameters are.
    // Written out: .cu files include this header and are compiled as C++17.
    bool operator==(const WhiteLaunch& o) const {
        return dblk_x == o.dblk_x && dblk_y == o.dblk_y && dgrd_x == o.dgrd_x && dgrd_y == o.dgrd_y;
    }
};

/// Mv launch derived by White's procedure (§4.5.1) on `dev` (the t10 preset): dBlk.x the largest
/// power of two whose padded tile (Eq. 4.11) fits shared memory (Step 2: most reuse), dBlk.y the
/// smallest power of two (<= dBlk.x, Eq. 4.16a) giving >= 8192 active threads (Step 1 with White's
/// relaxation for Mv), dGrd = (n / dBlk.x, 1). White's closed form is Eq. 4.24.
/// Throws std::invalid_argument unless n is a power of two >= 512.
WhiteLaunch derive_mv_launch_t10(long long n, const DeviceProfile& dev);
/// Eq. 4.24 as printed: dBlk = (32, max(8192/n, 4)), dGrd = (n/32, 1).
WhiteLaunch white_mv_launch_eq424(long long n);

/// MM launch derived by White's procedure (§4.5.2) with n_ele = 16 and `regs_per_thread` (32 from
/// his compilation): Steps 1-5 evaluated with the metrics above over powers of two. Closed form:
/// Eq. 4.41. Throws std::invalid_argument unless n is a power of two >= 512.
WhiteLaunch derive_mm_launch_t10(long long n, const DeviceProfile& dev, int regs_per_thread = 32);
/// Eq. 4.41 as printed: dBlk = (8, min(16, n / (64 min(n/512, 8)))), dGrd = (n / (8 dBlk.y), n/16).
WhiteLaunch white_mm_launch_eq441(long long n);

/// Convolution launch derived by White's procedure (§5.1.5) for filter size `fs` with 10 registers
/// per thread and SMemPerBlk = (2 dBlk.x dBlk.y + dBlk.x) x 4 (Eq. 5.7). Closed form: Eq. 5.19.
/// Throws std::invalid_argument unless n is a power of two >= 512 and fs >= 1.
WhiteLaunch derive_conv_launch_t10(long long n, int fs, const DeviceProfile& dev);
/// Eq. 5.19 as printed: dBlk.x = min(max(16, 2^ceil(log2 FS)), 512), dBlk.y = max(64/dBlk.x, 1),
/// dGrd = (n / dBlk.x, n / dBlk.y).
WhiteLaunch white_conv_launch_eq519(long long n, int fs);

}  // namespace wb::model
