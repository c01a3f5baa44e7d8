/// \file tuned/symv_rules.cpp
/// \brief Chapter 5's SYMV host rules (pure host code, unit-tested without a GPU): the layouts a
///        launch names (symv_layout.hpp), the launch checks, the legal launches, the aligned
///        origin, the default rule and the L2 policies. The kernels and the launcher are symv.cu.
#include "symv_layout.hpp"

#include "launch_checks.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace wb::tuned {

using launch_checks::require_launch;

const char* symv_layout_name(SymvLayout layout) {
    switch (layout) {
        case SymvLayout::kTiles: return "tiles";
        case SymvLayout::kWarpRows: return "warp_rows";
        case SymvLayout::kVector: return "vector";
        case SymvLayout::kRowPanels: return "row_panels";
    }
    return "?";
}

SymvLayout symv_layout_of(const SymvLaunch& l) {
    if (l.block_x == small::kThreads || l.nb == small::kRows || l.nb == small::kRowsWide) return SymvLayout::kRowPanels;
    if (l.block_x == vec::kThreads) return SymvLayout::kVector;
    if (l.block_x == 32 && l.nb == warp_rows::kNb) return SymvLayout::kWarpRows;
    return SymvLayout::kTiles;
}

SymvLaunch symv_layout_launch(SymvLayout layout, int nb, int q, int y_blocks, int atomics) {
    SymvLaunch l;
    l.y_blocks = y_blocks;
    l.atomics = atomics;
    switch (layout) {
        case SymvLayout::kTiles:
            l.nb = nb;
            l.block_x = nb;  // one thread per tile row
            l.block_y = q;
            break;
        case SymvLayout::kWarpRows:
            l.nb = warp_rows::kNb;
            l.block_x = 32;
            l.block_y = warp_rows::kWarps;
            break;
        case SymvLayout::kVector:
            l.nb = vec::kNb;
            l.block_x = vec::kThreads;  // no thread columns: block_y 0
            break;
        case SymvLayout::kRowPanels:
            l.nb = nb;  // rows per block
            l.block_x = small::kThreads;
            l.y_blocks = 1;
            l.atomics = 0;  // no partials: nothing to add atomically
            break;
    }
    return l;
}

void check_symv_launch(const SymvLaunch& l, const char* fn) {
    const SymvLayout named = symv_layout_of(l);
    const bool panel_layout = named == SymvLayout::kRowPanels;
    require_launch(!panel_layout || l.nb == 0 || l.nb == small::kRows || l.nb == small::kRowsWide, fn, "nb", l.nb,
                   "8 or 16 with block_x = 1024 (the row-panel layout: rows per block)");
    require_launch(!panel_layout || l.block_x == 0 || l.block_x == small::kThreads, fn, "block_x", l.block_x,
                   "1024 with nb = 8 or 16 (the row-panel layout)");
    require_launch(!panel_layout || l.block_y == 0 || l.block_y == 1, fn, "block_y", l.block_y,
                   "0 or 1 with the row-panel layout (block_x = 1024, nb = 8 or 16)");
    require_launch(!panel_layout || l.y_blocks == 0 || l.y_blocks == 1, fn, "y_blocks", l.y_blocks,
                   "0 or 1 with the row-panel layout (block_x = 1024, nb = 8 or 16: one block per nb rows)");
    require_launch(panel_layout || l.nb == 0 || l.nb == 32 || l.nb == 64, fn, "nb", l.nb,
                   "one of the instantiated tiles (32, 64), or 8 or 16 (the row-panel layout)");
    const bool warp_rows_layout = named == SymvLayout::kWarpRows, vec_layout = named == SymvLayout::kVector;
    require_launch(!vec_layout || l.nb == 0 || l.nb == vec::kNb, fn, "nb", l.nb,
                   "64 with block_x = 256 (the vector layout)");
    require_launch(!vec_layout || l.block_y == 0 || l.block_y == 1, fn, "block_y", l.block_y,
                   "0 or 1 with block_x = 256 (the vector layout: 256 threads in x)");
    require_launch(!warp_rows_layout || l.block_y == warp_rows::kWarps, fn, "block_y", l.block_y,
                   "8 with nb = 64 and block_x = 32 (the warp-rows layout: 8 warps of 8 rows)");
    require_launch(l.block_x == 0 || l.block_x == 32 || l.block_x == 64 || vec_layout || panel_layout, fn, "block_x",
                   l.block_x,
                   "the nb of an instantiated tile (32, 64): one thread per tile row, 256 (the "
                   "vector layout) or 1024 (the row-panel layout)");
    require_launch(l.block_x == 0 || l.nb == 0 || l.block_x == l.nb || warp_rows_layout || vec_layout || panel_layout,
                   fn, "block_x", l.block_x,
                   "nb (" + std::to_string(l.nb) + "): one thread per tile row, 32 with nb = 64, or 256");
    require_launch(vec_layout || panel_layout || l.block_y == 0 ||
                       (l.nb != 32 && (l.block_y == 4 || l.block_y == 8)) || (l.nb == 32 && l.block_y == 4),
                   fn, "block_y", l.block_y, "Q of an instantiated (nb, Q): (32, 4), (64, 4) or (64, 8)");
    require_launch(l.y_blocks == 0 || (l.y_blocks >= 1 && l.y_blocks <= 32 && (l.y_blocks & (l.y_blocks - 1)) == 0),
                   fn, "y_blocks", l.y_blocks, "1, 2, 4, 8, 16 or 32");
    require_launch(l.atomics == 0 || l.atomics == 1, fn, "atomics", l.atomics, "0 (deterministic) or 1 (atomics)");
}

