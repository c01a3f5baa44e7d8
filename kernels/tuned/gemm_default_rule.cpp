/// \file tuned/gemm_default_rule.cpp
/// \brief The tuned GEMM's default rule (gemm_default_rule.hpp): each configuration's estimate,
///        the splits and operand copies it weighs, and the cache of its picks.
#include "launch_limits.hpp"
#include "tuned/gemm_default_rule.hpp"
#include "tuned/dgemm_tc_rule.hpp"
#include "tuned/dgemm_tensor_core.hpp"
#include "tuned/gemm_rule_common.hpp"

#include "derive/cached_default.hpp"
#include "model/kernel_time.hpp"  // dram_ms
#include "model/occupancy.hpp"  // kLaunchOverheadUs

#include "gemv.hpp"
#include "launch_checks.hpp"
#include "tuned/gemm_config.hpp"
#include "tuned/gemm_dispatch.hpp"
#include "tuned/gemm_pack.hpp"
#include "tuned/gemm_splitk.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
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
using rule::split_candidates;


template <const GemmConfig&... E>
std::vector<GemmLaunch> launches(ConfigList<E...>) {
    return {E.launch()...};
}

/// The call the main loop runs for one choice of copies (pack_a 2: op(A) = A^T transposed into a
/// workspace; pack_b 2: op(B) = B likewise; align 2: operands whose columns are not 16-byte
/// aligned copied to aligned ones;
/// a workspace's pointer is null, its ld a 128-byte line) and what the copies cost: their bytes
/// read and written at the device's copy ceiling (bandwidth x copy_over_read) and a launch each.
/// `fits` false where a workspace would pass kMaxWorkspaceBytes or the transpose's grid not fit.
template <class T>
struct CopiesView {
    GemmArgs<T> view;
    double seconds = 0;
    bool fits = true;
};

template <class T>
CopiesView<T> copies_view(const GemmArgs<T>& a, int pack_a, int pack_b, int align, const DeviceProfile& dev) {
    CopiesView<T> c;
    c.view = a;
    auto to_workspace = [&](const T*& p, int& ld, int rows, int cols) {
        ld = static_cast<int>(std::min<long long>(pack::pack_ld<T>(rows), static_cast<long long>(kMaxInt32)));
        p = nullptr;
        c.fits = c.fits && static_cast<double>(ld) * cols * sizeof(T) <= kMaxWorkspaceBytes;
        const double bytes = static_cast<double>(rows) * cols * sizeof(T);  // read, then written
        c.seconds += model::dram_ms(bytes, bytes, dev) * 1e-3 + model::kLaunchOverheadUs * 1e-6;
    };
    if (pack_a == 2) {  // the transpose's grid y covers m in 32-row tiles, at most 65535
        c.fits = ceil_div(a.m, pack::kTile) <= kMaxGridYZ;
        c.view.op_a = Op::N;
        to_workspace(c.view.A, c.view.lda, a.m, a.k);
    }
    if (pack_b == 2) {  // likewise for op(B) = B: n in 32-row tiles
        c.fits = c.fits && ceil_div(a.n, pack::kTile) <= kMaxGridYZ;
        c.view.op_b = Op::T;
        to_workspace(c.view.B, c.view.ldb, a.n, a.k);
    }
    if (align == 2) {  // the copies run in chunks of columns: no grid limit
        GemmArgs<T>& v = c.view;
        const int cols_a = v.op_a == Op::N ? a.k : a.m, cols_b = v.op_b == Op::N ? a.n : a.k;
        // A packed above is aligned already (a null A in the call itself is chapter 6's
        // predict-only call, aligned or not by its ld like any other).
        if (pack_a != 2 && !aligned16(v.A, v.lda)) to_workspace(v.A, v.lda, v.rows_a(), cols_a);
        if (pack_b != 2 && !aligned16(v.B, v.ldb)) to_workspace(v.B, v.ldb, v.rows_b(), cols_b);
    }
    return c;
}

/// One weighed choice of the tiled rule: its launch and its time (derived main loop + copies).
struct CopiesChoice {
    GemmLaunch launch;
    double seconds = -1;  ///< -1: no choice (nothing fits, or nothing derived)
    double copies = 0;
};

