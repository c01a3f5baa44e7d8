/// \file tuned/gemm_default_rule.cpp
/// \brief The tuned GEMM's default rule (gemm_default_rule.hpp): each configuration's estimate,
///        the splits and operand copies it weighs, and the cache of its picks.
#include "launch_limits.hpp"
#include "tuned/gemm_default_rule.hpp"
#include "tuned/dgemm_tc_rule.hpp"
#include "tuned/dgemm_tensor_core.hpp"
#include "tuned/gemm_rule_common.hpp"

#include "derive/cached_default.hpp"

#include "gemv.hpp"
#include "launch_checks.hpp"
#include "tuned/gemm_config.hpp"
#include "tuned/gemm_dispatch.hpp"
#include "tuned/gemm_pack.hpp"
#include "tuned/gemm_splitk.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <type_traits>
#include <vector>

namespace wb::tuned {
namespace {

using launch_checks::ceil_div;
using launch_checks::sm_count;
using pack::aligned16;
using splitk::kMaxSplit;
using rule::kSumBytesPerSecond;
using rule::kSumLaunchSeconds;
using rule::split_candidates;


/// The estimate for configuration E with k split into `split` slices, in GFLOP/s: its main loop's
/// rate x the fraction of the last wave's block slots that do work x the fraction of the tiles'
/// area inside C x the share of a block's time in its main loop (kt / (kt + overhead) for kt
/// tiles of BK, overhead from fill and epi), plus, for a split, the second pass: the partials
/// written and read and C written at kSumBytesPerSecond and one more launch (kSumLaunchSeconds).
/// Split k pays where the tiles of C alone leave SMs idle and k is long (1024 x 1024 x 16384: 32
/// tiles of 256 x 128 for 132 SMs). -1 where the split does not apply.
template <const GemmConfig& E, class T>
double estimate(const GemmArgs<T>& a, int split) {
    const bool vec = aligned16(a.A, a.lda) && aligned16(a.B, a.ldb);
    const auto [kc, slices] = splitk::slice_k(std::max(1, a.k), split, E.tile_k);
    if (split > 1 && (slices < split || static_cast<double>(slices) * a.m * a.n * sizeof(T) > kMaxWorkspaceBytes))
        return -1;  // this split would not give `split` slices, or its workspace is too large
    const long long bm = ceil_div(a.m, E.tile_m), bn = ceil_div(a.n, E.tile_n);
    const long long blocks = bm * bn * slices;
    const int resident = gemm_impl::resident_blocks<T, E>(a.op_a == Op::T, a.op_b == Op::T, vec, slices > 1);
    const long long slots = static_cast<long long>(sm_count()) * resident;
    const double waves = static_cast<double>((blocks + slots - 1) / slots);
    const double fill = static_cast<double>(blocks) / (waves * slots);
    const double area = static_cast<double>(a.m) * a.n / (static_cast<double>(bm) * E.tile_m * bn * E.tile_n);
    // A block's pipeline fill and epilogue, in k-tiles of its main loop: fill, plus epi times its
    // C tile's bytes (read and written with beta != 0, a split's partial written once) at the
    // chip's share of kSumBytesPerSecond against the tile's FMAs at its rate (5.8 k-tiles for
    // float, beta != 0). Where blocks share an SM the others' main loops hide most of it (epi 0,
    // fill 0 ... 2); a block alone on its SM (the 256 x 128 tile) waits for all of it (epi 1).
    // op(A) = A^T read transposed (a packed A arrives as op(A) = A): the configuration's TN factor.
    const double r0 = (vec ? E.rate : E.rate_elem) * (a.op_a == Op::T ? E.tn_rel : 1.0);
    const double c_bytes = sizeof(T) * (slices > 1 || a.beta == T(0) ? 1.0 : 2.0);
    const double overhead = E.fill + E.epi * c_bytes * r0 * 1e9 / (2.0 * E.tile_k * kSumBytesPerSecond);
    const double kt = static_cast<double>(slices > 1 ? kc : std::max(1, a.k)) / E.tile_k;
    const double rate = r0 * 1e9 * fill * area * kt / (kt + overhead);
    const double flops = 2.0 * a.m * a.n * std::max(1, a.k);
    double seconds = flops / rate;
    if (slices > 1)
        seconds += (2.0 * slices + (a.beta == T(0) ? 1.0 : 2.0)) * a.m * a.n * sizeof(T) / kSumBytesPerSecond +
                   kSumLaunchSeconds;
    // No call is faster than its bytes (A, B once, C written and, with beta != 0, read) at the
    // stream rate: with k of a few elements C's bytes are the time, whatever the tile.
    const double bytes = sizeof(T) * (static_cast<double>(a.m) * a.k + static_cast<double>(a.k) * a.n +
                                      (a.beta == T(0) ? 1.0 : 2.0) * a.m * a.n);
    // Where that floor binds, every configuration meets it: the FMA time breaks the tie (1e-3).
    seconds = std::max(seconds, bytes / kSumBytesPerSecond) + 1e-3 * seconds;
    return flops / seconds / 1e9;
}

/// The configuration and split with the highest estimate (split_k 0 where no split wins), and
/// that estimate (GFLOP/s) in *rate.
template <class T, const GemmConfig&... E>
GemmLaunch best(const GemmArgs<T>& a, ConfigList<E...>, double* rate = nullptr) {
    GemmLaunch pick;
    double best_rate = -1;
    for (int split : split_candidates())
        for (auto [l, r] : {std::pair<GemmLaunch, double>{E.launch(), estimate<E>(a, split)}...})
            if (r > best_rate) {
                best_rate = r;
                pick = l;
                pick.split_k = split > 1 ? split : 0;
            }
    if (rate) *rate = best_rate;
    return pick;
}

/// The main loop's rate with op(A) = A^T against op(A) = A (both operands on the register path
/// against one), the default configurations at 4096 and 8192 on an H200 (\ref notes_gemm).
template <class T>
constexpr double kTransposedARate = sizeof(T) == 4 ? 0.95 : 0.87;

template <const GemmConfig&... E>
std::vector<GemmLaunch> launches(ConfigList<E...>) {
    return {E.launch()...};
}

/// Which call the main loop runs (gemm_copies_view), weighed with each configuration's estimate.
/// With op(A) = A^T it weighs packing A (pack_a = 2): the op(A) = A kernel's estimate plus the
/// transpose against the direct kernel's estimate at kTransposedARate; packing wins where the
/// transpose costs less than the main loop's penalty, from n of a few hundred on for large m and
/// k, and not where its workspace would exceed kMaxWorkspaceBytes. Where an operand's columns are
/// not 16-byte aligned (odd ld, a submatrix's offset), it also weighs copying it to aligned
/// columns first (align = 2): the kernels' 16-byte rate plus the copy (2 x its bytes at
/// kSumBytesPerSecond, one launch) against their element-copy rate. The candidates: pack_a 1 / 2
/// (op(A) = A^T) x align 1 / 2. Returns the estimate's own pick (configuration and split too).
template <class T>
GemmLaunch weigh_copies(const GemmArgs<T>& a, GemmArgs<T>* view_out) {
    if (view_out) *view_out = a;
    if (a.m <= 0 || a.n <= 0) return gemm_configs<T>().front();
    if (a.k <= 0) return best(a, typename Configs<T>::type{});  // C = beta C: no main loop
    const double flops = 2.0 * a.m * a.n * a.k;
    const bool unaligned = !aligned16(a.A, a.lda) || !aligned16(a.B, a.ldb);
    GemmLaunch pick;
    double t_pick = 0;
    for (int pack_a : a.op_a == Op::T ? std::vector<int>{1, 2} : std::vector<int>{0})
        for (int align : unaligned ? std::vector<int>{1, 2} : std::vector<int>{0}) {
            GemmArgs<T> view = a;  // the call the main loop sees; nullptr: an aligned workspace
            double extra = 0;
            bool fits = true;  // each workspace within kMaxWorkspaceBytes
            auto to_workspace = [&](const T*& p, int& ld, int rows, int cols) {
                ld = static_cast<int>(std::min<long long>(pack::pack_ld<T>(rows), static_cast<long long>(kMaxInt32)));
                p = nullptr;
                fits = fits && static_cast<double>(ld) * cols * sizeof(T) <= kMaxWorkspaceBytes;
                extra += 2.0 * rows * cols * sizeof(T) / kSumBytesPerSecond + kSumLaunchSeconds;
            };
            if (pack_a == 2) {  // the transpose's grid y covers m in 32-row tiles, at most 65535
                if (ceil_div(a.m, pack::kTile) > kMaxGridYZ) continue;
                view.op_a = Op::N;
                to_workspace(view.A, view.lda, a.m, a.k);
            }
            if (align == 2) {  // the copies run in chunks of columns: no grid limit
                const int cols_a = view.op_a == Op::N ? a.k : a.m, cols_b = view.op_b == Op::N ? a.n : a.k;
                if (view.A && !aligned16(view.A, view.lda)) to_workspace(view.A, view.lda, view.rows_a(), cols_a);
                if (!aligned16(view.B, view.ldb)) to_workspace(view.B, view.ldb, view.rows_b(), cols_b);
            }
            if (!fits) continue;
            double rate = 0;
            GemmLaunch l = best(view, typename Configs<T>::type{}, &rate);
            const double t = flops / (rate * (view.op_a == Op::T ? kTransposedARate<T> : 1.0) * 1e9) + extra;
            l.pack_a = pack_a;
            l.align = align;
            if (t_pick == 0 || t < t_pick) {
                pick = l;
                if (view_out) *view_out = view;
                t_pick = t;
            }
        }
    return pick;
}

/// The tiled rule: the call weigh_copies leaves, its configuration and split of k derived
/// (chapter 6: derive_gemm on `dev`), not the estimate's.
template <class T>
GemmLaunch gemm_rule_tiled(const GemmArgs<T>& a, const DeviceProfile& dev, bool live) {
    GemmArgs<T> view;
    const GemmLaunch pick = weigh_copies(a, &view);
    if (a.m <= 0 || a.n <= 0 || a.k <= 0) return pick;  // nothing to derive: no main loop
    try {
        GemmLaunch l = gemm_launch_of(gemm_derivation(view, dev, live, false), gemm_configs<T>());
        l.pack_a = pick.pack_a;
        l.align = pick.align;
        return l;
    } catch (const std::invalid_argument&) {
        return pick;  // no configuration fits `dev` (a preset smaller than any card the kernels run on)
    }
}


}  // namespace

template <class T>
std::vector<GemmLaunch> gemm_configs() {
    return launches(typename Configs<T>::type{});
}

/// The GEMV a GEMM call is (GemmLaunch::gemv = 2), where C has one column or one row and the
/// vectors are contiguous; false otherwise. A tile of C at least 64 wide does 1/64 of its FMAs
/// there, and the call is bound by A's bytes: chapter 5's GEMV reads them at the read ceiling.
///   n == 1: C(:, 0) = alpha op(A) x + beta C(:, 0), x = op(B)'s one column (contiguous when
///           op_b = N, or op_b = T with ldb == 1).
///   m == 1: C(0, :)^T = alpha op(B)^T x + beta C(0, :)^T, x = op(A)'s one row (contiguous when
///           op_a = T, or op_a = N with lda == 1); C's row is contiguous only with ldc == 1.
template <class T>
bool gemm_as_gemv(const GemmArgs<T>& a, GemvArgs<T>* out) {
    GemvArgs<T> g;
    g.alpha = a.alpha;
    g.beta = a.beta;
    g.y = a.C;
    if (a.n == 1 && (a.op_b == Op::N || a.ldb == 1)) {
        g.op = a.op_a;  // A as stored: m x k (N) or k x m (T)
        g.A = a.A;
        g.lda = a.lda;
        g.m = a.rows_a();
        g.n = a.op_a == Op::N ? a.k : a.m;
        g.x = a.B;
    } else if (a.m == 1 && a.ldc == 1 && (a.op_a == Op::T || a.lda == 1)) {
        g.op = a.op_b == Op::N ? Op::T : Op::N;  // B as stored: k x n (N, read transposed) or n x k (T)
        g.A = a.B;
        g.lda = a.ldb;
        g.m = a.rows_b();
        g.n = a.op_b == Op::N ? a.n : a.k;
        g.x = a.A;
    } else {
        return false;
    }
    if (out) *out = g;
    return true;
}

/// `rule`'s pick for call `a` on the current device's profile, cached per thread for each device,
/// rule and class of call: the shape, op(A), op(B), whether A's and B's columns are 16-byte
/// aligned and whether beta is 0 (all the rules read). The tiled rule weighs up to 4 x 21 x 7
/// estimates per call (packing x align x splits x configurations) before the derivation; a lookup
/// is a map's (cuBLASLt keeps such a heuristics cache too).
template <class T, class Rule>
GemmLaunch cached_pick(const GemmArgs<T>& a, int which, Rule rule) {
    // The pointers' nullness too: the rule reads a null operand (predict-only mode) as its own
    // aligned workspace, so a null A must not share a key with an unaligned real one.
    using Key = std::tuple<int, int, int, int, int, int, bool, bool, bool, bool>;
    const Key key{which, a.m, a.n, a.k, static_cast<int>(a.op_a), static_cast<int>(a.op_b), aligned16(a.A, a.lda),
                  aligned16(a.B, a.ldb), a.beta == T(0), a.A == nullptr || a.B == nullptr};
    return derive::cached_default<GemmLaunch>(key, rule);
}

template <class T>
GemmLaunch gemm_default_tiled(const GemmArgs<T>& a) {
    return cached_pick(a, 0, [&](const DeviceProfile& dev, bool live) { return gemm_rule_tiled(a, dev, live); });
}

template <class T>
GemmArgs<T> gemm_copies_view(const GemmArgs<T>& a, int* pack_a, int* align) {
    GemmArgs<T> view;
    const GemmLaunch pick = weigh_copies(a, &view);
    if (pack_a) *pack_a = pick.pack_a;
    if (align) *align = pick.align;
    return view;
}

template <class T>
GemmLaunch gemm_derived_launch(const GemmArgs<T>& a, const DeviceProfile& dev, bool live) {
    if (a.m > 0 && a.n > 0 && a.k > 0) {
        if (gemm_as_gemv<T>(a, nullptr)) {
            GemmLaunch g;
            g.gemv = 2;
            return g;
        }
        if constexpr (std::is_same_v<T, double>) {
            try {  // the derivation's rule 2: the tensor cores where their kernel runs and is faster
                const GemmLaunch l = gemm_launch_of(gemm_derivation(a, dev, live, true), gemm_configs<T>());
                if (l.math == 2) {
                    // Their tile and split: the tensor-core kernel's own rule (dgemm_tc_rule.hpp:
                    // the tile by the width of C, the split by waves of the occupancy calculator's
                    // blocks and the bytes they keep in flight), on the device it runs on.
                    int device = 0;
                    if (live && cudaGetDevice(&device) == cudaSuccess) return dgemm_tc_default(a, device);
                    cudaGetLastError();
                    return l;
                }
            } catch (const std::invalid_argument&) {
                // no configuration fits `dev`: the tiled rule says what runs
            }
        }
    }
    return gemm_rule_tiled(a, dev, live);
}

template <class T>
GemmLaunch gemm_default(const GemmArgs<T>& a) {
    if (a.m > 0 && a.n > 0 && a.k > 0 && gemm_as_gemv<T>(a, nullptr)) {  // before the cache: it reads lda, ldb, ldc
        GemmLaunch g;
        g.gemv = 2;
        return g;
    }
    return cached_pick(a, 1, [&](const DeviceProfile& dev, bool live) { return gemm_derived_launch(a, dev, live); });
}

/// The legal launches (gemm_default_rule.hpp): every configuration as it is (no split, operands
/// read where they are); then each with every choice the default rule weighs and chapter 6
/// derives, on the values that mean something for this call: split k over split_candidates()
/// where every slice keeps a k-tile, the partials fit kMaxWorkspaceBytes and the blocks stay
/// within 4 per SM (the most any configuration keeps resident: deeper splits only add partials);
/// op(A) = A^T packed first (pack_a = 2) where op_a = T and the transpose's grid fits; unaligned
/// operands copied first (align = 2) where an operand is not 16-byte aligned (the copies beside
/// the split rather than crossed with it, which keeps the list to about 150 launches at most);
/// and the default rule's own pick.
template <class T>
std::vector<GemmLaunch> gemm_launches(const GemmArgs<T>& a) {
    std::vector<GemmLaunch> v = gemm_configs<T>();
    const std::vector<GemmLaunch> plain = v;
    const bool unaligned = !aligned16(a.A, a.lda) || !aligned16(a.B, a.ldb);
    const bool may_pack = a.op_a == Op::T && ceil_div(std::max(1, a.m), pack::kTile) <= kMaxGridYZ;
    const long long most_blocks = 4LL * sm_count();
    for (const GemmLaunch& c : plain) {
        const long long tiles = ceil_div(std::max(1, a.m), c.tile_m) * ceil_div(std::max(1, a.n), c.tile_n);
        for (int split : split_candidates()) {
            const auto [kc, slices] = splitk::slice_k(std::max(1, a.k), split, c.tile_k);
            (void)kc;
            if (split < 2 || slices < split || tiles * split > most_blocks ||
                static_cast<double>(slices) * std::max(1, a.m) * std::max(1, a.n) * sizeof(T) > kMaxWorkspaceBytes)
                continue;
            GemmLaunch l = c;
            l.split_k = split;
            v.push_back(l);
        }
        for (int pack_a : may_pack ? std::vector<int>{0, 2} : std::vector<int>{0})
            for (int align : unaligned ? std::vector<int>{0, 2} : std::vector<int>{0}) {
                if (pack_a == 0 && align == 0) continue;  // the configuration as it is: listed
                GemmLaunch l = c;
                l.pack_a = pack_a;
                l.align = align;
                v.push_back(l);
            }
    }
    if constexpr (std::is_same_v<T, double>) {
        if (gemm_takes_tensor_cores<T>()) {  // the tensor cores: each tile, alone and split as the rule may split them
            int dev = 0;
            cudaGetDevice(&dev);
            const std::vector<GemmLaunch> tc = dgemm_tc_launches(a, dev);
            v.insert(v.end(), tc.begin(), tc.end());
        }
    }
    if (a.m > 0 && a.n > 0 && a.k > 0 && !gemm_as_gemv<T>(a, nullptr)) {
        // The default's own pick, where the lists above lack it (its copies crossed with its split;
        // a tensor-core split past the list's two waves): a sweep that cannot reach the default
        // checks nothing.
        const GemmLaunch d = gemm_default(a);
        if (std::find(v.begin(), v.end(), d) == v.end()) v.push_back(d);
    }
    if (gemm_as_gemv<T>(a, nullptr)) {
        GemmLaunch g;
        g.gemv = 2;
        v.push_back(g);
    }
    return v;
}

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
                           (dgemm_tc_tile_index(l.tile_m, l.tile_n) >= 0 && (l.tile_k == 0 || l.tile_k == 16)),
                       fn, "tile_m", l.tile_m, "with math = 2: 0 (64x64) or one of the tensor cores' tiles (" + tiles + ")");
        require_launch(l.split_k >= 0 && l.split_k <= kMaxSplit, fn, "split_k", l.split_k,
                       "0 (the default rule decides, or no split in an explicit launch) ... " + std::to_string(kMaxSplit));
        GemmLaunch rest = l;
        rest.math = 0;
        rest.split_k = 0;
        rest.tile_m = rest.tile_n = rest.tile_k = 0;
        require_launch(rest == GemmLaunch{}, fn, "math", l.math,
                       "2 with a tile and split_k only: the tensor-core kernel has its own warps and stages, no "
                       "packing or copies (" + l.str() + ")");
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

