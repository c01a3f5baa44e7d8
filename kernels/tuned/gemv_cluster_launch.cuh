/// \file tuned/gemv_cluster_launch.cuh
/// \brief How the tuned GEMV launches a split grid: the Y blocks that share a tile either form
///        one thread-block cluster (their partial sums meet in distributed shared memory) or
///        write global partials; use_cluster decides, launch_kernel launches either way.
#pragma once

#include "gemv_common.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

namespace wb::tuned {

/// Largest cluster the tuned kernels ask for: 16 blocks is Hopper's non-portable maximum (8 is
/// the portable one; the kernels opt in to 16).
constexpr int kMaxCluster = 16;

/// The split of a launch: through a cluster (GemvLaunch::cluster 2, or 0 where the device has
/// clusters and 1 < Y <= kMaxCluster) or through global partials (GemvLaunch::cluster 1, or Y beyond
/// a cluster). Auto takes a cluster of more than 8 blocks only for blocks of at most 256 threads:
/// a cluster's blocks run on one GPC at once, and 16 blocks of 512 threads (one per SM at the
/// tuned kernels' register use) need 16 free SMs there, which not every GPC has.
/// Throws when a cluster is requested that the device or Y cannot have.
inline bool use_cluster(int Y, int requested, int block_threads, const char* fn) {
    if (requested == 1 || Y <= 1) return false;
    const bool can = Y <= kMaxCluster && launch_checks::device_attribute(cudaDevAttrClusterLaunch, 1) != 0;
    if (requested == 2 && !can)
        throw std::invalid_argument(std::string(fn) + ": launch.cluster (2) needs a device with thread-block clusters "
                                    "(compute capability 9.0+) and Y (" + std::to_string(Y) + ") <= " +
                                    std::to_string(kMaxCluster));
    return can && (requested == 2 || Y <= 8 || block_threads <= 256);
}

/// A launch configuration whose blocks (x, 0 .. cluster_y - 1) form one cluster; `attr` holds
/// the cluster's dimension and must outlive the configuration.
inline cudaLaunchConfig_t cluster_config(dim3 grid, dim3 block, std::size_t smem, cudaStream_t s, int cluster_y,
                                         cudaLaunchAttribute& attr) {
    attr = {};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = 1;
    attr.val.clusterDim.y = static_cast<unsigned>(cluster_y);
    attr.val.clusterDim.z = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = s;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    return cfg;
}

/// Opts `kernel` in to non-portable cluster sizes (more than 8 blocks), once per kernel.
inline void allow_large_clusters(const void* kernel) {
    static std::mutex mu;
    static std::set<const void*> done;
    std::lock_guard<std::mutex> lock(mu);
    if (done.insert(kernel).second)
        WB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
}

/// Whether `tiles` clusters of Y blocks run in no more waves than the same tiles x Y blocks
/// launched plain. A cluster's blocks must be resident at once on the SMs of one GPC, so a GPU
/// holds whole clusters per GPC: where a GPC's free block slots are not a multiple of Y (132
/// SMs in GPCs of unequal size; one 512-thread block per SM at the tuned kernels' registers),
/// the clusters that fit hold fewer blocks than the SMs do, and a grid that is one wave plain
/// becomes two (a memory-bound kernel then takes up to twice as long: 1.3-1.8x measured on the
/// H200 wherever this held, 0.93-1.0x elsewhere; docs/notes/gemv.md). The device answers both
/// counts (cudaOccupancyMaxActiveClusters, cudaOccupancyMaxActiveBlocksPerMultiprocessor); asked
/// once per device, kernel, Y, block and shared memory.
template <class... Params>
bool cluster_adds_no_wave(void (*kernel)(Params...), long long tiles, int Y, dim3 block, std::size_t smem) {
    struct Key {
        const void* k;
        int device, y, threads;
        std::size_t smem;
        bool operator<(const Key& o) const {
            return std::tie(k, device, y, threads, smem) < std::tie(o.k, o.device, o.y, o.threads, o.smem);
        }
    };
    static std::mutex mu;
    static std::map<Key, std::pair<int, int>> known;  // (clusters resident, blocks resident per SM)
    const int threads = static_cast<int>(block.x * block.y * block.z);
    int device = 0;
    WB_CUDA(cudaGetDevice(&device));  // the counts are the current device's (the launch's)
    const Key key{reinterpret_cast<const void*>(kernel), device, Y, threads, smem};
    std::pair<int, int> fit{0, 0};
    {
        std::lock_guard<std::mutex> lock(mu);
        const auto it = known.find(key);
        if (it != known.end()) fit = it->second;
    }
    if (fit.second == 0) {
        if (Y > 8) allow_large_clusters(key.k);
        cudaLaunchAttribute attr;
        const cudaLaunchConfig_t cfg = cluster_config(dim3(1, static_cast<unsigned>(Y)), block, smem, nullptr, Y, attr);
        int clusters = 0, per_sm = 0;
        if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg) != cudaSuccess ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem) != cudaSuccess) {
            cudaGetLastError();  // no answer: keep the cluster (the former rule)
            return true;
        }
        fit = {clusters, std::max(1, per_sm)};
        std::lock_guard<std::mutex> lock(mu);
        known[key] = fit;
    }
    if (fit.first <= 0) return false;
    const long long slots = static_cast<long long>(launch_checks::sm_count()) * fit.second;
    const long long plain_waves = (tiles * Y + slots - 1) / slots;
    const long long cluster_waves = (tiles + fit.first - 1) / fit.first;
    return cluster_waves <= plain_waves;
}

/// use_cluster, and for auto (requested 0) only where the clusters add no wave
/// (cluster_adds_no_wave) for `tiles` tiles of `kernel`.
template <class... Params>
bool use_cluster_for(void (*kernel)(Params...), long long tiles, int Y, int requested, dim3 block, std::size_t smem,
                     const char* fn) {
    if (!use_cluster(Y, requested, static_cast<int>(block.x * block.y * block.z), fn)) return false;
    return requested == 2 || cluster_adds_no_wave(kernel, tiles, Y, block, smem);
}

/// Launches `kernel` on grid x block; with cluster_y > 1 the blocks (x, 0 .. cluster_y-1) form
/// one cluster (grid.y == cluster_y).
template <class... Params, class... Args>
void launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem, cudaStream_t s, int cluster_y,
                   Args&&... args) {
    if (cluster_y <= 1) {
        kernel<<<grid, block, smem, s>>>(std::forward<Args>(args)...);
        WB_CHECK_LAUNCH();
        return;
    }
    if (cluster_y > 8) allow_large_clusters(reinterpret_cast<const void*>(kernel));
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg = cluster_config(grid, block, smem, s, cluster_y, attr);
    WB_CUDA(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
}

}  // namespace wb::tuned
