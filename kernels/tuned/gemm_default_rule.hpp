/// \file tuned/gemm_default_rule.hpp
/// \brief The tuned GEMM's default launch, chosen on the host from the shape of the call: which
///        configuration (gemm_config.hpp), k split or not, op(A) = A^T packed or read transposed,
///        unaligned operands copied or not, or the call run as chapter 5's GEMV. Host code: the
///        CPU tests check its picks without a GPU (tests/cpu/test_gemm_default_rule.cpp).
///
/// The model, per configuration and split: its main loop's rate (GemmConfig::rate, or rate_elem
/// where the operands take the element copies) x the fraction of the last wave's block slots that
/// do work x the fraction of the tiles' area inside C x the share of a block's time in its main
/// loop, plus, for a split, the second pass; no call faster than its bytes at the stream rate.
/// The highest estimate wins: 256 x 128 on large C; 128 x 128 or 64 x 64 where the large tiles
/// would leave SMs idle or waste a row of tiles (4097); k split where C alone cannot fill the GPU
/// and k is long; the skinny tiles where C has 64 columns or rows or fewer.
#pragma once

#include "gemm.hpp"

#include <vector>

namespace wb::tuned {

/// The instantiated configurations of T (the ladder's legal_launches), largest tile first.
template <class T>
std::vector<GemmLaunch> gemm_configs();

/// The default launch: the GEMV where the call is one (gemm_as_gemv), the tiled rule otherwise.
template <class T>
GemmLaunch gemm_default(const GemmArgs<T>& a);

/// The tiled rule's pick (configuration, split_k, pack_a, align), cached per thread for each
/// device and class of call.
template <class T>
GemmLaunch gemm_default_tiled(const GemmArgs<T>& a);

/// The legal launches of a call: every instantiated configuration, each also with the split k,
/// packing of op(A) = A^T and aligned copies that mean something for this call (the choices the
/// default rule weighs and chapter 6 derives, so that a sweep of this list is their oracle), the
/// FP64 tensor cores where they run, and the GEMV where the call is one (gemm_as_gemv).
template <class T>
std::vector<GemmLaunch> gemm_launches(const GemmArgs<T>& a);

/// True when every field `want` sets (nonzero) equals configuration `cfg`'s.
bool gemm_launch_matches(const GemmLaunch& want, const GemmLaunch& cfg);

/// The launcher's check of a launch's own fields (no device call; tuned::gemm runs it first, then
/// asks the device only for math = 2, and chapter 6's cpu tests run it on every derived launch):
/// one configuration's fields (naming the first field no configuration has), split_k, pack_a,
/// align, gemv and math in their ranges. Throws std::invalid_argument naming `fn`, the field,
/// its value and the rule.
template <class T>
void check_gemm_launch(const GemmArgs<T>& a, const GemmLaunch& l, const char* fn);

}  // namespace wb::tuned
