// symv.cpp — chapter 6's SYMV derivation (derive/derivation.hpp) in KBLAS's order nb -> Q -> Y
// (TOMS §9): the tile and thread rows that keep the most bytes of A in flight per SM (rule 1),
// then the blocks per block column that level the triangle's columns (rule 5).
#include "derive/derivation.hpp"
#include "derive/derive_internal.hpp"

#include "model/memory.hpp"
#include "model/model_internal.hpp"
#include "model/occupancy.hpp"
#include "model/symv.hpp"

#include <algorithm>
#include <string>

namespace wb::derive {

using model::detail::ceil_div;
using model::detail::fmt;

Derivation derive_symv(const DeviceProfile& dev, long long n, int elem_bytes, bool vector_loads) {
    detail::check_shape("derive_symv", elem_bytes, n, n);
    Derivation d;
    d.op = "symv";
    d.shape = "lower " + std::to_string(n) + " " + detail::precision(elem_bytes);
    // nb and Q (KBLAS §9: nb first, then Q): resident blocks x one nb x nb tile each in flight.
    struct Cand {
        int nb, q, regs, smem, per_sm;
        double bytes;
    };
    Cand best{0, 0, 0, 0, 0, 0};
    for (auto [nb, q] : {std::pair{32, 4}, {64, 4}, {64, 8}}) {
        const int regs = std::min(model::tuned_symv_regs(nb, q, elem_bytes), dev.max_regs_per_thread);
        const int smem = nb * (nb + 1) * elem_bytes;  // the diagonal tile, padded, for its mirror
        if (nb * q > dev.max_threads_per_block || smem > dev.smem_per_block_bytes) continue;
        const int per_sm = model::occupancy(dev, nb * q, regs, smem).blocks_per_sm;
        if (per_sm < 1) continue;
        const double bytes = static_cast<double>(per_sm) * nb * nb * elem_bytes;
        // Ties (within 1/8) to the larger nb: half the deterministic partials.
        if (best.nb == 0 || bytes > best.bytes * 1.125 || (bytes * 1.125 >= best.bytes && nb > best.nb))
            best = {nb, q, regs, smem, per_sm, bytes};
    }
    if (best.nb == 0) throw std::invalid_argument("derive_symv: no tile of 32 or 64 fits " + dev.name);
    const double need = model::bytes_in_flight_needed_per_sm(dev);
    d.params.push_back(bytes_in_flight_per_sm(dev));
    d.params.push_back({"nb", best.nb, "most bytes of A in flight per SM (rule 1, KBLAS §9 first)",
                        std::to_string(best.per_sm) + " blocks x " + std::to_string(best.nb) + "^2 x " +
                            std::to_string(elem_bytes) + " B = " + fmt("%.0f B", best.bytes) + " against " +
                            fmt("%.0f B", need)});
    d.params.push_back({"Q", best.q, "thread rows of the tile (KBLAS §9 second)",
                        std::to_string(best.nb / best.q) + " rows a thread, " + std::to_string(best.regs) +
                            " registers"});
    d.params.push_back(blocks_per_sm(dev, best.nb * best.q, best.regs, best.smem));
    // Rule 2: the same bytes in fewer load instructions where the columns allow 16-byte loads.
    const int loads = vector_loads ? 16 : elem_bytes;
    d.params.push_back({"loads", loads, "coalescing (rule 2: 16-byte loads where A's columns are aligned)",
                        vector_loads ? std::to_string(16 / elem_bytes) + " elements per load: 1/" +
                                           std::to_string(16 / elem_bytes) + " of the load instructions of element loads"
                                     : "A's columns are not 16-byte aligned: one element per load"});
    // Y (KBLAS §4.3.4, §9.2): block column j of the triangle is nt - j tiles long; split into Y
    // pieces, the longest, nt / Y, must not outlast a slot's share of all the tiles,
    // nt (nt + 1) / 2 / slots: Y >= 2 slots / (nt + 1), a power of two (the kernel takes 1, 2,
    // 4 ... 32), and no more pieces than the longest column has tiles: the largest power of two
    // <= nt caps it.
    const long long nt = ceil_div(n, best.nb);
    const long long slots = static_cast<long long>(dev.sm_count) * best.per_sm;
    const long long cap = detail::pow2_floor(std::min<long long>(32, std::max<long long>(1, nt)));
    const long long y = std::clamp<long long>(detail::pow2_ceil(ceil_div(2 * slots, nt + 1)), 1, cap);
    d.params.push_back({"Y", y, "the triangle's longest column (rule 5, KBLAS Y)",
                        "longest column " + std::to_string(nt) + " tiles, a slot's share " +
                            fmt("%.1f", static_cast<double>(nt) * (nt + 1) / 2 / slots) + ": pieces of " +
                            fmt("%.1f", static_cast<double>(nt) / y) + " with Y = " + std::to_string(y)});
    return d;
}

}  // namespace wb::derive
