/// \file conv2d.hpp
/// \brief The 2-D convolution op (`conv2d`): out = filter (x) in on a row-major image with a
///        pitch, "same" size output, zero outside the image (architecture §3).
///
/// What is computed is a **cross-correlation**, as White's Listing 5.1 and cuDNN's default
/// (CUDNN_CROSS_CORRELATION) compute it:
///
///     out(i, j) = sum_{k, l < FS} filter(k, l) in(i + k - h, j + l - h),   h = FS / 2,
///
/// with in(r, c) = 0 outside 0 <= r < rows, 0 <= c < cols. A true convolution is the same sum
/// with the filter flipped in both directions (filter(FS-1-k, FS-1-l)); NPP's nppiFilter computes
/// that one, so the NPP peer passes the filter reversed (kernels/conv2d_peer.cpp), and a gpu test
/// shows the two differ on an asymmetric filter. Images: `rows x cols`, element (r, c) at
/// `in[r * in_pitch + c]` (pitch in elements, >= cols); the output has its own pitch. The filter
/// is FS x FS, row-major, FS odd in [1, 1025]. In-place (out overlapping in) is rejected.
/// One launcher per ladder stage, all with the same signature; the launch type is Conv2dLaunch.
#pragma once

#include "step.hpp"

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace wb {

/// The largest filter size the op accepts (FS = 1025: a 1025 x 1025 filter).
constexpr int kConv2dMaxFilter = 1025;

/// The tunables every convolution step understands. A field a step does not use stays 0; 0 in a
/// field the step uses means "the step's default". Tiles that are template constants are chosen
/// among the step's instantiated configurations (legal_launches lists them).
struct Conv2dLaunch {
    int block_x = 0;   ///< threads per block along a row (x, the contiguous direction)
    int block_y = 0;   ///< threads per block along a column (y)
    int tile_x = 0;    ///< output columns one block computes
    int tile_y = 0;    ///< output rows one block computes
    int thread_x = 0;  ///< output columns one thread computes (register blocking along x)
    int thread_y = 0;  ///< output rows one thread computes (register blocking along y)
    /// 1: the tuned step's blocked kernel (taps read at run time) even where the filter size has a
    /// kernel that knows it at compile time (FS = 3, 5, 7, 15): the sweep then shows what the
    /// compile-time taps buy; 0: the filter size's own kernel.
    int blocked = 0;
    std::string str() const;  ///< e.g. "tile=64x64 thread=4x4 block=16x16" (" blocked" where set)
    bool operator==(const Conv2dLaunch& o) const {
        return block_x == o.block_x && block_y == o.block_y && tile_x == o.tile_x && tile_y == o.tile_y &&
               thread_x == o.thread_x && thread_y == o.thread_y && blocked == o.blocked;
    }
};

template <class T>
struct Conv2dArgs {
    using Launch = Conv2dLaunch;
    using value_type = T;
    int rows = 0, cols = 0;   ///< image size (rows x cols), >= 0
    int fs = 1;               ///< filter size FS: odd, 1 <= FS <= kConv2dMaxFilter
    const T* in = nullptr;    ///< device pointer: element (r, c) at in[r * in_pitch + c]
    int in_pitch = 1;         ///< elements between row starts, >= max(1, cols)
    const T* filter = nullptr;  ///< device pointer: FS x FS, row-major, filter(k, l) at filter[k * fs + l]
    T* out = nullptr;         ///< device pointer: element (r, c) at out[r * out_pitch + c]
    int out_pitch = 1;        ///< elements between output row starts, >= max(1, cols)
    int radius() const { return fs / 2; }
};

/// Validates before the GPU is touched; throws std::invalid_argument naming `fn`, the argument,
/// its value and the rule, e.g. "conv2d: fs (4) must be odd". Returns false when there is
/// nothing to do (rows == 0 or cols == 0: nothing is read or written), true otherwise. rows and
/// cols are at most 2147418111 (launch_checks::kMaxIndexedExtent: the kernels index them with
/// 32-bit ints); the peers share the rule.
template <class T>
bool validate_conv2d(const Conv2dArgs<T>& a, const char* fn = "conv2d");

// One launcher per stage. Each validates, returns on empty images, then launches.
namespace naive   { template <class T> void conv2d(const Conv2dArgs<T>&, const Conv2dLaunch&, cudaStream_t); }
namespace shared  { template <class T> void conv2d(const Conv2dArgs<T>&, const Conv2dLaunch&, cudaStream_t); }
namespace pattern { template <class T> void conv2d(const Conv2dArgs<T>&, const Conv2dLaunch&, cudaStream_t); }
namespace access  { template <class T> void conv2d(const Conv2dArgs<T>&, const Conv2dLaunch&, cudaStream_t); }
namespace tuned   { template <class T> void conv2d(const Conv2dArgs<T>&, const Conv2dLaunch&, cudaStream_t); }

/// The peers (kernels/conv2d_peer.cpp), each compiled only where the build found its library:
///  - `npp`:   nppiFilter_32f_C1R / nppiFilter_64f_C1R (the image copied into a zero-bordered
///             workspace first: NPP's filter reads FS/2 pixels beyond the ROI and has no zero border);
///  - `cudnn`: cudnnConvolutionForward, 1 x 1 x rows x cols NCHW, CUDNN_CROSS_CORRELATION, FMA math
///             (no TF32), the fastest algorithm cudnnFindConvolutionForwardAlgorithm reports;
///  - `cufft`: FFT convolution: R2C of the zero-padded image, pointwise product with the filter's
///             spectrum (computed once per filter), C2R, the window copied out.
namespace peer {
template <class T> void conv2d_npp(const Conv2dArgs<T>&, const Conv2dLaunch&, cudaStream_t);
template <class T> void conv2d_cudnn(const Conv2dArgs<T>&, const Conv2dLaunch&, cudaStream_t);
template <class T> void conv2d_fft(const Conv2dArgs<T>&, const Conv2dLaunch&, cudaStream_t);
}  // namespace peer

/// Every peer this build has, as steps (chapter 0), in the order npp, cudnn, cufft. The first one
/// is the op's peer (peer_step<Conv2dArgs<T>>()); the chapters time the others as extra rows.
template <class T>
std::vector<Step<Conv2dArgs<T>>> conv2d_peers();

/// The peers' small device steps (kernels/conv2d_common.cu), host-callable from the peers' C++.
namespace conv2d_detail {
/// dst (pr x pc, row-major, tight) = the image in its top-left rows x cols corner, zeros elsewhere.
template <class T>
void fft_pad_image(const T* in, int rows, int cols, int pitch, T* dst, int pr, int pc, cudaStream_t s);
/// dst (pr x pc) = the correlation kernel: dst((h - k) mod pr, (h - l) mod pc) = filter(k, l), zeros
/// elsewhere (h = fs / 2; pr, pc >= fs): its circular convolution with the padded image is the
/// correlation (the filter flipped about its centre: what turns a convolution into a correlation).
template <class T>
void fft_pad_filter(const T* filter, int fs, T* dst, int pr, int pc, cudaStream_t s);
/// a[i] *= b[i] * scale for n complex numbers of T (interleaved re, im: cufftComplex's layout).
template <class T>
void fft_multiply(void* a, const void* b, long long n, T scale, cudaStream_t s);
/// out (rows x cols, pitch) = the top-left rows x cols corner of src (pr x pc, tight).
template <class T>
void fft_extract(const T* src, int pc, T* out, int rows, int cols, int pitch, cudaStream_t s);
/// dst = the filter reversed in both directions, dst(k, l) = filter(fs-1-k, fs-1-l) (NPP's filters
/// compute a true convolution: given the reversed filter they compute the correlation).
template <class T>
void reverse_filter(const T* filter, int fs, T* dst, cudaStream_t s);
}  // namespace conv2d_detail

/// The registration (kernels/conv2d_ladder.cpp) behind ladder<Conv2dArgs<T>>(), step<...>(), peer_step<...>().
template <> std::vector<Step<Conv2dArgs<float>>> make_ladder<Conv2dArgs<float>>();
template <> std::vector<Step<Conv2dArgs<double>>> make_ladder<Conv2dArgs<double>>();
template <> Step<Conv2dArgs<float>> make_peer<Conv2dArgs<float>>();
template <> Step<Conv2dArgs<double>> make_peer<Conv2dArgs<double>>();

}  // namespace wb
