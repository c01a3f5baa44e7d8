// cg.cpp — chapter 6's CG derivation (derive/derivation.hpp): the Mv is the SYMV derivation; the
// vector kernels (dots, axpys) take one wave of resident blocks (rule 5) with the elements per
// thread Little's law asks for (rule 1).
#include "derive/derivation.hpp"
#include "derive/derive_internal.hpp"

#include "model/model_internal.hpp"
#include "model/occupancy.hpp"

#include <algorithm>
#include <string>

namespace wb::derive {

using model::detail::ceil_div;

Derivation derive_cg(const DeviceProfile& dev, long long n, int elem_bytes, long long lda) {
    detail::check_shape("derive_cg", elem_bytes, n, n);
    if (lda <= 0) lda = n;
    Derivation d = derive_symv(dev, n, elem_bytes, lda % (16 / elem_bytes) == 0, lda * elem_bytes);
    d.op = "cg";
    d.shape = std::to_string(n) + " " + detail::precision(elem_bytes);
    for (Derived& p : d.params) p.parameter = "mv." + p.parameter;
    constexpr int kThreads = 256;
    const int regs = 32;  // a grid-stride loop: an index, an accumulator, a few loads
    const Derived bps = blocks_per_sm(dev, kThreads, regs, 0);
    d.params.push_back({"vec.block", kThreads, "threads per block of the vector kernels",
                        std::to_string(kThreads / dev.warp_size) + " warps: two per scheduler of a 4-scheduler SM"});
    Derived vec = bps;
    vec.parameter = "vec.blocks per SM";
    d.params.push_back(vec);
    // Rule 1: 16-byte loads, enough of them per thread for Little's law with every slot resident.
    Derived loads = loads_per_thread(dev, static_cast<int>(bps.value) * kThreads, 16, 8);
    loads.parameter = "vec.loads per thread";
    loads.sets_launch = false;  // the vector kernels' own rule (a grid-stride loop): printed, not launched
    d.params.push_back(loads);
    // Rule 5: one wave, no tail (a grid-stride loop covers the rest), never more blocks than work.
    const long long per_block = static_cast<long long>(kThreads) * loads.value * (16 / elem_bytes);
    const long long grid = std::min<long long>(static_cast<long long>(dev.sm_count) * bps.value,
                                               std::max<long long>(1, ceil_div(n, per_block)));
    d.params.push_back({"vec.grid", grid, "one wave of resident blocks (rule 5)",
                        std::to_string(dev.sm_count) + " SMs x " + std::to_string(bps.value) + " blocks, at most " +
                            std::to_string(ceil_div(n, per_block)) + " blocks of work",
                        false});
    return d;
}

}  // namespace wb::derive
