// sgemm_3xtf32_step.cpp — the 3xTF32 SGEMM (sgemm_3xtf32.hpp) as a Step: what chapter 5's extra
// rows and the gpu tests launch.
#include "tuned/sgemm_3xtf32.hpp"

#include "launch_checks.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace wb::tuned {
namespace {

int tile_of(const GemmLaunch& l) {
    if (l.tile_m == 0 && l.tile_n == 0) return -1;  // the kernel's default
    for (int i = 0; i < kSgemm3xTf32TileCount; ++i)
        if (kSgemm3xTf32Tiles[i].tile_m == l.tile_m && kSgemm3xTf32Tiles[i].tile_n == l.tile_n) return i;
    throw std::invalid_argument("3xTF32 sgemm: launch tile (" + std::to_string(l.tile_m) + " x " +
                                std::to_string(l.tile_n) + ") must be one of kSgemm3xTf32Tiles (or 0 x 0)");
}

GemmLaunch launch_of(int tile, int split) {
    const Sgemm3xTf32Tile& t = kSgemm3xTf32Tiles[tile];
    GemmLaunch l;
    l.tile_m = t.tile_m;
    l.tile_n = t.tile_n;
    l.tile_k = t.tile_k;
    l.warp_m = t.warp_m;
    l.warp_n = t.warp_n;
    l.stages = t.stages;
    l.block_x = 32 * (t.tile_m / t.warp_m) * (t.tile_n / t.warp_n);  // the tile's warps
    l.block_y = 1;
    l.split_k = split;
    return l;
}

void launch_tc(const GemmArgs<float>& a, const GemmLaunch& l, cudaStream_t s) {
    sgemm_3xtf32(a, s, l.split_k, tile_of(l), Sgemm3xTf32Sum::kTensorCores);
}
void launch_fp32(const GemmArgs<float>& a, const GemmLaunch& l, cudaStream_t s) {
    sgemm_3xtf32(a, s, l.split_k, tile_of(l), Sgemm3xTf32Sum::kFp32);
}

}  // namespace

Step<GemmArgs<float>> sgemm_3xtf32_step(Sgemm3xTf32Sum sum) {
    const bool fp32 = sum == Sgemm3xTf32Sum::kFp32;
    return Step<GemmArgs<float>>(
        std::string(fp32 ? "3xTF32 FP32 sum" : "3xTF32"),
        fp32 ? "SGEMM on the TF32 tensor cores, three products per multiply, each k-step's partial added in FP32"
             : "SGEMM on the TF32 tensor cores, three products per multiply, summed on the tensor cores",
        fp32 ? &launch_fp32 : &launch_tc,
        [](const GemmArgs<float>& a) {
            // The launch sgemm_3xtf32 picks (the GPU's SMs, clock and bandwidth, or an H200's without one).
            const Sgemm3xTf32Launch d = sgemm_3xtf32_default(a.m, a.n, a.k, tc::machine());
            return launch_of(d.tile, d.split);
        },
        [](const GemmArgs<float>&) {
            std::vector<GemmLaunch> v;
            for (int t = 0; t < kSgemm3xTf32TileCount; ++t)
                for (int split : {1, 2, 4}) v.push_back(launch_of(t, split));
            return v;
        });
}

}  // namespace wb::tuned