/// A submatrix A(k:, k:) of a larger matrix starts k elements into an aligned stretch of memory,
/// and tiles counted from A(0, 0) would make every warp's column read straddle two 128-byte lines.
/// Where lda keeps every column at the same offset, the tiles start that offset d before A(0, 0)
/// (rows and columns: the tiling of a symmetric matrix is the same both ways); the d rows and
/// columns outside A are redirected into it and their results dropped.
/// The granule is 256 bytes, not one 128-byte line, where the tile is that tall: on an H100, float
/// A(k:, k:) of a 16384 matrix ran 4.2% slower at k = 32 ... 63 than at k = 0 ... 31 with tiles
/// aligned to 128 bytes (216 against 207 us; double, whose 16-element line shift leaves half the
/// offsets 128 bytes off a 256-byte boundary, 3.4%), and every offset within 0.5% of k = 0 with
/// tiles aligned to 256 bytes (the offset probe, \ref notes_symv); 512 bytes gained nothing more.
/// The shift stays below nb, so the origin adds at most one tile (symv_workspace_elems).
template <class T>
int symv_origin_shift(const T* A, int lda, int nb) {
    constexpr int kLine = 128 / static_cast<int>(sizeof(T));
    const int granule = std::min(256 / static_cast<int>(sizeof(T)), std::max(nb, kLine));
    const auto element = static_cast<long long>(reinterpret_cast<std::uintptr_t>(A) / sizeof(T));
    if (lda % granule == 0) return static_cast<int>(element % granule);
    if (lda % kLine == 0) return static_cast<int>(element % kLine);  // whole lines, granules alternate
    return 0;
}

template <class T>
std::vector<SymvLaunch> symv_configs() {
    std::vector<SymvLaunch> v;
    for (int atomics : {0, 1})
        for (auto [nb, q] : {std::pair{32, 4}, {64, 4}, {64, 8}})
            for (int yb : {1, 2, 4, 8, 16, 32}) v.push_back(symv_layout_launch(SymvLayout::kTiles, nb, q, yb, atomics));
    for (int atomics : {0, 1})
        for (int yb : {1, 2, 4, 8}) v.push_back(symv_layout_launch(SymvLayout::kWarpRows, 0, 0, yb, atomics));
    for (int atomics : {0, 1})
        for (int yb : {1, 2, 4, 8, 16, 32}) v.push_back(symv_layout_launch(SymvLayout::kVector, 0, 0, yb, atomics));
    for (int rows : {small::kRows, small::kRowsWide})  // one mode: no partials
        v.push_back(symv_layout_launch(SymvLayout::kRowPanels, rows, 0, 1, 0));
    return v;
}

