/// \file launch_rows.cpp
/// \brief Chapter 6's launches CSV (launch_rows.hpp): the rows of each case's swept launches.
#include "launch_rows.hpp"

#include "cg.hpp"
#include "conv2d.hpp"
#include "gemm.hpp"
#include "gemv_launch.hpp"
#include "symv.hpp"

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <utility>

namespace wb::ch06 {
namespace {

std::string words(std::initializer_list<std::pair<const char*, int>> fields) {
    std::string s;
    for (const auto& [name, value] : fields) s += (s.empty() ? "" : " ") + std::string(name) + "=" + std::to_string(value);
    return s;
}

/// A time in ms to eight significant digits (fixed decimals would tie a few-microsecond GEMV's
/// launches that the model tells apart, and the ranks read from the file would differ from the
/// run's rho); "-" where there is none (negative: not predicted or not measured; infinite).
std::string ms_cell(double v) {
    if (!std::isfinite(v) || v < 0) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.8g", v);
    return buf;
}

}  // namespace

std::string launch_params(const GemvLaunch& l) {
    return words({{"block_x", l.block_x}, {"block_y", l.block_y}, {"nb", l.nb}, {"Q", l.Q}, {"Y", l.Y},
                  {"ept", l.ept}, {"cache", l.cache}, {"cluster", l.cluster}, {"loop", l.loop}});
}

std::string launch_params(const GemmLaunch& l) {
    return words({{"block_x", l.block_x}, {"block_y", l.block_y}, {"tile_m", l.tile_m}, {"tile_n", l.tile_n},
                  {"tile_k", l.tile_k}, {"thread_m", l.thread_m}, {"thread_n", l.thread_n}, {"warp_m", l.warp_m},
                  {"warp_n", l.warp_n}, {"stages", l.stages}, {"split_k", l.split_k}, {"pack_a", l.pack_a},
                  {"pack_b", l.pack_b}, {"align", l.align}, {"gemv", l.gemv}, {"math", l.math}});
}

std::string launch_params(const Conv2dLaunch& l) {
    return words({{"block_x", l.block_x}, {"block_y", l.block_y}, {"tile_x", l.tile_x}, {"tile_y", l.tile_y},
                  {"thread_x", l.thread_x}, {"thread_y", l.thread_y}, {"blocked", l.blocked}});
}

std::string launch_params(const SymvLaunch& l) {
    return words({{"block_x", l.block_x}, {"block_y", l.block_y}, {"nb", l.nb}, {"y_blocks", l.y_blocks},
                  {"atomics", l.atomics}});
}

std::string launch_params(const CgLaunch& l) {
    return words({{"block", l.block}, {"check_every", l.check_every}, {"schedule", l.schedule}});
}

Report launches_report() {
    return Report("chapter 6: every swept launch",
                  {"op", "shape", "precision", "launch", "is derived", "is default", "predicted ms", "measured ms",
                   "params"});
}

void add_launch_rows(Report& table, const Comparison& c) {
    const std::string precision = c.elem_bytes == 4 ? "float" : c.elem_bytes == 8 ? "double" : "-";
    for (const SweptLaunch& l : c.swept_launches)
        table.add_row({c.derived.op, c.derived.shape, precision, l.launch, l.is_derived ? "1" : "0",
                       l.is_default ? "1" : "0", ms_cell(l.predicted_ms), ms_cell(l.measured_ms), l.params});
}

}  // namespace wb::ch06
