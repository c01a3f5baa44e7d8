/// \file ladder.hpp
/// \brief The registry (DESIGN §4): every op's steps in order. Chapters, tests, benchmarks and
///        the grader iterate this list; nothing else names the kernels.
#pragma once

#include "gemv.hpp"
#include "launch.hpp"

#include <cuda_runtime_api.h>

#include <functional>
#include <string>
#include <vector>

namespace wb {

/// One rung of an op's ladder.
template <class Args>
struct Step {
    int chapter = 0;         ///< the chapter that introduces it (1..5; 0 for the peer)
    std::string stage;       ///< "naive", "shared", "pattern", "access", "tuned", or "cublas"
    std::string summary;     ///< one line: what this step changes
    void (*launch)(const Args&, const Launch&, cudaStream_t) = nullptr;
    /// Default launch for these arguments (shape may depend on op N/T and size).
    std::function<Launch(const Args&)> default_launch;
    /// The legal values of Launch, for sweeps (chapter 6) and the tests.
    std::function<std::vector<Launch>(const Args&)> legal_launches;
};

template <class T> using GemvStep = Step<GemvArgs<T>>;

/// GEMV steps in ladder order (chapters 1..5), float or double.
template <class T> const std::vector<GemvStep<T>>& gemv_ladder();

/// The cuBLAS peer as a step (chapter 0, stage "cublas"), for uniform tables.
template <class T> const GemvStep<T>& gemv_peer();

/// The ladder step of chapter `ch` (throws std::invalid_argument when none).
template <class T> const GemvStep<T>& gemv_step(int chapter);

}  // namespace wb
