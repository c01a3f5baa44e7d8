/// \file tuned/gemv_cluster_launch.cuh
/// \brief How the tuned GEMV launches a split grid: the Y blocks that share a tile either form
///        one thread-block cluster (their partial sums meet in distributed shared memory) or
///        write global partials; use_cluster decides, launch_kernel launches either way.
#pragma once

#include "gemv_common.cuh"

#include <cuda_runtime.h>

#include <cstddef>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
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
    if (cluster_y > 8) {  // opt in to non-portable cluster sizes, once per kernel
        static std::mutex mu;
        static std::set<const void*> done;
        std::lock_guard<std::mutex> lock(mu);
        if (done.insert(reinterpret_cast<const void*>(kernel)).second)
            WB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    }
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = s;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 1;
    attr[0].val.clusterDim.y = static_cast<unsigned>(cluster_y);
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    WB_CUDA(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
}

}  // namespace wb::tuned
