/// \file time_step.hpp
/// \brief The timed call every op's problem makes (time_gemv, time_gemm, time_symv, time_conv2d):
///        one step with one launch on fixed arguments, through the harness of common/bench, with
///        the working set the L2-resident mark judges by. The caller restores its output after.
#pragma once

#include "bench.hpp"
#include "step.hpp"

namespace wb {

template <class Args>
BenchStats time_step(const Step<Args>& step, const typename Args::Launch& launch, const Args& a,
                     double working_set_bytes, BenchOptions opt) {
    opt.working_set_bytes = static_cast<std::size_t>(working_set_bytes);
    return benchmark([&](cudaStream_t stream) { step.launch(a, launch, stream); }, opt);
}

}  // namespace wb