/// One choice of copies, derived: the call the main loop then runs (`view`, when not null), its
/// launch (the derivation's tile and split on that call, the copies' fields set) and its time (the
/// derived main loop plus the copies). seconds -1 where a workspace does not fit or no candidate
/// fits `dev`. The tensor cores are candidates where `tensor_ok` (the GEMV never: the rules ask
/// for it before they weigh copies).
template <class T>
CopiesChoice derive_choice(const GemmArgs<T>& a, int pack_a, int pack_b, int align, const DeviceProfile& dev,
                           bool live, bool tensor_ok, GemmArgs<T>* view = nullptr) {
    const CopiesView<T> v = copies_view(a, pack_a, pack_b, align, dev);
    if (view) *view = v.view;
    CopiesChoice ch;
    ch.copies = v.seconds;
    if (v.fits) {
        try {
            const derive::Derivation d = gemm_derivation(v.view, dev, live, tensor_ok, false);
            ch.launch = gemm_launch_of(d, gemm_configs<T>());
            ch.seconds = d.seconds + v.seconds;
        } catch (const std::invalid_argument&) {
            // no configuration fits `dev` (a preset smaller than any card the kernels run on)
        }
    }
    ch.launch.pack_a = pack_a;
    ch.launch.pack_b = pack_b;
    ch.launch.align = align;
    return ch;
}

/// The tiled rule: which call the main loop runs, and its configuration and split of k, all from
/// chapter 6's derivation on `dev` (derive_gemm; `live`: dev is the current device). The choices:
/// op(A) = A^T read transposed (pack_a = 1) or transposed into a workspace first (pack_a = 2);
/// op(B) = B likewise (pack_b = 1 or 2: the kernels read B transposed in every NN and TN call,
/// and where B is small beside the call its transpose costs less); operands whose columns are not
/// 16-byte aligned read in place (align = 1) or copied to aligned columns first (align = 2). Each
/// choice costs the derivation's time for the call the main loop then sees (with each
/// configuration's measured rates for its op(A), op(B) and element copies, gemm_kernel_rates.hpp)
/// plus its copies (copies_view). As in the derivation, times within its
/// resolution (derive::kGemmResolution) count as equal: among them the most reuse (the thread
/// tile's fewest operand elements per FMA, rule 2), then the least time.
/// Where no choice derives a configuration (a preset none of them fits), the first
/// configuration, read in place. `all` (when not null) gets every choice weighed.
template <class T>
GemmLaunch gemm_rule_tiled(const GemmArgs<T>& a, const DeviceProfile& dev, bool live,
                           std::vector<CopiesChoice>* all = nullptr) {
    const std::vector<GemmLaunch> configs = gemm_configs<T>();
    GemmLaunch pick = configs.front();
    if (a.m <= 0 || a.n <= 0 || a.k <= 0) return pick;  // no main loop: C = beta C
    const bool unaligned = !aligned16(a.A, a.lda) || !aligned16(a.B, a.ldb);
    std::vector<CopiesChoice> choices;
    double t_least = -1;
    for (int pack_a : a.op_a == Op::T ? std::vector<int>{1, 2} : std::vector<int>{0})
        for (int pack_b : a.op_b == Op::N ? std::vector<int>{1, 2} : std::vector<int>{0})
            for (int align : unaligned ? std::vector<int>{1, 2} : std::vector<int>{0}) {
                const CopiesChoice ch = derive_choice(a, pack_a, pack_b, align, dev, live, false);
                choices.push_back(ch);
                if (ch.seconds >= 0 && (t_least < 0 || ch.seconds < t_least)) t_least = ch.seconds;
            }
    if (all) *all = choices;
    if (t_least < 0) {  // nothing derived: the configuration read where it is
        pick.pack_a = a.op_a == Op::T ? 1 : 0;
        pick.pack_b = a.op_b == Op::N ? 1 : 0;
        pick.align = unaligned ? 1 : 0;
        return pick;
    }
    auto per_fma = [](const GemmLaunch& l) {  // operand elements a thread loads per FMA
        return static_cast<double>(l.thread_m + l.thread_n) / (static_cast<double>(l.thread_m) * l.thread_n);
    };
    const CopiesChoice* best = nullptr;
    for (const CopiesChoice& ch : choices) {
        if (ch.seconds < 0 || ch.seconds > t_least * (1 + derive::kGemmResolution)) continue;
        if (!best) {
            best = &ch;
            continue;
        }
        const double r = per_fma(ch.launch), rb = per_fma(best->launch);
        if (r != rb ? r < rb : ch.seconds < best->seconds) best = &ch;
    }
    return best->launch;
}

