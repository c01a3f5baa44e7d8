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
/// The contract (hybrid_common.hpp): returns when both sides have finished and every copy is
/// complete; a failure on either side surfaces as an exception after both have stopped, with the
/// output unspecified. Arguments: validate_conv2d (named "hybrid::conv2d"), 0 <= gpu_rows <= rows,
/// chunk_rows >= 1.
#pragma once

#include "conv2d.hpp"

namespace wb::hybrid {

template <class T>
void conv2d(const Conv2dArgs<T>& host, int gpu_rows, int chunk_rows);

/// The threads the convolution's CPU side runs on while the GPU side works: one fewer than
/// cpu::threads() (at least 1), a core left to the thread that waits for the GPU (cpu_peers.hpp, ScopedOmpThreads).
/// Chapter 7's model scales that share's time by their ratio.
int conv2d_cpu_side_threads();

}  // namespace wb::hybrid
