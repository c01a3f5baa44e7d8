/// \file tuned/gemm_default_rule.hpp
/// \brief The tuned GEMM's default launch, chosen on the host from the shape of the call: which
///        configuration (gemm_config.hpp), k split or not, op(A) = A^T packed or read transposed,
///        unaligned operands copied or not, or the call run as chapter 5's GEMV. Host code: the
///        CPU tests check its picks without a GPU (tests/cpu/test_gemm_default_rule.cpp).
///
/// The default launch is chapter 6's derivation (derive/derivation.hpp, derive_gemm) on the
/// device's profile: the GEMV where C is a vector, the FP64 tensor cores where they run (double),
/// and otherwise the configuration and split of k the derivation gives for the call as the main
/// loop sees it. Which call that is (op(A) = A^T packed first or read transposed, unaligned
/// operands copied first or read where they are) the derivation weighs too: per choice its time
/// for the call that leaves (each configuration's rates with op(A) = A^T and with element copies
/// measured on the device: gemm_kernel_rates.hpp) plus the copies' bytes at the copy ceiling.
#pragma once

#include "derive/derivation.hpp"
#include "gemm.hpp"

#include <vector>

namespace wb::tuned {

/// Each workspace the default rule may ask for (the split's partials, a packed or copied operand).
inline constexpr double kMaxWorkspaceBytes = 512.0 * 1024 * 1024;

/// True where the FP64 tensor-core kernel runs here: double, on a device with FP64 tensor cores
/// (sm_90+) for which this build holds the kernel (no device: false).
template <class T>
bool gemm_takes_tensor_cores();

/// The instantiated configurations of T (the ladder's legal_launches), largest tile first.
template <class T>
std::vector<GemmLaunch> gemm_configs();

/// The default launch: gemm_derived_launch on the current device's profile
/// (derive::default_profile), cached per thread for each device and class of call.
template <class T>
GemmLaunch gemm_default(const GemmArgs<T>& a);

/// The derivation's candidates for a call of T (gemm_derived.cpp): every configuration (its tiles, stages and launch
/// bound; with `live`, its blocks per SM read from the compiled kernel for op(A), op(B) and the
/// copies `vec` the call takes), and with `tensor_ok` the FP64 tensor-core kernel where it runs
/// (`live`: on the current device; otherwise where `dev` has FP64 tensor cores of compute 9.0,
/// the sm_90 mma the kernel is built from).
template <class T>
std::vector<derive::GemmTile> gemm_derive_tiles(const DeviceProfile& dev, bool live, const GemmArgs<T>& a,
                                                bool tensor_ok);

/// derive_gemm for call `a` on `dev` (`live`: dev is the current device), its candidates
/// gemm_derive_tiles: the derivation the default launch reads. `gemv_ok` false: the tiles even
/// where C is a vector (the tiled rule's).
template <class T>
derive::Derivation gemm_derivation(const GemmArgs<T>& a, const DeviceProfile& dev, bool live, bool tensor_ok = true,
                                   bool gemv_ok = true);

/// The launch a derivation names: the GEMV (gemv = 2), the FP64 tensor cores (math = 2), or the
/// configuration of `configs` with the derived tile and its split of k (0: none). Throws
/// std::invalid_argument where no configuration has the derived tile (White's T10 launch, or the
/// powers of two on a device none of the configurations fits).
GemmLaunch gemm_launch_of(const derive::Derivation& d, const std::vector<GemmLaunch>& configs);

/// The call the tiled rule's main loop runs on `dev` (`live`: the current device's profile): `a`
/// itself, or with op(A) = A^T packed into a workspace (op_a = N, A null) and unaligned operands
/// copied to aligned workspaces (A or B null, ld a 128-byte line), as the rule decides. `why`
/// (when not null) gets a line for each choice the call has (pack_a, align: the chosen value and
/// every alternative's derived time), for chapter 6 to print.
template <class T>
GemmArgs<T> gemm_copies_view(const GemmArgs<T>& a, const DeviceProfile& dev, bool live,
                             std::vector<derive::Derived>* why = nullptr);

/// Where the derivation takes the FP64 tensor cores for a call whose operands are not 16-byte
/// aligned (double): the `align` line chapter 6 prints, reading them in place (1) or copying them
/// to aligned columns first (2), with both derived times; false elsewhere.
template <class T>
bool gemm_tc_align_line(const GemmArgs<T>& a, const DeviceProfile& dev, bool live, derive::Derived* line);

/// The default launch on profile `dev` (`live`: the current device's): the GEMV where C is a
/// vector (gemm_as_gemv), the tensor cores where the derivation takes them, otherwise the tiled
/// rule: the derived weighing of packing and aligned copies, and the derived configuration and
/// split for the call that leaves. Uncached: chapter 6 calls it with presets.
template <class T>
GemmLaunch gemm_derived_launch(const GemmArgs<T>& a, const DeviceProfile& dev, bool live);

/// The tiled rule's pick (configuration, split_k, pack_a, align: the FMA kernels, never the tensor
/// cores or the GEMV), cached per thread for each device and class of call.
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