/// The default launch, derived (chapter 6 generalizes these rules; the sweeps behind each rule:
/// \ref notes_symv):
/// 1. (nb, Q): the instantiation that keeps the most bytes of A in flight per SM, resident blocks
///    x one nb x nb tile each (the double buffer holds the next tile while one is used): Little's
///    law asks for ~27 KB per SM on an H200, and the triangle's streaming tail for more. On ties
///    (within 1/8) the larger nb: half the deterministic partials (n x (n / nb + Y)). (An H200
///    sweep before the register rule: the fastest atomics launches were those with the most tile
///    bytes per SM, e.g. double (32, 4) at 5 blocks, 40 KB, ahead of (64, 4) at 1 block, 32 KB,
///    by 6% at n = 32768.)
/// 2. Y = 8 (16 under rule 5): a column of the triangle is nt - j tiles long, so with few blocks
///    per column the longest columns form the tail of the grid; Y blocks split each into Y pieces
///    of about equal length, at the cost of one pipeline prologue per block and Y partials per row
///    of the workspace (n x Y elements, small against the triangle). On an H200, Y = 8 was the
///    fastest Y of (64, 4) at every n from 1024 to 32768 in both precisions, or within 0.4% of it;
///    the rule it replaces (the smallest Y giving two waves: Y = 4 at 16384, 2 at 32768) measured
///    1-3.5% slower there.
/// 3. Where that grid (nt x Y blocks) is less than one wave of the tile's resident blocks
///    (nt x 8 < blocks per SM x SMs), SMs would idle: the smaller instantiated nb, which gives
///    twice the block columns (same sweep: (32, 4) 1.05-1.12x (64, 4) at n = 1024 and 2048 in
///    both precisions; from 4096, where the grid of (64, 4) is a full wave, within +-4%).
/// 4. Where that is the (64, 4) tile, the vector layout reads it (symv_vec.cuh: the same 64 x 64
///    tiles, 256 threads, 16 elements and the same register budget per thread, 16-byte loads);
///    it falls back to the (64, 4) layout where A's columns do not allow 16-byte loads. The
///    triangle's walk alone, with no arithmetic, reads 2.5% (float 16384) to 6% (32768) faster
///    with 16-byte loads (H200), and the vector layout measured 1.00x-1.06x the (64, 4) layout's
///    speed at n = 4096 ... 32768 in both precisions and triangles.
/// 5. Y = 16 where the column stride lda x elem is a multiple of 128 KiB (kAliasedStride): then
///    every column of a tile starts at the same place in the DRAM's address interleave (partition
///    camping, chapter 4), and twice the blocks per column, each reading its own rows of the same
///    columns at the same time, spread the reads over more of it. H200, vector layout, Y = 8 ->
///    16: lda = n at float 32768 (128 KiB) 568.6 -> 545.1 us, double 16384 (128 KiB) 284.9 ->
///    274.8, double 32768 (256 KiB) 1072.2 -> 1053.4; the same n with lda = n + 32 or n + 96 ran
///    at the Y = 16 speed with either Y, and so did strides that are not such multiples (float
///    16384, 64 KiB; float / double 24576, 96 / 192 KiB): Y = 16 there is within +-1% of Y = 8,
///    and 1.5% slower at float 8192.
/// 0. Before all of these: the row-panel layout of 8 rows per block (symv_small.cuh) where its
///    grid is at most one wave (n <= 8 x panel_blocks x SMs: 1056 on an H200) and each SM's share
///    of the twice-read triangle (n (n + 1) elem / SMs) is at most kPanelBytesPerSm. It reads the
///    triangle twice but in one kernel, where the tiles need two kernels and the second waits for
///    the first's last block. H200, L2 flushed, against the tiled default: n = 512 1.32x-1.44x,
///    1024 1.30x (double) to 1.56x (float); at 1536 and 2048 (two waves) 0.85x-1.00x. 16 rows per
///    block keep one wave to 2112 and measured float 1536 1.13x-1.15x and 2048 1.10x-1.13x (72 and
///    127 KB per SM), double 1536 0.97x-1.03x (143 KB) and 2048 0.91x-0.97x (254 KB): the byte
///    bound. They are a launch option, not the rule's: in CG's iterations, where the triangle
///    stays in the L2, reading it twice made float 2048 19% slower per iteration (0.0133 -> 0.0158
///    ms).
/// The mode is deterministic.
SymvLaunch symv_rule(int n, int elem_bytes, int sm_count, const std::vector<SymvTileOccupancy>& tiles,
                     long long lda_bytes, int panel_blocks) {
    if (tiles.empty()) throw std::invalid_argument("tuned::symv_rule: tiles must list at least one instantiation");
    constexpr double kPanelBytesPerSm = 128.0 * 1024;
    const double nn = std::max(0, n), sms = std::max(1, sm_count);
    if (panel_blocks > 0 && nn * (nn + 1) * elem_bytes / sms <= kPanelBytesPerSm &&
        launch_checks::ceil_div(static_cast<long long>(nn), small::kRows) <= static_cast<long long>(panel_blocks) * sms)
        return symv_layout_launch(SymvLayout::kRowPanels, small::kRows, 0, 1, 0);
    auto in_flight = [&](const SymvTileOccupancy& c) { return static_cast<double>(c.blocks) * c.nb * c.nb * elem_bytes; };
    auto most_in_flight = [&](int max_nb) {  // rule 1 over the tiles with nb <= max_nb
        const SymvTileOccupancy* best = nullptr;
        for (const SymvTileOccupancy& c : tiles) {
            if (c.nb > max_nb) continue;
            if (!best || in_flight(c) > in_flight(*best) * 1.125 ||
                (in_flight(c) * 1.125 >= in_flight(*best) && c.nb > best->nb))
                best = &c;
        }
        return best;
    };
    constexpr long long kAliasedStride = 128 * 1024;
    const int kY = lda_bytes > 0 && lda_bytes % kAliasedStride == 0 ? 16 : 8;
    const SymvTileOccupancy* best = most_in_flight(1 << 30);
    const long long one_wave = static_cast<long long>(std::max(1, best->blocks)) * std::max(1, sm_count);
    if (launch_checks::ceil_div(std::max(1, n), best->nb) * kY < one_wave)
        if (const SymvTileOccupancy* smaller = most_in_flight(best->nb / 2)) best = smaller;
    if (best->nb == vec::kNb && best->q == 4) return symv_layout_launch(SymvLayout::kVector, 0, 0, kY, 0);
    return symv_layout_launch(SymvLayout::kTiles, best->nb, best->q, kY, 0);
}

