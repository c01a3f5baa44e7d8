/// \file access/conv2d.cu
/// \brief Chapter 4 — convolution with the access pattern fixed: conflict-free 16-byte
///        shared-memory reads from aligned, padded rows, 16-byte global loads of the window, and
///        halo loads that stay coalesced at the image edges.
///
/// What changes against chapter 3 (White, Listing 5.4: padding and aligned rows):
/// - The conflict: in chapter 3 a warp's 32 threads read pixels RX words apart (RX-way bank
///   conflict). Here a warp is 8 lanes along x by 4 along y, and each lane reads its window
///   as 16-byte vectors: a quarter-warp's 8 lanes read 8 consecutive vectors, 128 contiguous
///   bytes, one wavefront with no conflict. The window's rows are padded to whole 16-byte
///   vectors (plus one) so that every row starts aligned: the padding White adds to the image
///   (Listing 5.4) moves into shared memory, where it costs nothing in DRAM.
/// - The register window slides W taps at a time (W = 4 floats or 2 doubles per vector): one
///   16-byte shared read per W taps and RX x W FMAs, where chapter 3 read one word per tap.
/// - Global loads of the window are 16 bytes wide where the image allows (base pointer aligned,
///   pitch a multiple of the vector width): each row is read from the aligned column at or before
///   the window's first one, so the halo does not break the alignment; vectors that cross the
///   image's edge are read element by element, still by consecutive threads (coalesced).
/// - Block order: White reorders blocks against partition camping on the T10 (8 partitions of
///   256 bytes). Hopper hashes addresses across its channels (the h200 preset has no linear
///   partition map), so the launch keeps the natural order; chapter 0 measures that camping is
///   gone.
/// Model: a thread computes RX = 4 outputs of one row; tile 64 x 16; shared wavefronts per FMA
///   fall from about 1 (chapter 3, float) to 1 / (RX W) = 1/16 (float); one filter load per tap
///   (a constant-cache broadcast) serves RX FMAs: instruction issue, not shared memory, limits.
/// Run: ./workbook run ch04 -- --op conv2d       (Conv2dLaunch: thread 4x1, block 256, tile 64x16)
#include "conv2d_common.cuh"

namespace wb::access {

template <class T>
void conv2d(const Conv2dArgs<T>& a, const Conv2dLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "access::conv2d";
    using B = conv2d_detail::Blocked<T, 4, 1>;
    conv2d_detail::require_launch(l.thread_x == 0 || l.thread_x == B::RX, fn, "thread_x", l.thread_x, "4 or 0");
    conv2d_detail::require_launch(l.thread_y <= 1, fn, "thread_y", l.thread_y, "1 or 0");
    conv2d_detail::require_launch(l.block_x == 0 || l.block_x == B::THREADS, fn, "block_x", l.block_x, "256 or 0");
    conv2d_detail::require_launch(l.block_y <= 1, fn, "block_y", l.block_y, "1 or 0");
    conv2d_detail::require_launch(l.tile_x == 0 || l.tile_x == B::TX, fn, "tile_x", l.tile_x, "64 or 0");
    conv2d_detail::require_launch(l.tile_y == 0 || l.tile_y == B::TY, fn, "tile_y", l.tile_y, "16 or 0");
    if (!conv2d_detail::conv2d_begin(a, fn)) return;
    conv2d_detail::launch_blocked<T, 4, 1>(a, s, fn);
    WB_CHECK_LAUNCH();
}

template void conv2d<float>(const Conv2dArgs<float>&, const Conv2dLaunch&, cudaStream_t);
template void conv2d<double>(const Conv2dArgs<double>&, const Conv2dLaunch&, cudaStream_t);

}  // namespace wb::access
