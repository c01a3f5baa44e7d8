/// \file tuned/gemm_dispatch.cuh
/// \brief From a call to its kernel: the template constants (op(A), op(B), 16-byte or element
///        copies, split k) chosen from the call's values, the grid, the shared-memory opt-in, and
///        the occupancy query the default rule asks. Included by the gemm_instances_*.cu files only.
#pragma once

#include "launch_checks.hpp"
#include "launch_limits.hpp"
#include "tuned/gemm_dispatch.hpp"
#include "tuned/gemm_kernel.cuh"
#include "tuned/gemm_pack.hpp"
#include "tuned/gemm_splitk.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <type_traits>

namespace wb::tuned::gemm_impl {
namespace {

template <class Cfg, bool TA, bool TB, bool VEC, bool SPLIT>
void launch_kernel(const GemmArgs<typename Cfg::type>& a, bool vec_c, cudaStream_t s, const char* fn, int slices,
                   int k_slice) {
    auto kernel = gemm_kernel<Cfg, TA, TB, VEC, SPLIT>;
    if (Cfg::SMEM > 48 * 1024) {  // above 48 KB a kernel must opt in (once per device)
        static thread_local unsigned long long done = 0;
        int dev = 0;
        WB_CUDA(cudaGetDevice(&dev));
        if (!(done >> (dev % 64) & 1)) {
            WB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(Cfg::SMEM)));
            done |= 1ull << (dev % 64);
        }
    }
    const dim3 grid(gemm_detail::grid_dim(gemm_detail::ceil_div(a.m, Cfg::BM), static_cast<long long>(kMaxGridX), fn),
                    gemm_detail::grid_dim(gemm_detail::ceil_div(a.n, Cfg::BN), kMaxGridYZ, fn), slices);
    kernel<<<grid, Cfg::THREADS, Cfg::SMEM, s>>>(a.m, a.n, a.k, a.alpha, a.A, a.lda, a.B, a.ldb, a.beta, a.C, a.ldc,
                                                 vec_c, k_slice, static_cast<long long>(a.m) * a.n);
}

/// The kernel for the call's transpose combination (op(A), op(B) in {N, T}), split or not.
template <class Cfg, bool VEC>
void launch_ops(const GemmArgs<typename Cfg::type>& a, bool vec_c, cudaStream_t s, const char* fn, int slices,
                int k_slice) {
    auto pick = [&](auto ta_, auto tb_) {
        constexpr bool TA = decltype(ta_)::value, TB = decltype(tb_)::value;
        if (slices > 1) launch_kernel<Cfg, TA, TB, VEC, true>(a, vec_c, s, fn, slices, k_slice);
        else launch_kernel<Cfg, TA, TB, VEC, false>(a, vec_c, s, fn, 1, 0);
    };
    using F = std::false_type;
    using Tr = std::true_type;
    const bool ta = a.op_a == Op::T, tb = a.op_b == Op::T;
    if (!ta && !tb) pick(F{}, F{});
    else if (!ta && tb) pick(F{}, Tr{});
    else if (ta && !tb) pick(Tr{}, F{});
    else pick(Tr{}, Tr{});
}

/// Resident blocks per SM of one kernel (cached per device). The kernels of one configuration
/// differ in registers (ptxas, sm_90): the 16-wide tiles' 16-byte kernels fit 4 blocks per SM,
/// their element-copy ones 3. So the rule asks about the kernel the call will run.
template <class Cfg, const GemmConfig& E, bool TA, bool TB, bool VEC, bool SPLIT>
int kernel_blocks_per_sm() {
    thread_local std::map<int, int> cache;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {  // no GPU (predict-only): an H100's or H200's, so that
        cudaGetLastError();                     // the rule picks as it does there
        return E.sm90_blocks;
    }
    auto it = cache.find(dev);
    if (it != cache.end()) return it->second;
    auto kernel = gemm_kernel<Cfg, TA, TB, VEC, SPLIT>;
    if (Cfg::SMEM > 48 * 1024)
        WB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(Cfg::SMEM)));
    int b = 0;
    WB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, kernel, Cfg::THREADS, Cfg::SMEM));
    cache[dev] = b < 1 ? 1 : b;
    return cache[dev];
}

}  // namespace

template <class T, const GemmConfig& E>
void run_config(const GemmArgs<T>& in, int split, cudaStream_t s, const char* fn) {
    using Cfg = KernelConfig<T, E>;
    GemmArgs<T> a = in;
    int slices = 1, kc = 0;
    if (split > 1) {  // the slices write partials to the workspace; splitk::sum applies alpha, beta
        std::tie(kc, slices) = splitk::slice_k(a.k, split, Cfg::BK);
        if (slices > 1) {
            a.C = static_cast<T*>(splitk::workspace(static_cast<std::size_t>(slices) * a.m * a.n * sizeof(T), s));
            a.ldc = a.m;
            a.alpha = T(1);
            a.beta = T(0);
        }
    }
    // 16-byte copies need both operands' base pointers 16-byte aligned and lda, ldb multiples of
    // the vector width (every column starts aligned); otherwise element-wise copies.
    const bool vec = pack::aligned16(a.A, a.lda) && pack::aligned16(a.B, a.ldb);
    const bool vec_c = pack::aligned16<T>(a.C, a.ldc);
    auto run = [&](auto cfg) {
        using K = decltype(cfg);
        if (vec) launch_ops<K, true>(a, vec_c, s, fn, slices, kc);
        else launch_ops<K, false>(a, vec_c, s, fn, slices, kc);
    };
    // A prefetching configuration's grid of at most one block per SM runs its ONE_WAVE kernel.
    if constexpr (Cfg::HAS_ONE_WAVE) {
        const long long blocks =
            static_cast<long long>(gemm_detail::ceil_div(a.m, Cfg::BM)) * gemm_detail::ceil_div(a.n, Cfg::BN) * slices;
        if (blocks <= launch_checks::sm_count()) run(KernelConfig<T, E, true>{});
        else run(Cfg{});
    } else {
        run(Cfg{});
    }
    if (slices > 1) splitk::sum<T>(in.m, in.n, slices, a.C, in.alpha, in.beta, in.C, in.ldc, s);
}

template <class T, const GemmConfig& E>
int resident_blocks(bool ta, bool tb, bool vec, bool split) {
    using Cfg = KernelConfig<T, E>;
    auto pick = [&](auto ta_, auto tb_) {
        constexpr bool TA = decltype(ta_)::value, TB = decltype(tb_)::value;
        if (vec)
            return split ? kernel_blocks_per_sm<Cfg, E, TA, TB, true, true>()
                         : kernel_blocks_per_sm<Cfg, E, TA, TB, true, false>();
        return split ? kernel_blocks_per_sm<Cfg, E, TA, TB, false, true>()
                     : kernel_blocks_per_sm<Cfg, E, TA, TB, false, false>();
    };
    using F = std::false_type;
    using Tr = std::true_type;
    if (ta) return tb ? pick(Tr{}, Tr{}) : pick(Tr{}, F{});
    return tb ? pick(F{}, Tr{}) : pick(F{}, F{});
}

}  // namespace wb::tuned::gemm_impl

