/// \file tuned/gemm_dispatch.hpp
/// \brief The tuned GEMM's kernels of one configuration, as the host sees them: run a call with
///        it, and ask how many of its blocks an SM holds. Defined in gemm_dispatch.cuh and
///        instantiated once per configuration in the gemm_instances_*.cu files, so that the
///        launcher (gemm.cu) and the default rule (gemm_default_rule.cpp) compile without them.
#pragma once

#include "gemm.hpp"
#include "tuned/gemm_config.hpp"

#include <cuda_runtime_api.h>

namespace wb::tuned::gemm_impl {

/// Runs `a` with configuration E (its kernel for op(A), op(B), 16-byte or element copies), k cut
/// into `split` slices where split > 1 (the slices' partials then summed by splitk::sum).
template <class T, const GemmConfig& E>
void run_config(const GemmArgs<T>& a, int split, cudaStream_t s, const char* fn);

/// Resident blocks per SM, on the current device, of the kernel of configuration E that a call
/// runs (op(A) = A^T: ta, op(B) = B^T: tb, 16-byte copies: vec, split k: split); without a GPU
/// the count on an H100 or H200 (GemmConfig::sm90_blocks).
template <class T, const GemmConfig& E>
int resident_blocks(bool ta, bool tb, bool vec, bool split);

}  // namespace wb::tuned::gemm_impl
