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

namespace {
bool has(const derive::Derivation& d, const std::string& p) {
    for (const derive::Derived& x : d.params)
        if (x.parameter == p) return true;
    return false;
}
}  // namespace

SymvLaunch symv_launch_of(const derive::Derivation& d, const char* prefix) {
    const std::string p = prefix;
    if (has(d, p + "panel rows") && d.value(p + "panel rows") > 0)
        return symv_layout_launch(SymvLayout::kRowPanels, static_cast<int>(d.value(p + "panel rows")), 0, 1, 0);
    const int nb = static_cast<int>(d.value(p + "nb")), q = static_cast<int>(d.value(p + "Q"));
    const int y = static_cast<int>(d.value(p + "Y"));
    const bool vec = d.value(p + "loads") == 16 && nb == vec::kNb && q == 4;  // symv_vec.cuh's tile
    return symv_layout_launch(vec ? SymvLayout::kVector : SymvLayout::kTiles, nb, q, y, 0);
}

SymvLaunch symv_derived_launch(const DeviceProfile& dev, long long n, long long lda, int elem_bytes, bool row_panels) {
    const long long size = std::max(1LL, n);  // n = 0 is a valid no-op: any launch will do
    const long long ld = std::max(size, lda);
    return symv_launch_of(derive::derive_symv(dev, size, elem_bytes, ld % (16 / elem_bytes) == 0, ld * elem_bytes,
                                              row_panels));
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
