/// \file tuned/gemm_launch_checks.cpp
/// \brief The tuned GEMM's launch checks (gemm_default_rule.hpp): an explicit launch is one
///        instantiated configuration (or the FP64 tensor cores' tile), with legal split, packing,
///        copies, GEMV and math fields; each failure names the field and the rule.
#include "tuned/gemm_default_rule.hpp"

#include "launch_checks.hpp"
#include "launch_limits.hpp"
#include "tuned/dgemm_tensor_core.hpp"
#include "tuned/gemm_config.hpp"
#include "tuned/gemm_rule_common.hpp"
#include "tuned/gemm_splitk.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace wb::tuned {

using splitk::kMaxSplit;

bool gemm_launch_matches(const GemmLaunch& want, const GemmLaunch& cfg) {
    auto eq = [](int w, int c) { return w == 0 || w == c; };
    return eq(want.block_x, cfg.block_x) && eq(want.block_y, cfg.block_y) && eq(want.tile_m, cfg.tile_m) &&
           eq(want.tile_n, cfg.tile_n) && eq(want.tile_k, cfg.tile_k) && eq(want.thread_m, cfg.thread_m) &&
           eq(want.thread_n, cfg.thread_n) && eq(want.warp_m, cfg.warp_m) && eq(want.warp_n, cfg.warp_n) &&
           eq(want.stages, cfg.stages);
}

template <class T>
void check_gemm_launch(const GemmArgs<T>& a, const GemmLaunch& l, const char* fn) {
    using launch_checks::require_launch;
    if (l.math == 2) {  // the tensor cores: their own tiles (kDgemmTcTiles), split k, nothing else
        std::string tiles;
        for (const DgemmTcTile& t : kDgemmTcTiles) tiles += (tiles.empty() ? "" : " | ") + std::to_string(t.tile_m) + "x" +
                                                               std::to_string(t.tile_n) + "x" + std::to_string(t.tile_k);
        require_launch(std::is_same_v<T, double>, fn, "math", l.math, "2 only for double");
        require_launch((l.tile_m == 0 && l.tile_n == 0 && l.tile_k == 0) ||
                           (dgemm_tc_tile_index(l.tile_m, l.tile_n) >= 0 &&
                            (l.tile_k == 0 || l.tile_k == kDgemmTcTiles[dgemm_tc_tile_index(l.tile_m, l.tile_n)].tile_k)),
                       fn, "tile_m", l.tile_m, "with math = 2: 0 (64x64) or one of the tensor cores' tiles (" + tiles + ")");
        require_launch(l.split_k >= 0 && l.split_k <= kMaxSplit, fn, "split_k", l.split_k,
                       "0 (the default rule decides, or no split in an explicit launch) ... " + std::to_string(kMaxSplit));
        require_launch(l.align >= 0 && l.align <= 2, fn, "align", l.align,
                       "0 (the default rule decides, or operands read where they are in an explicit launch), 1 (read "
                       "where they are) or 2 (unaligned operands copied to aligned columns first)");
        GemmLaunch rest = l;
        rest.math = 0;
        rest.split_k = 0;
        rest.align = 0;
        rest.tile_m = rest.tile_n = rest.tile_k = 0;
        require_launch(rest == GemmLaunch{}, fn, "math", l.math,
                       "2 with a tile, split_k and align only: the tensor-core kernel has its own warps and stages, "
                       "no packing (" + l.str() + ")");
        return;
    }
    static const std::vector<GemmLaunch> configs = gemm_configs<T>();
    auto fits_one = [&](const GemmLaunch& want) {
        return std::any_of(configs.begin(), configs.end(),
                           [&](const GemmLaunch& c) { return gemm_launch_matches(want, c); });
    };
    if (!fits_one(l)) {  // name the first field no configuration has (the message is built only here)
        std::string rule = "the value of one of the instantiated configurations, with the fields set before it (";
        for (const auto& c : configs) rule += (rule.back() == '(' ? "" : " | ") + c.str();
        rule += ")";
        const std::pair<const char*, int GemmLaunch::*> fields[] = {
            {"tile_m", &GemmLaunch::tile_m},     {"tile_n", &GemmLaunch::tile_n},     {"tile_k", &GemmLaunch::tile_k},
            {"warp_m", &GemmLaunch::warp_m},     {"warp_n", &GemmLaunch::warp_n},     {"thread_m", &GemmLaunch::thread_m},
            {"thread_n", &GemmLaunch::thread_n}, {"stages", &GemmLaunch::stages},     {"block_x", &GemmLaunch::block_x},
            {"block_y", &GemmLaunch::block_y}};
        GemmLaunch partial;
        for (const auto& [name, field] : fields) {
            partial.*field = l.*field;
            require_launch(fits_one(partial), fn, name, l.*field, rule);
        }
        throw std::invalid_argument(std::string(fn) + ": launch (" + l.str() +
                                    ") must be one configuration, not fields of several: " + rule);
    }
    require_launch(l.split_k >= 0 && l.split_k <= kMaxSplit, fn, "split_k", l.split_k,
                   "0 (the default rule decides, or no split in an explicit launch) ... " + std::to_string(kMaxSplit));
    require_launch(l.pack_a >= 0 && l.pack_a <= 2, fn, "pack_a", l.pack_a,
                   "0 (the default rule decides, or no packing in an explicit launch), 1 (A read transposed) or 2 "
                   "(A transposed into a workspace first)");
    require_launch(l.pack_b >= 0 && l.pack_b <= 2, fn, "pack_b", l.pack_b,
                   "0 (the default rule decides, or no packing in an explicit launch), 1 (B read transposed) or 2 "
                   "(B transposed into a workspace first)");
    require_launch(l.align >= 0 && l.align <= 2, fn, "align", l.align,
                   "0 (the default rule decides, or operands read where they are in an explicit launch), 1 (read "
                   "where they are) or 2 (unaligned operands copied to aligned columns first)");
    require_launch(l.gemv >= 0 && l.gemv <= 2, fn, "gemv", l.gemv,
                   "0 (the default rule decides, or the tiled kernels in an explicit launch), 1 (the tiled kernels) "
                   "or 2 (the call as a GEMV)");
    require_launch(l.gemv != 2 || gemm_as_gemv<T>(a, nullptr), fn, "gemv", l.gemv,
                   "2 only where C is one column (op_b = N or ldb == 1) or one row (ldc == 1 and op_a = T or lda == 1)");
    require_launch(l.math >= 0 && l.math <= 2, fn, "math", l.math,
                   "0 (the default rule decides, or the FMA kernels in an explicit launch), 1 (the FMA kernels) or 2 "
                   "(the FP64 tensor cores)");
    if (l.gemv == 2) {
        GemmLaunch tiles = l;
        tiles.gemv = 0;
        require_launch(tiles == GemmLaunch{}, fn, "gemv", l.gemv,
                       "2 alone: the GEMV has no tiles, split or packing (" + l.str() + ")");
    }
}

template void check_gemm_launch<float>(const GemmArgs<float>&, const GemmLaunch&, const char*);
template void check_gemm_launch<double>(const GemmArgs<double>&, const GemmLaunch&, const char*);

}  // namespace wb::tuned
