/// \file derived_launch.hpp
/// \brief Chapter 6's derivations (common/derive) as the launches the tuned steps take: the one
///        place that reads a Derivation's parameters into a GemvLaunch, GemmLaunch, SymvLaunch,
///        Conv2dLaunch or CgLaunch, and that lists the tuned kernels' instantiated tiles as the
///        derivations' candidates. Chapter 6, its gpu tests and its cpu legality tests all use it.
#pragma once

#include "cg.hpp"
#include "conv2d.hpp"
#include "derive/derivation.hpp"
#include "gemm.hpp"
#include "gemv_launch.hpp"
#include "gemv_rules.hpp"
#include "symv.hpp"

#include <vector>

namespace wb::ch06 {

/// derive_gemv for a call of this shape (its leading dimension and alignment decide N's loads,
/// tuned_gemv_loads).
derive::Derivation derive_gemv_call(const DeviceProfile& dev, const GemvShape& s);
/// The GEMV launch: block_x, block_y (= Q), Y and, by op, C (nb, T) or U (ept, N).
GemvLaunch gemv_launch_of(const derive::Derivation& d, bool trans);

/// Chapter 6's GEMM for one call: the derivation of the call its main loop runs and the launch.
struct GemmDerived {
    derive::Derivation derivation;
    GemmLaunch launch;  ///< tuned::gemm_derived_launch: chapter 5's default on the same profile
    bool runs = false;  ///< false: none of chapter 5's kernels fits the profile (the T10): the
                        ///< derivation is White's or over the powers of two, and `launch` is empty
};
/// The derivation for call `a` on `dev` (`live`: dev is the current device's profile): the GEMV
/// where C is a vector, the tensor cores where rule 2 takes them (double), otherwise the call
/// tuned::gemm_copies_view leaves (A packed, operands copied) derived over the configurations,
/// and a line for each copy the rule weighed.
template <class T>
GemmDerived derive_gemm_call(const DeviceProfile& dev, const GemmArgs<T>& a, bool live);

/// The tuned GEMM configurations' measured rates the derivation reads (tuned::gemm_kernel_rates:
/// with `live` measured on the current device, else the H200's), one line per configuration:
/// "  <precision> <launch>  op(A) = A^T x<rate>  element copies x<rate>", after a heading line.
std::string gemm_kernel_rates_text(int elem_bytes, bool live);

/// derive_symv for an n x n matrix with leading dimension lda (16-byte loads where lda allows).
derive::Derivation derive_symv_call(const DeviceProfile& dev, long long n, long long lda, int elem_bytes);
/// The SYMV launch a derivation names (tuned::symv_launch_of: chapter 5's default reads it so).
/// `prefix`: "" for derive_symv, "mv." for derive_cg's Mv.
SymvLaunch symv_launch_of(const derive::Derivation& d, const char* prefix = "");

/// The convolution launch a derivation names (tuned::conv2d_launch_of).
Conv2dLaunch conv2d_launch_of(const derive::Derivation& d);
/// derive_conv2d over the tuned convolution's instantiated launches for filter size fs
/// (tuned::conv2d_derive_tiles of tuned::conv2d_configs): the derivation chapter 5's default is.
derive::Derivation derive_conv2d_call(const DeviceProfile& dev, long long rows, long long cols, int fs, int elem_bytes,
                                      bool vector_rows = true);

/// The CG launch: the vector kernels' block, the check interval and the schedule derived; any
/// other field `deflt`'s (the Mv runs the tuned SYMV's default inside the solve).
CgLaunch cg_launch_of(const derive::Derivation& d, const CgLaunch& deflt = CgLaunch{});

}  // namespace wb::ch06
