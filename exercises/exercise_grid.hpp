/// \file exercise_grid.hpp
/// \brief The grid size every exercise's launcher asks for (the grader's looped runs cap it
///        through grader/grid_hook.hpp), shared by the transpose track and the five ops' exercises.
#pragma once

namespace wb::ex {

/// Number of blocks for a grid-stride loop over `work` items of `per_block` each, capped so the
/// grid stays within CUDA's limit on gridDim.x (the kernels loop over the rest).
inline unsigned grid_for(long long work, long long per_block) {
    const long long blocks = (work + per_block - 1) / per_block;
    const long long cap = 1LL << 20;  // ~1M blocks: far more than any GPU keeps resident
    return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > cap ? cap : blocks));
}

}  // namespace wb::ex
