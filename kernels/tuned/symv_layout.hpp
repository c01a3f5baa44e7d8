/// \file tuned/symv_layout.hpp
/// \brief Chapter 5's SYMV layouts, named: which kernel reads the triangle, how a SymvLaunch names
///        one, and the launch of each (host code: symv_rules.cpp holds the rules, symv.cu the
///        launcher that dispatches on the layout).
///
/// A SymvLaunch carries the thread shape and tile (block_x, block_y, nb), as every SYMV step's
/// does; in the tuned step they also name one of four layouts. symv_layout_of() is the one place
/// that reads a layout off those fields, and symv_layout_launch() the one place that writes them.
#pragma once

#include "derive/derivation.hpp"
#include "symv.hpp"

#include "model/symv.hpp"

#include <vector>

namespace wb::tuned {

/// The tuned step's kernels (the legal launches list every layout; the default rule picks one).
enum class SymvLayout {
    kTiles,      ///< KBLAS's nb x Q tiles, one thread per tile row (symv.cu): block = nb x Q,
                 ///< (nb, Q) in (32, 4), (64, 4), (64, 8)
    kWarpRows,   ///< nb = 64, block = 32 x 8: a warp covers 8 rows x 4 column groups, no barrier
                 ///< per tile (symv_warp_rows.cuh)
    kVector,     ///< nb = 64, 256 threads, 16-byte loads (symv_vec.cuh); the (64, 4) tiles where
                 ///< A's columns do not allow them
    kRowPanels,  ///< small n: 8 or 16 rows per block of 1024 threads, no tiles, no partials
                 ///< (symv_small.cuh)
};

/// "tiles", "warp_rows", "vector", "row_panels".
const char* symv_layout_name(SymvLayout layout);

namespace vec {
constexpr int kNb = 64, kThreads = 256;  ///< the vector layout's tile and threads per block
}
namespace warp_rows {
constexpr int kNb = 64, kWarps = 8;  ///< the warp-rows layout's tile and warps (block = 32 x kWarps)
}
namespace small {
constexpr int kRows = model::kSymvPanelRows, kRowsWide = model::kSymvPanelRowsWide;  ///< rows per block
constexpr int kThreads = model::kSymvPanelThreads;  ///< threads per block of the row panels
}

/// The layout a launch names by its thread shape or tile: block_x = 1024 or nb = 8, 16 the row
/// panels; block_x = 256 the vector layout (nb = 64, block_y 0 or 1); block_x = 32 with nb = 64
/// the warp-rows layout (block_y = 8); anything else the KBLAS tiles (block_x = nb), where fields
/// left at 0 (every field: no layout named) come from the default rule. Inline: the runner's
/// model of a launch reads it in every chapter, whose binaries do not link the tuned step.
inline SymvLayout symv_layout_of(const SymvLaunch& l) {
    if (l.block_x == small::kThreads || l.nb == small::kRows || l.nb == small::kRowsWide) return SymvLayout::kRowPanels;
    if (l.block_x == vec::kThreads) return SymvLayout::kVector;
    if (l.block_x == 32 && l.nb == warp_rows::kNb) return SymvLayout::kWarpRows;
    return SymvLayout::kTiles;
}

/// The launch of `layout`: nb and Q (block_y) matter for kTiles only, rows (nb: 8 or 16) for
/// kRowPanels only; y_blocks and atomics for every layout but the row panels (one block per
/// panel, no partials: Y = 1, deterministic).
SymvLaunch symv_layout_launch(SymvLayout layout, int nb, int q, int y_blocks, int atomics);

/// The launch's own fields, checked before anything else (no device call): every value must belong
/// to the layout the launch names, or to an instantiated tile. Throws std::invalid_argument naming
/// `fn`, the field, its value and the rule.
void check_symv_launch(const SymvLaunch& l, const char* fn);

/// The launch a SYMV derivation names (derive::derive_symv, or derive::derive_cg's Mv with
/// `prefix` "mv."): the row panels where its `panel rows` is set; otherwise KBLAS's tiles (nb, Q)
/// with Y blocks per block column, deterministic, and where the tile is (64, 4) with 16-byte
/// loads the vector layout (symv_vec.cuh: the kernel that reads that tile so).
SymvLaunch symv_launch_of(const derive::Derivation& d, const char* prefix = "");

/// The tuned step's default launch on profile `dev` for an n x n matrix with leading dimension
/// lda: derive_symv (16-byte loads where lda is a multiple of 16 / elem_bytes, the column stride
/// lda x elem_bytes for its aliasing rule; `row_panels` false: the tiles only, for a launch that
/// names a tile field) read by symv_launch_of. Uncached: chapter 6 and the cpu tests call it with
/// presets; symv_default calls it with the device's profile, once per call shape.
SymvLaunch symv_derived_launch(const DeviceProfile& dev, long long n, long long lda, int elem_bytes,
                               bool row_panels = true);

}  // namespace wb::tuned