/// The L2 policies (symv.hpp). A quarter of the L2 for the partials: the rest holds A's lines in
/// flight, x and y, and every other kernel's data (evict_last lines outlive the call). float n =
/// 16384 on a 50 MiB L2: 17.3 MB of partials, 76% kept; double 32768: 136 MB, 10% kept. Measured
/// on an H100: a quarter, half, all of the L2 or all the partials within 0.3% of each other at
/// n = 1024 ... 32768, a quarter the fastest or tied at 16384 and 32768 in both runs; keeping
/// almost none (1/64) cost 1-1.5% at float 16384 and double 8192. Streaming A at every size cost
/// CG's iterations up to 20% where the triangle fits (\ref notes_symv).
SymvL2Plan symv_l2_plan(long long n, int nt, int y_blocks, int elem_bytes, long long l2_bytes) {
    SymvL2Plan p;
    const double l2 = static_cast<double>(std::max(1LL, l2_bytes));
    p.stream_a = static_cast<double>(n) * (n + 1) / 2 * elem_bytes > l2;
    const double partials = std::max(1.0, static_cast<double>(n) * (nt + y_blocks) * elem_bytes);
    p.keep_fraction = static_cast<float>(std::clamp(0.25 * l2 / partials, 1.0 / 64, 1.0));
    return p;
}

template int symv_origin_shift<float>(const float*, int, int);
template int symv_origin_shift<double>(const double*, int, int);
template std::vector<SymvLaunch> symv_configs<float>();
template std::vector<SymvLaunch> symv_configs<double>();

}  // namespace wb::tuned
