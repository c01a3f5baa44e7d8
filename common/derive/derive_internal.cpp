// derive_internal.cpp — helpers of the ops' derivations (derive/derive_internal.hpp).
#include "derive/derive_internal.hpp"

#include "model/memory.hpp"
#include "model/model_internal.hpp"
#include "model/occupancy.hpp"

#include <algorithm>

namespace wb::derive::detail {

void check_shape(const std::string& fn, int elem_bytes, long long a, long long b, long long c) {
    if (elem_bytes != 4 && elem_bytes != 8) model::detail::invalid(fn, "elem_bytes", elem_bytes, "must be 4 or 8");
    if (a < 1) model::detail::invalid(fn, "first size", a, "must be >= 1");
    if (b < 1) model::detail::invalid(fn, "second size", b, "must be >= 1");
    if (c < 1) model::detail::invalid(fn, "third size", c, "must be >= 1");
}

double white_partitions(const DeviceProfile& dev, const model::WhiteLaunch& l, int threads_per_block, int regs,
                        int smem) {
    const int per_sm = model::white_active_blocks_per_sm(dev, threads_per_block, regs, smem);
    const long long active = std::min<long long>(static_cast<long long>(dev.sm_count) * per_sm, l.dgrd_x * l.dgrd_y);
    return model::white_parts_per_gpu(dev, active, l.dgrd_x, model::white_parts_per_block(dev, l.dblk_x));
}

}  // namespace wb::derive::detail