std::string us(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
    return buf;
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
/// aligned and whether beta is 0 (all the rules read). The tiled rule weighs up to 8 x 21 x 7
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
GemmArgs<T> gemm_copies_view(const GemmArgs<T>& a, const DeviceProfile& dev, bool live,
                             std::vector<derive::Derived>* why) {
    std::vector<CopiesChoice> all;
    const GemmLaunch pick = gemm_rule_tiled(a, dev, live, &all);
    if (why) {
        // Every choice weighed, with its derived time: "pack_a=2 pack_b=1 align=1 291.8 us (copies 11.9 us)".
        std::string metric;
        for (const CopiesChoice& ch : all) {
            if (ch.seconds < 0) continue;
            metric += metric.empty() ? "" : "; ";
            if (ch.launch.pack_a) metric += "pack_a=" + std::to_string(ch.launch.pack_a) + " ";
            if (ch.launch.pack_b) metric += "pack_b=" + std::to_string(ch.launch.pack_b) + " ";
            if (ch.launch.align) metric += "align=" + std::to_string(ch.launch.align) + " ";
            metric += us(ch.seconds) + (ch.copies > 0 ? " (copies " + us(ch.copies) + ")" : "");
        }
        // One line per choice the call has.
        if (pick.pack_a)
            why->push_back({"pack_a", pick.pack_a,
                            "op(A) = A^T read transposed (1) or packed first (2): the least derived time, the "
                            "transpose and the kernels' measured op(A) = A^T rate counted",
                            metric, false});
        if (pick.pack_b)
            why->push_back({"pack_b", pick.pack_b,
                            "op(B) = B read transposed (1) or packed first (2): the least derived time, the "
                            "transpose and the kernels' measured rates with op(B) = B and B^T counted",
                            metric, false});
        if (pick.align)
            why->push_back({"align", pick.align,
                            "unaligned columns read in place (1) or copied first (2): the least derived time, the "
                            "copies and the kernels' measured element-copy rate counted",
                            metric, false});
    }
    return copies_view(a, pick.pack_a, pick.pack_b, pick.align, dev).view;
}

/// The tensor cores' copies (double): the call their main loop runs, whether that is a copy, and
/// the derived times weighed.
template <class T>
struct TcCopies {
    GemmArgs<T> view;
    bool copied = false;
    double in_place = 0, aligned = -1, copies = 0;  ///< seconds; aligned -1: not derived
};

/// `a` itself where its operands are aligned or where reading them in place takes no more derived
/// time (`in_place_seconds`: the derivation of `a`, the element copies at the kernel's measured
/// rate) than copying the unaligned ones to aligned columns (copies_view) and the derivation of
/// the aligned call; otherwise that view.
template <class T>
TcCopies<T> tc_copies(const GemmArgs<T>& a, double in_place_seconds, const DeviceProfile& dev, bool live) {
    TcCopies<T> c;
    c.view = a;
    c.in_place = in_place_seconds;
    if (aligned16(a.A, a.lda) && aligned16(a.B, a.ldb)) return c;
    GemmArgs<T> view;
    const CopiesChoice al = derive_choice(a, 0, 0, 2, dev, live, true, &view);
    c.copies = al.copies;
    // Nothing derives for the aligned call, or it leaves the tensor cores: read in place.
    if (!(in_place_seconds > 0) || al.seconds < 0 || al.launch.math != 2) return c;
    c.aligned = al.seconds - al.copies;
    if (al.seconds < in_place_seconds) {
        c.view = view;
        c.copied = true;
    }
    return c;
}

template <class T>
bool gemm_tc_align_line(const GemmArgs<T>& a, const DeviceProfile& dev, bool live, derive::Derived* line) {
    if (aligned16(a.A, a.lda) && aligned16(a.B, a.ldb)) return false;
    const derive::Derivation d = gemm_derivation(a, dev, live, true);
    if (gemm_launch_of(d, gemm_configs<T>()).math != 2) return false;
    const TcCopies<T> c = tc_copies(a, d.seconds, dev, live);
    std::string metric = "align=1 " + us(c.in_place);
    if (c.aligned >= 0) metric += "; align=2 " + us(c.aligned + c.copies) + " (copies " + us(c.copies) + ")";
    *line = {"align", c.copied ? 2 : 1,
             "the tensor cores' unaligned columns read in place (1) or copied first (2): the least derived time, the "
             "copies and the kernel's measured element-copy rate counted",
             metric, false};
    return true;
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
                const derive::Derivation in_place = gemm_derivation(a, dev, live, true);
                const GemmLaunch l = gemm_launch_of(in_place, gemm_configs<T>());
                if (l.math == 2) {
                    // Unaligned operands: read in place (the kernel's element copies, at their
                    // measured rate) or copied to aligned columns first (the copies at the copy
                    // ceiling, then the 16-byte main loop): the less derived time.
                    const TcCopies<T> copies = tc_copies(a, in_place.seconds, dev, live);
                    // Their tile and split: the tensor-core kernel's own rule (dgemm_tc_rule.hpp:
                    // the tile by the width of C, the split by waves of the occupancy calculator's
                    // blocks and the bytes they keep in flight), on the device it runs on.
                    GemmLaunch g = l;
                    int device = 0;
                    if (live && cudaGetDevice(&device) == cudaSuccess) {
                        g = dgemm_tc_default(copies.view, device);
                    } else {
                        cudaGetLastError();
                        g = dgemm_tc_default(copies.view, dev);
                    }
                    if (!aligned16(a.A, a.lda) || !aligned16(a.B, a.ldb)) g.align = copies.copied ? 2 : 1;
                    return g;
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
/// op(A) = A^T packed first (pack_a = 2) where op_a = T and the transpose's grid fits, op(B) = B
/// likewise (pack_b = 2, with pack_a's choices: TN packed both ways runs as NT); unaligned
/// operands copied first (align = 2) where an operand is not 16-byte aligned (the copies beside
/// the split rather than crossed with it, which keeps the list to about 150 launches at most);
/// and the default rule's own pick.
template <class T>
std::vector<GemmLaunch> gemm_launches(const GemmArgs<T>& a) {
    std::vector<GemmLaunch> v = gemm_configs<T>();
    const std::vector<GemmLaunch> plain = v;
    const bool unaligned = !aligned16(a.A, a.lda) || !aligned16(a.B, a.ldb);
    const bool may_pack = a.op_a == Op::T && ceil_div(std::max(1, a.m), pack::kTile) <= kMaxGridYZ;
    const bool may_pack_b = a.op_b == Op::N && ceil_div(std::max(1, a.n), pack::kTile) <= kMaxGridYZ;
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
            for (int pack_b : may_pack_b ? std::vector<int>{0, 2} : std::vector<int>{0})
                for (int align : unaligned ? std::vector<int>{0, 2} : std::vector<int>{0}) {
                    if (pack_a == 0 && pack_b == 0 && align == 0) continue;  // the configuration as it is: listed
                    GemmLaunch l = c;
                    l.pack_a = pack_a;
                    l.pack_b = pack_b;
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

template std::vector<GemmLaunch> gemm_configs<float>();
template std::vector<GemmLaunch> gemm_configs<double>();
template GemmLaunch gemm_default<float>(const GemmArgs<float>&);
template GemmLaunch gemm_default<double>(const GemmArgs<double>&);
template GemmLaunch gemm_default_tiled<float>(const GemmArgs<float>&);
template GemmLaunch gemm_default_tiled<double>(const GemmArgs<double>&);
template GemmLaunch gemm_derived_launch<float>(const GemmArgs<float>&, const DeviceProfile&, bool);
template GemmArgs<float> gemm_copies_view<float>(const GemmArgs<float>&, const DeviceProfile&, bool,
                                                 std::vector<derive::Derived>*);
template GemmArgs<double> gemm_copies_view<double>(const GemmArgs<double>&, const DeviceProfile&, bool,
                                                   std::vector<derive::Derived>*);
template GemmLaunch gemm_derived_launch<double>(const GemmArgs<double>&, const DeviceProfile&, bool);
template bool gemm_tc_align_line<double>(const GemmArgs<double>&, const DeviceProfile&, bool, derive::Derived*);
template bool gemm_as_gemv<float>(const GemmArgs<float>&, GemvArgs<float>*);
template bool gemm_as_gemv<double>(const GemmArgs<double>&, GemvArgs<double>*);
template std::vector<GemmLaunch> gemm_launches<float>(const GemmArgs<float>&);
template std::vector<GemmLaunch> gemm_launches<double>(const GemmArgs<double>&);

}  // namespace wb::tuned
