/// \file tuned/gemm_derived.cpp
/// \brief The tuned GEMM as chapter 6's derivation sees it (gemm_default_rule.hpp): the
///        configurations and the tensor-core kernel as candidate tiles, the derivation of a call,
///        and the launch a derivation names. The default rule (gemm_default_rule.cpp) reads them.
#include "tuned/gemm_default_rule.hpp"

#include "launch_checks.hpp"

#include "tuned/dgemm_tc_rule.hpp"
#include "tuned/dgemm_tensor_core.hpp"
#include "tuned/gemm_config.hpp"
#include "tuned/gemm_dispatch.hpp"
#include "tuned/gemm_kernel_rates.hpp"
#include "tuned/gemm_pack.hpp"
#include "tuned/gemm_splitk.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace wb::tuned {

using pack::aligned16;
using splitk::kMaxSplit;

/// True where the tensor-core kernel runs here: double, on a device with FP64 tensor cores
/// (sm_90+) for which this build holds the kernel.
template <class T>
bool gemm_takes_tensor_cores() {
    if constexpr (!std::is_same_v<T, double>) return false;
    int dev = -1;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return dgemm_tensor_core_supported(dev);
}

template <class T, const GemmConfig&... E>
std::vector<derive::GemmTile> config_tiles(bool live, bool ta, bool tb, bool vec, ConfigList<E...>) {
    return {derive::GemmTile{E.tile_m, E.tile_n, E.tile_k, E.thread_m, E.thread_n, E.stages, E.min_blocks,
                             live ? gemm_impl::resident_blocks<T, E>(ta, tb, vec, false) : 0}...};
}

namespace {
/// What the derivation's counts miss, measured for this tile's kernel (gemm_kernel_rates.hpp).
void take_rates(derive::GemmTile& t, const GemmKernelRates& r) {
    t.transposed_a_rate = r.transposed_a;
    t.op_nt_rate = r.op_nt;
    t.op_tt_rate = r.op_tt;
    t.element_rate = r.element;
    t.tn_element_rate = r.tn_element;
    t.nt_element_rate = r.nt_element;
    t.tt_element_rate = r.tt_element;
    t.epilogue_gbs = r.epilogue_gbs;
}
}  // namespace

namespace {

/// Each FMA configuration's main loop as measured over as counted (GemmTile::main_loop_scale): what
/// the derivation gives its kernel's timed call (whole rounds of resident blocks, no split) with
/// the tile the call reads (`ta`, `tb`: its op pair; `vec`: 16-byte copies; on a GPU each compiled
/// kernel's own resident blocks) over the time the device measured for it
/// (GemmKernelRates::main_ms); 0 where not measured or where the tile does not fit `dev` alone
/// (derive_gemm throws: a preset's or a smaller card's). Computed once per host thread, device,
/// profile and tile kind: the rule asks for the tiles of every choice it weighs (three times its
/// time per call when computed each time). The tile kind is part of the key because on a GPU each
/// op pair's and copy width's compiled kernel has its own resident blocks, so the same timed call
/// counts differently per kind (on a preset it does not: the table's blocks are the same for all).
template <class T>
const std::vector<double>& main_loop_scales(const DeviceProfile& dev, bool live, bool ta, bool tb, bool vec) {
    int device = -1;
    if (live && cudaGetDevice(&device) != cudaSuccess) {
        cudaGetLastError();
        device = -1;
    }
    // What derive_gemm reads of the profile for the timed call of the FMA tiles, and the tile kind.
    using Key = std::tuple<int, std::string, int, double, double, double, double, int, int, int, int, bool, bool, bool>;
    const Key key{live ? device : -1,    dev.name,          dev.sm_count,          dev.sm_clock_mhz,
                  dev.bandwidth_gbs,     dev.sgemm_clock_mhz, dev.dgemm_clock_mhz, dev.regs_per_sm,
                  dev.smem_per_sm_bytes, dev.fp32_lanes_per_sm, dev.fp64_lanes_per_sm, ta, tb, vec};
    thread_local std::map<Key, std::vector<double>> cache;
    if (auto it = cache.find(key); it != cache.end()) return it->second;
    std::vector<derive::GemmTile> tiles = config_tiles<T>(live, ta, tb, vec, typename Configs<T>::type{});
    const std::vector<GemmKernelRates>& rates = gemm_kernel_rates<T>(live);
    const std::vector<GemmLaunch> timed = gemm_rate_launches<T>();
    const int sms = live ? launch_checks::sm_count() : dev.sm_count;
    std::vector<double> scales(tiles.size(), 0.0);
    for (std::size_t i = 0; i < tiles.size() && i < rates.size() && i < timed.size(); ++i) {
        if (!(rates[i].main_ms > 0)) continue;
        take_rates(tiles[i], rates[i]);  // its epilogue's measured bandwidth among them
        const GemmTimedCall s = gemm_rate_shape(timed[i], sms);
        derive::GemmCall rc;
        rc.m = s.m;
        rc.n = s.n;
        rc.k = s.k;
        rc.elem_bytes = sizeof(T);
        rc.max_split_k = 1;
        rc.reads_c = false;
        try {
            const double counted = derive::derive_gemm(dev, rc, {tiles[i]}).seconds;
            if (counted > 0) scales[i] = counted / (rates[i].main_ms * 1e-3);
        } catch (const std::invalid_argument&) {
        }
    }
    return cache.emplace(key, std::move(scales)).first->second;
}

}  // namespace