template std::vector<GemmLaunch> gemm_configs<float>();
template std::vector<GemmLaunch> gemm_configs<double>();
template GemmLaunch gemm_default<float>(const GemmArgs<float>&);
template GemmLaunch gemm_default<double>(const GemmArgs<double>&);
template GemmLaunch gemm_default_tiled<float>(const GemmArgs<float>&);
template GemmLaunch gemm_default_tiled<double>(const GemmArgs<double>&);
template GemmLaunch gemm_derived_launch<float>(const GemmArgs<float>&, const DeviceProfile&, bool);
template GemmArgs<float> gemm_copies_view<float>(const GemmArgs<float>&, int*, int*);
template GemmArgs<double> gemm_copies_view<double>(const GemmArgs<double>&, int*, int*);
template GemmLaunch gemm_derived_launch<double>(const GemmArgs<double>&, const DeviceProfile&, bool);
template bool gemm_as_gemv<float>(const GemmArgs<float>&, GemvArgs<float>*);
template bool gemm_as_gemv<double>(const GemmArgs<double>&, GemvArgs<double>*);
template std::vector<GemmLaunch> gemm_launches<float>(const GemmArgs<float>&);
template std::vector<GemmLaunch> gemm_launches<double>(const GemmArgs<double>&);
template void check_gemm_launch<float>(const GemmArgs<float>&, const GemmLaunch&, const char*);
template void check_gemm_launch<double>(const GemmArgs<double>&, const GemmLaunch&, const char*);

}  // namespace wb::tuned
