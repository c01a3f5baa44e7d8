/// \file hybrid_conv2d.hpp
/// \brief Chapter 7's hybrid convolution: one call out = filter (x) in on host images, computed by
///        the GPU and the CPU at once. The GPU computes the output rows [0, gpu_rows), in bands of
///        chunk_rows rows, the CPU the rest (cpu::conv2d_rows, on every core but one while the GPU
///        works: cpu::ScopedOmpThreads), into the same image.
///
/// A band of output rows reads the input rows within FS/2 of it (hybrid_partition.hpp,
/// conv2d_input_rows): each band's input travels with its halo (a 2-D copy honouring the pitch),
/// the tuned step (chapter 5) convolves that band as an image of its own (zeros outside it), and
/// only the rows whose whole neighbourhood the band holds are copied back in place: the halo's
/// outputs are computed and dropped (2 (FS/2) rows per band, a small price against a second kernel
/// for the band's edges). The filter is copied once. gpu_rows = rows with chunk_rows = rows is the
/// all-GPU call: the image in, one convolution, the image out.
///
/// Balanced (pieces > 1, hybrid_balance.hpp): gpu_rows is the plan, not the split. The GPU claims
/// bands of at most chunk_rows rows from row 0 and the CPU `pieces`-th parts of its planned rows
/// from the last row while the call runs, until they meet where both end together as measured
/// (last_side_times().gpu_outputs: the GPU's rows). Where an image is pageable, or the share is
/// not strictly inside (0, rows), the call is the fixed share.
///
/// The contract (hybrid_common.hpp): returns when both sides have finished and every copy is
/// complete; a failure on either side surfaces as an exception after both have stopped, with the
/// output unspecified. Arguments: validate_conv2d (named "hybrid::conv2d"), 0 <= gpu_rows <= rows,
/// chunk_rows >= 1, pieces >= 1.
#pragma once

#include "conv2d.hpp"

namespace wb::hybrid {

template <class T>
void conv2d(const Conv2dArgs<T>& host, int gpu_rows, int chunk_rows, int pieces = 1);

/// The threads the convolution's CPU side runs on while the GPU side works: one fewer than
/// cpu::threads() (at least 1), a core left to the thread that waits for the GPU (cpu_peers.hpp, ScopedOmpThreads).
/// Chapter 7's model scales that share's time by their ratio.
int conv2d_cpu_side_threads();

}  // namespace wb::hybrid