template <class T>
std::vector<derive::GemmTile> gemm_derive_tiles(const DeviceProfile& dev, bool live, const GemmArgs<T>& a,
                                                bool tensor_ok) {
    const bool vec = aligned16(a.A, a.lda) && aligned16(a.B, a.ldb);
    std::vector<derive::GemmTile> v =
        config_tiles<T>(live, a.op_a == Op::T, a.op_b == Op::T, vec, typename Configs<T>::type{});
    // What the derivation's counts miss, measured per configuration (on this device where live).
    const std::vector<GemmKernelRates>& rates = gemm_kernel_rates<T>(live);
    for (std::size_t i = 0; i < v.size() && i < rates.size(); ++i) take_rates(v[i], rates[i]);
    const std::vector<double>& scales = main_loop_scales<T>(dev, live, a.op_a == Op::T, a.op_b == Op::T, vec);
    for (std::size_t i = 0; i < v.size() && i < scales.size(); ++i) v[i].main_loop_scale = scales[i];
    // The tensor-core kernel is built from sm_90's mma.sync.m16n8k8.f64 (tuned/dgemm_tensor_core.hpp).
    const bool tc = std::is_same_v<T, double> && tensor_ok &&
                    (live ? gemm_takes_tensor_cores<T>() : dev.fp64_mma_lanes_per_sm > dev.fp64_lanes_per_sm);
    if (tc) {  // each of its tiles (64 x 64, the skinny 128 x 16 and 16 x 128, 96 x 128 x 32), split like the others
        int device = 0;
        const bool here = live && cudaGetDevice(&device) == cudaSuccess;
        if (!here) cudaGetLastError();
        for (int i = 0; i < kDgemmTcTileCount; ++i) {
            const DgemmTcTile k = kDgemmTcTiles[i];
            derive::GemmTile t{k.tile_m, k.tile_n, k.tile_k, k.warp_m, k.warp_n, k.stages, 1,
                               here ? dgemm_tensor_core_resident_blocks(device, i) : k.sm90_blocks};
            t.tensor_core = true;
            // Its measured rates follow the configurations' (gemm_rate_launches' order).
            const std::size_t r = gemm_configs<T>().size() + static_cast<std::size_t>(i);
            if (r < rates.size()) take_rates(t, rates[r]);
            v.push_back(t);
        }
    }
    return v;
}

template <class T>
derive::Derivation gemm_derivation(const GemmArgs<T>& a, const DeviceProfile& dev, bool live, bool tensor_ok,
                                   bool gemv_ok) {
    derive::GemmCall c;
    c.m = a.m;
    c.n = a.n;
    c.k = a.k;
    c.elem_bytes = sizeof(T);
    c.aligned = aligned16(a.A, a.lda) && aligned16(a.B, a.ldb);
    c.vector_c = gemv_ok && gemm_as_gemv<T>(a, nullptr);
    c.max_split_k = kMaxSplit;
    c.max_workspace_bytes = kMaxWorkspaceBytes;
    c.reads_c = a.beta != T(0);
    c.transposed_a = a.op_a == Op::T;
    c.op_b_t = a.op_b == Op::T;
    return derive::derive_gemm(dev, c, gemm_derive_tiles<T>(dev, live, a, tensor_ok));
}

GemmLaunch gemm_launch_of(const derive::Derivation& d, const std::vector<GemmLaunch>& configs) {
    auto has = [&](const char* p) {
        return std::any_of(d.params.begin(), d.params.end(), [&](const derive::Derived& x) { return x.parameter == p; });
    };
    GemmLaunch g;
    if (has("gemv")) {
        g.gemv = 2;
        return g;
    }
    if (has("math") && d.value("math") == 2) {  // the tensor cores: the derived tile of theirs, split as derived
        const int index = has("tile_m") ? dgemm_tc_tile_index(static_cast<int>(d.value("tile_m")),
                                                              static_cast<int>(d.value("tile_n")))
                                        : 0;
        const int split = has("split_k") && d.value("split_k") > 1 ? static_cast<int>(d.value("split_k")) : 0;
        return dgemm_tc_launch(index < 0 ? 0 : index, split);
    }
    if (has("tile_m"))
        for (const GemmLaunch& c : configs)
            if (c.tile_m == d.value("tile_m") && c.tile_n == d.value("tile_n") && c.tile_k == d.value("tile_k")) {
                g = c;
                g.split_k = d.value("split_k") > 1 ? static_cast<int>(d.value("split_k")) : 0;
                return g;
            }
    throw std::invalid_argument("tuned::gemm_launch_of: the derived tile (" + d.launch() +
                                ") must be one of the configurations (" + std::to_string(configs.size()) + ")");
}

template bool gemm_takes_tensor_cores<float>();
template bool gemm_takes_tensor_cores<double>();
template std::vector<derive::GemmTile> gemm_derive_tiles<float>(const DeviceProfile&, bool, const GemmArgs<float>&, bool);
template std::vector<derive::GemmTile> gemm_derive_tiles<double>(const DeviceProfile&, bool, const GemmArgs<double>&,
                                                                 bool);
template derive::Derivation gemm_derivation<float>(const GemmArgs<float>&, const DeviceProfile&, bool, bool, bool);
template derive::Derivation gemm_derivation<double>(const GemmArgs<double>&, const DeviceProfile&, bool, bool, bool);

}  // namespace wb::tuned
