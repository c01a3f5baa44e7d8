/// \file gemv_launch.hpp
/// \brief The launch shape and tunables every GEMV step takes (GemvArgs::Launch), so chapter 6
///        can sweep and derive them instead of each kernel hard-coding its own.
#pragma once

#include <string>

namespace wb {

struct GemvLaunch {
    int block_x = 0;  ///< threads per block in x (0: the step's default)
    int block_y = 1;  ///< threads per block in y
    int nb = 0;       ///< tile: rows (N) or columns (T) a block owns
    int Q = 1;        ///< threads (or thread rows) that share one result's reduction
    int Y = 0;        ///< blocks that share one tile's reduction (KBLAS's blocks per row); 0: the
                      ///< step derives it (pattern, access, tuned; a plain GemvLaunch{} splits as
                      ///< the step's default launch does), >= 1: as given
    int ept = 0;      ///< elements each thread loads per step (tuned N: the unroll U); 0: default
    int cache = 0;    ///< loads of A: 0 auto, 1 cached, 2 streaming, 3 L2 evict-first policy, 4 streaming + 256 B L2 fetches; tuned only
    int cluster = 0;  ///< split reduction: 0 auto, 1 global partials, 2 thread-block cluster; tuned only
    int loop = 0;     ///< T: 1 = a resident wave of blocks, each group of block_x lanes walking tile after
                      ///< tile of nb columns (tuned/gemv_t_loop.cuh); 0 = one tile per block; tuned only
    std::string str() const;  ///< "bx=32 by=8 nb=64 Q=8 Y=1 ept=4"
    bool operator==(const GemvLaunch& o) const {
        return block_x == o.block_x && block_y == o.block_y && nb == o.nb && Q == o.Q && Y == o.Y && ept == o.ept &&
               cache == o.cache && cluster == o.cluster && loop == o.loop;
    }
};

}  // namespace wb
