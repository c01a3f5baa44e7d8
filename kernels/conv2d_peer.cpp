/// \file conv2d_peer.cpp
/// \brief The peers every convolution table compares against, linked, never reimplemented
///        (architecture §3), each compiled only where the build found its library
///        (kernels/CMakeLists.txt defines WB_HAVE_NPP, WB_HAVE_CUDNN, WB_HAVE_CUFFT):
///  - NPP nppiFilter_32f_C1R / nppiFilter_64f_C1R. NPP's filter computes a true convolution and
///    reads FS/2 pixels beyond its ROI on every side (no zero border of its own): the peer copies
///    the image into the interior of a zero-bordered workspace (its border zeroed once per shape)
///    and passes the filter reversed, which makes NPP compute the correlation. Its time includes
///    that copy (8 rows cols bytes, ~0.07 ms at 8192^2 on an H200); in float at FS <= 5 also the
///    copy of a bordered output (see conv2d_npp: NPP 13.0 repeats edge pixels there).
///  - cuDNN cudnnConvolutionForward: a 1 x 1 x rows x cols NCHW tensor with the image's pitch as
///    its row stride, CUDNN_CROSS_CORRELATION, pad FS/2, FMA math (no TF32); the algorithm is
///    the fastest FMA one cudnnFindConvolutionForwardAlgorithm measures (for images of at least
///    2^18 pixels; smaller ones take cuDNN's heuristic choice: finding costs more than it saves).
///    The search runs on a band of the image, every column and 2^19 pixels' worth of rows: it
///    times every algorithm, and its cost grows with the image and the slowest algorithm (an
///    H200 spent over two minutes finding at 4096^2, FS = 31, float; the band takes a
///    sixteenth of that); the band's three fastest are then timed on the whole image (one call
///    each) and the fastest of them kept, since the band's ranking need not be the image's.
///  - An FFT convolution on cuFFT: the image zero-padded to P_r x P_c (the smallest 2^a 3^b 5^c
///    7^d >= max(n + FS/2, FS): no circular wrap reaches the output), R2C, pointwise product with
///    the filter's spectrum, C2R, the window copied out. The filter's spectrum is computed once
///    per filter: each call compares the FS^2 filter values with the cached copy (one small
///    device-to-host copy and a stream synchronization, a few microseconds).
/// Workspaces, handles and plans are cached per host thread and device.
#include "conv2d.hpp"
#include "buffer.hpp"
#include "check.hpp"
#include "launch_checks.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef WB_HAVE_NPP
#include <npp.h>
#endif
#ifdef WB_HAVE_CUDNN
#include <cudnn.h>
#endif
#ifdef WB_HAVE_CUFFT
#include <cufft.h>
#endif

namespace wb::peer {
namespace {

int current_device() {
    int dev = 0;
    WB_CUDA(cudaGetDevice(&dev));
    return dev;
}

/// A device buffer that only grows (reused across calls of one shape).
/// The peers' workspaces (the common grow-only device buffer).
using Scratch = GrowOnlyBuffer;

[[maybe_unused]] void lib_fail(const char* lib, const char* expr, int status, const char* file, int line) {
    throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + lib + " call " + expr +
                             " failed with status " + std::to_string(status));
}

}  // namespace

// ================================================================================================
// NPP
// ================================================================================================
#ifdef WB_HAVE_NPP
namespace {

#define WB_NPP(expr)                                                                 \
    do {                                                                             \
        const NppStatus st_ = (expr);                                                \
        if (st_ < 0) lib_fail("NPP", #expr, static_cast<int>(st_), __FILE__, __LINE__); \
    } while (0)

NppStreamContext npp_context(cudaStream_t s) {
    NppStreamContext c{};
    c.hStream = s;
    c.nCudaDeviceId = current_device();
    const int d = c.nCudaDeviceId;
    WB_CUDA(cudaDeviceGetAttribute(&c.nMultiProcessorCount, cudaDevAttrMultiProcessorCount, d));
    WB_CUDA(cudaDeviceGetAttribute(&c.nMaxThreadsPerMultiProcessor, cudaDevAttrMaxThreadsPerMultiProcessor, d));
    WB_CUDA(cudaDeviceGetAttribute(&c.nMaxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock, d));
    int smem = 0;
    WB_CUDA(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlock, d));
    c.nSharedMemPerBlock = static_cast<std::size_t>(smem);
    WB_CUDA(cudaDeviceGetAttribute(&c.nCudaDevAttrComputeCapabilityMajor, cudaDevAttrComputeCapabilityMajor, d));
    WB_CUDA(cudaDeviceGetAttribute(&c.nCudaDevAttrComputeCapabilityMinor, cudaDevAttrComputeCapabilityMinor, d));
    unsigned flags = 0;
    WB_CUDA(cudaStreamGetFlags(s, &flags));
    c.nStreamFlags = flags;
    return c;
}

struct NppState {
    Scratch padded, reversed, padded_out;
    // The buffer and shape whose zero border `padded` holds.
    const void* zeroed = nullptr;
    int rows = -1, cols = -1, h = -1, elem = 0;
};

NppState& npp_state() {
    thread_local std::map<int, NppState> states;
    return states[current_device()];
}

NppStatus npp_filter(const float* src, int sstep, float* dst, int dstep, NppiSize roi, const float* k, NppiSize ks,
                     NppiPoint anchor, NppStreamContext c) {
    return nppiFilter_32f_C1R_Ctx(src, sstep, dst, dstep, roi, k, ks, anchor, c);
}
NppStatus npp_filter(const double* src, int sstep, double* dst, int dstep, NppiSize roi, const double* k, NppiSize ks,
                     NppiPoint anchor, NppStreamContext c) {
    return nppiFilter_64f_C1R_Ctx(src, sstep, dst, dstep, roi, k, ks, anchor, c);
}

}  // namespace

template <class T>
void conv2d_npp(const Conv2dArgs<T>& a, const Conv2dLaunch&, cudaStream_t s) {
    if (!validate_conv2d(a, "npp::conv2d")) return;
    const int h = a.radius();
    const long long pw = a.cols + 2LL * h, ph = a.rows + 2LL * h;
    if (pw * static_cast<long long>(sizeof(T)) > kMaxInt32)
        throw std::invalid_argument("npp::conv2d: cols + FS - 1 (" + std::to_string(pw) + ") too wide for NPP's int step");
    // The image is copied into the bordered workspace with its pitch, and the output written with
    // its own (NPP's int step; for float FS <= 5 a copy's pitch too).
    const long long max_pitch = launch_checks::max_copy_pitch();
    launch_checks::require_pitch_bytes("npp::conv2d", "in_pitch", a.in_pitch, sizeof(T), max_pitch,
                                       "cudaMemcpy2D's largest pitch");
    launch_checks::require_pitch_bytes("npp::conv2d", "out_pitch", a.out_pitch, sizeof(T), max_pitch,
                                       "NPP's int step and cudaMemcpy2D's largest pitch");
    NppState& st = npp_state();
    T* padded = static_cast<T*>(st.padded.get(static_cast<std::size_t>(pw * ph) * sizeof(T)));
    T* rev = static_cast<T*>(st.reversed.get(static_cast<std::size_t>(a.fs) * a.fs * sizeof(T)));
    const int elem = static_cast<int>(sizeof(T));
    if (st.zeroed != padded || st.rows != a.rows || st.cols != a.cols || st.h != h || st.elem != elem) {
        // A new buffer or shape: zero the border once (the interior is overwritten every call).
        WB_CUDA(cudaMemsetAsync(padded, 0, static_cast<std::size_t>(pw * ph) * sizeof(T), s));
        st.zeroed = padded;
        st.rows = a.rows;
        st.cols = a.cols;
        st.h = h;
        st.elem = elem;
    }
    WB_CUDA(cudaMemcpy2DAsync(padded + h * pw + h, pw * sizeof(T), a.in, a.in_pitch * sizeof(T), a.cols * sizeof(T),
                              a.rows, cudaMemcpyDeviceToDevice, s));
    conv2d_detail::reverse_filter(a.filter, a.fs, rev, s);
    if (sizeof(T) == 4 && a.fs <= 5) {
        // NPP 13.0's float 3 x 3 and 5 x 5 filters do not read beyond their ROI: at its edges they
        // repeat the edge pixels (seen on an H200: a 1 x 1 image gave in x the sum
        // of the filter, not in x its centre; FS >= 7 and double read the zero border as the
        // documentation says). So the ROI is the whole zero-bordered image, written into a
        // bordered output, whose interior is then copied out: outputs inside the image never
        // reach the ROI's edge. Its time includes that copy (8 rows cols bytes more).
        T* pout = static_cast<T*>(st.padded_out.get(static_cast<std::size_t>(pw * ph) * sizeof(T)));
        WB_NPP(npp_filter(padded, static_cast<int>(pw * sizeof(T)), pout, static_cast<int>(pw * sizeof(T)),
                          NppiSize{static_cast<int>(pw), static_cast<int>(ph)}, rev, NppiSize{a.fs, a.fs},
                          NppiPoint{h, h}, npp_context(s)));
        WB_CUDA(cudaMemcpy2DAsync(a.out, static_cast<std::size_t>(a.out_pitch) * sizeof(T), pout + h * pw + h,
                                  pw * sizeof(T), a.cols * sizeof(T), a.rows, cudaMemcpyDeviceToDevice, s));
        return;
    }
    WB_NPP(npp_filter(padded + h * pw + h, static_cast<int>(pw * sizeof(T)), a.out,
                      static_cast<int>(static_cast<long long>(a.out_pitch) * sizeof(T)), NppiSize{a.cols, a.rows}, rev,
                      NppiSize{a.fs, a.fs}, NppiPoint{h, h}, npp_context(s)));
}
#else
template <class T>
void conv2d_npp(const Conv2dArgs<T>& a, const Conv2dLaunch&, cudaStream_t) {
    if (!validate_conv2d(a, "npp::conv2d")) return;
    throw std::runtime_error("npp::conv2d: this build has no NPP (CMake did not find CUDA::nppif)");
}
#endif

// ================================================================================================
// cuDNN
// ================================================================================================
#ifdef WB_HAVE_CUDNN
namespace {

#define WB_CUDNN(expr)                                                                        \
    do {                                                                                      \
        const cudnnStatus_t st_ = (expr);                                                     \
        if (st_ != CUDNN_STATUS_SUCCESS) lib_fail("cuDNN", #expr, static_cast<int>(st_), __FILE__, __LINE__); \
    } while (0)

struct CudnnState {
    cudnnHandle_t handle = nullptr;
    cudnnTensorDescriptor_t x = nullptr, y = nullptr;
    cudnnFilterDescriptor_t w = nullptr;
    cudnnConvolutionDescriptor_t conv = nullptr;
    cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    std::size_t workspace_bytes = 0;
    Scratch workspace;
    std::vector<int> key;  // rows, cols, fs, in_pitch, out_pitch, sizeof(T)
};

CudnnState& cudnn_state() {
    thread_local std::map<int, std::unique_ptr<CudnnState>> states;  // destroyed with the context at exit
    auto& p = states[current_device()];
    if (!p) {
        p = std::make_unique<CudnnState>();
        WB_CUDNN(cudnnCreate(&p->handle));
        WB_CUDNN(cudnnCreateTensorDescriptor(&p->x));
        WB_CUDNN(cudnnCreateTensorDescriptor(&p->y));
        WB_CUDNN(cudnnCreateFilterDescriptor(&p->w));
        WB_CUDNN(cudnnCreateConvolutionDescriptor(&p->conv));
    }
    return *p;
}

/// Milliseconds of one cudnnConvolutionForward with algorithm `perf` on the call's own buffers
/// (after one call to warm it up), or -1 where it does not run (its workspace does not fit).
template <class T>
float cudnn_time_ms(CudnnState& st, const Conv2dArgs<T>& a, const cudnnConvolutionFwdAlgoPerf_t& perf, cudaStream_t s) {
    WB_CUDNN(cudnnSetConvolutionMathType(st.conv, perf.mathType));
    std::size_t bytes = 0;
    if (cudnnGetConvolutionForwardWorkspaceSize(st.handle, st.x, st.w, st.conv, st.y, perf.algo, &bytes) !=
        CUDNN_STATUS_SUCCESS)
        return -1;
    void* ws = nullptr;
    try {
        ws = bytes > 0 ? st.workspace.get(bytes) : nullptr;
    } catch (const std::runtime_error&) {
        return -1;
    }
    const T one = 1, zero = 0;
    auto run = [&] {
        return cudnnConvolutionForward(st.handle, &one, st.x, a.in, st.w, a.filter, st.conv, perf.algo, ws, bytes, &zero,
                                       st.y, a.out);
    };
    if (run() != CUDNN_STATUS_SUCCESS) return -1;
    cudaEvent_t e0, e1;
    WB_CUDA(cudaEventCreate(&e0));
    WB_CUDA(cudaEventCreate(&e1));
    WB_CUDA(cudaEventRecord(e0, s));
    const cudnnStatus_t rc = run();
    WB_CUDA(cudaEventRecord(e1, s));
    WB_CUDA(cudaEventSynchronize(e1));
    float ms = -1;
    WB_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    WB_CUDA(cudaEventDestroy(e0));
    WB_CUDA(cudaEventDestroy(e1));
    return rc == CUDNN_STATUS_SUCCESS ? ms : -1;
}

template <class T>
void cudnn_prepare(CudnnState& st, const Conv2dArgs<T>& a, cudaStream_t s) {
    const std::vector<int> key = {a.rows, a.cols, a.fs, a.in_pitch, a.out_pitch, static_cast<int>(sizeof(T))};
    if (st.key == key) return;
    const cudnnDataType_t dt = sizeof(T) == 4 ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE;
    const int h = a.radius();
    auto describe = [&](int rows) {  // the image's first `rows` rows (all of them, or the search's band)
        WB_CUDNN(cudnnSetTensor4dDescriptorEx(st.x, dt, 1, 1, rows, a.cols, rows * a.in_pitch, rows * a.in_pitch,
                                              a.in_pitch, 1));
        WB_CUDNN(cudnnSetTensor4dDescriptorEx(st.y, dt, 1, 1, rows, a.cols, rows * a.out_pitch, rows * a.out_pitch,
                                              a.out_pitch, 1));
    };
    describe(a.rows);
    WB_CUDNN(cudnnSetFilter4dDescriptor(st.w, dt, CUDNN_TENSOR_NCHW, 1, 1, a.fs, a.fs));
    WB_CUDNN(cudnnSetConvolution2dDescriptor(st.conv, h, h, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, dt));
    WB_CUDNN(cudnnSetConvolutionMathType(st.conv, CUDNN_FMA_MATH));
    constexpr int kMax = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
    cudnnConvolutionFwdAlgoPerf_t perf[kMax];
    int found = 0;
    const bool searched_band = static_cast<long long>(a.rows) * a.cols >= (1LL << 18);
    if (searched_band) {
        // The search on a band of rows (x and y described with fewer rows, then described again).
        constexpr long long kFindPixels = 1LL << 19;
        const int band = static_cast<int>(std::min<long long>(
            a.rows, std::max<long long>(a.fs, (kFindPixels + a.cols - 1) / a.cols)));
        describe(band);
        WB_CUDNN(cudnnFindConvolutionForwardAlgorithm(st.handle, st.x, st.w, st.conv, st.y, kMax, &found, perf));
        describe(a.rows);
    } else {
        WB_CUDNN(cudnnGetConvolutionForwardAlgorithm_v7(st.handle, st.x, st.w, st.conv, st.y, kMax, &found, perf));
    }
    // Results come fastest first. FMA math only in float (no TF32); in double cuDNN may report
    // its default math, which has no reduced-precision path there.
    std::vector<int> fma;
    for (int i = 0; i < found; ++i)
        if (perf[i].status == CUDNN_STATUS_SUCCESS &&
            (perf[i].mathType == CUDNN_FMA_MATH || (sizeof(T) == 8 && perf[i].mathType == CUDNN_DEFAULT_MATH)))
            fma.push_back(i);
    int pick = fma.empty() ? -1 : fma[0];
    if (searched_band && fma.size() > 1) {
        // The band's three leaders timed on the whole image, the fastest kept: the band's ranking
        // need not be the image's (an H200 measured the band's float FS = 3 winner 8x slower on
        // 4096^2 than the whole image's), and three calls cost milliseconds.
        float best = -1;
        for (std::size_t k = 0; k < fma.size() && k < 3; ++k) {
            const float ms = cudnn_time_ms(st, a, perf[fma[k]], s);
            if (ms >= 0 && (best < 0 || ms < best)) {
                best = ms;
                pick = fma[k];
            }
        }
    }
    if (pick < 0)
        throw std::runtime_error("cudnn::conv2d: cuDNN offers no FMA-math algorithm for " + std::to_string(a.rows) +
                                 " x " + std::to_string(a.cols) + ", FS " + std::to_string(a.fs));
    st.algo = perf[pick].algo;
    WB_CUDNN(cudnnSetConvolutionMathType(st.conv, perf[pick].mathType));
    WB_CUDNN(cudnnGetConvolutionForwardWorkspaceSize(st.handle, st.x, st.w, st.conv, st.y, st.algo,
                                                     &st.workspace_bytes));
    st.key = key;
}

}  // namespace

template <class T>
void conv2d_cudnn(const Conv2dArgs<T>& a, const Conv2dLaunch&, cudaStream_t s) {
    if (!validate_conv2d(a, "cudnn::conv2d")) return;
    // The tensors' n and c strides are rows x pitch, and cuDNN's strides are ints.
    auto require_stride = [&](const char* name, int pitch) {
        const long long stride = static_cast<long long>(a.rows) * pitch;
        if (stride > kMaxInt32)
            throw std::invalid_argument(std::string("cudnn::conv2d: rows x ") + name + " (" + std::to_string(a.rows) +
                                        " x " + std::to_string(pitch) + " = " + std::to_string(stride) +
                                        ") must be <= " + std::to_string(kMaxInt32) +
                                        " (cuDNN's tensor strides are ints)");
    };
    require_stride("in_pitch", a.in_pitch);
    require_stride("out_pitch", a.out_pitch);
    CudnnState& st = cudnn_state();
    WB_CUDNN(cudnnSetStream(st.handle, s));
    cudnn_prepare(st, a, s);
    void* ws = st.workspace_bytes > 0 ? st.workspace.get(st.workspace_bytes) : nullptr;
    const T one = 1, zero = 0;
    WB_CUDNN(cudnnConvolutionForward(st.handle, &one, st.x, a.in, st.w, a.filter, st.conv, st.algo, ws,
                                     st.workspace_bytes, &zero, st.y, a.out));
}
#else
template <class T>
void conv2d_cudnn(const Conv2dArgs<T>& a, const Conv2dLaunch&, cudaStream_t) {
    if (!validate_conv2d(a, "cudnn::conv2d")) return;
    throw std::runtime_error("cudnn::conv2d: this build has no cuDNN (CMake did not find cudnn.h and libcudnn)");
}
#endif

// ================================================================================================
// cuFFT
// ================================================================================================
#ifdef WB_HAVE_CUFFT
namespace {

#define WB_CUFFT(expr)                                                                        \
    do {                                                                                      \
        const cufftResult st_ = (expr);                                                       \
        if (st_ != CUFFT_SUCCESS) lib_fail("cuFFT", #expr, static_cast<int>(st_), __FILE__, __LINE__); \
    } while (0)

/// The smallest 2^a 3^b 5^c 7^d >= n (cuFFT's fast sizes). The padding, product and extraction
/// kernels (conv2d_common.cu) index it with 32-bit ints and grid strides of up to kMaxGridYZ rows: it
/// must be at most launch_checks::kMaxIndexedExtent; `what` names n in the message.
int fft_size(long long n, const char* what) {
    for (long long m = std::max(1LL, n);; ++m) {
        long long r = m;
        for (int f : {2, 3, 5, 7})
            while (r % f == 0) r /= f;
        if (r == 1) {
            if (m > launch_checks::kMaxIndexedExtent)
                throw std::invalid_argument(std::string("cufft::conv2d: ") + what + " (" + std::to_string(n) +
                                            ") padded to a transform size (" + std::to_string(m) + ") must be <= " +
                                            std::to_string(launch_checks::kMaxIndexedExtent) +
                                            " (the padding kernels index it with 32-bit ints)");
            return static_cast<int>(m);
        }
    }
}

struct FftState {
    cufftHandle r2c = 0, c2r = 0;
    bool planned = false;
    int pr = 0, pc = 0, elem = 0;
    Scratch real, spec_image, spec_filter;
    // The filter whose spectrum spec_filter holds.
    const void* filter = nullptr;
    int fs = 0;
    std::vector<unsigned char> filter_bytes;
    std::vector<unsigned char> probe;
    ~FftState() {
        if (planned) {  // never throw from a destructor
            cufftDestroy(r2c);
            cufftDestroy(c2r);
        }
    }
};

FftState& fft_state() {
    thread_local std::map<int, std::unique_ptr<FftState>> states;
    auto& p = states[current_device()];
    if (!p) p = std::make_unique<FftState>();
    return *p;
}

cufftResult exec_r2c(cufftHandle p, float* in, void* out) {
    return cufftExecR2C(p, in, static_cast<cufftComplex*>(out));
}
cufftResult exec_r2c(cufftHandle p, double* in, void* out) {
    return cufftExecD2Z(p, in, static_cast<cufftDoubleComplex*>(out));
}
cufftResult exec_c2r(cufftHandle p, void* in, float* out) { return cufftExecC2R(p, static_cast<cufftComplex*>(in), out); }
cufftResult exec_c2r(cufftHandle p, void* in, double* out) {
    return cufftExecZ2D(p, static_cast<cufftDoubleComplex*>(in), out);
}

}  // namespace

template <class T>
void conv2d_fft(const Conv2dArgs<T>& a, const Conv2dLaunch&, cudaStream_t s) {
    if (!validate_conv2d(a, "cufft::conv2d")) return;
    const std::size_t complex_bytes = 2 * sizeof(T);
    const int h = a.radius();
    const int pr = fft_size(std::max<long long>(a.rows + h, a.fs), "max(rows + FS/2, FS)"),
              pc = fft_size(std::max<long long>(a.cols + h, a.fs), "max(cols + FS/2, FS)");
    FftState& st = fft_state();
    if (!st.planned || st.pr != pr || st.pc != pc || st.elem != static_cast<int>(sizeof(T))) {
        if (st.planned) {
            WB_CUFFT(cufftDestroy(st.r2c));
            WB_CUFFT(cufftDestroy(st.c2r));
            st.planned = false;
        }
        WB_CUFFT(cufftPlan2d(&st.r2c, pr, pc, sizeof(T) == 4 ? CUFFT_R2C : CUFFT_D2Z));
        WB_CUFFT(cufftPlan2d(&st.c2r, pr, pc, sizeof(T) == 4 ? CUFFT_C2R : CUFFT_Z2D));
        st.planned = true;
        st.pr = pr;
        st.pc = pc;
        st.elem = static_cast<int>(sizeof(T));
        st.filter = nullptr;  // the cached spectrum was for another size
    }
    WB_CUFFT(cufftSetStream(st.r2c, s));
    WB_CUFFT(cufftSetStream(st.c2r, s));
    const long long nreal = static_cast<long long>(pr) * pc, nspec = static_cast<long long>(pr) * (pc / 2 + 1);
    T* real = static_cast<T*>(st.real.get(static_cast<std::size_t>(nreal) * sizeof(T)));
    void* spec_image = st.spec_image.get(static_cast<std::size_t>(nspec) * complex_bytes);
    void* spec_filter = st.spec_filter.get(static_cast<std::size_t>(nspec) * complex_bytes);

    // The filter's spectrum: recomputed only when the filter (pointer, size or values) changed.
    const std::size_t fbytes = static_cast<std::size_t>(a.fs) * a.fs * sizeof(T);
    st.probe.resize(fbytes);
    WB_CUDA(cudaMemcpyAsync(st.probe.data(), a.filter, fbytes, cudaMemcpyDeviceToHost, s));
    WB_CUDA(cudaStreamSynchronize(s));
    if (st.filter != a.filter || st.fs != a.fs || st.filter_bytes != st.probe) {
        conv2d_detail::fft_pad_filter(a.filter, a.fs, real, pr, pc, s);
        WB_CUFFT(exec_r2c(st.r2c, real, spec_filter));
        st.filter = a.filter;
        st.fs = a.fs;
        st.filter_bytes = st.probe;
    }
    conv2d_detail::fft_pad_image(a.in, a.rows, a.cols, a.in_pitch, real, pr, pc, s);
    WB_CUFFT(exec_r2c(st.r2c, real, spec_image));
    conv2d_detail::fft_multiply<T>(spec_image, spec_filter, nspec, T(1) / static_cast<T>(nreal), s);
    WB_CUFFT(exec_c2r(st.c2r, spec_image, real));
    conv2d_detail::fft_extract(real, pc, a.out, a.rows, a.cols, a.out_pitch, s);
}
#else
template <class T>
void conv2d_fft(const Conv2dArgs<T>& a, const Conv2dLaunch&, cudaStream_t) {
    if (!validate_conv2d(a, "cufft::conv2d")) return;
    throw std::runtime_error("cufft::conv2d: this build has no cuFFT (CMake did not find CUDA::cufft)");
}
#endif

template void conv2d_npp<float>(const Conv2dArgs<float>&, const Conv2dLaunch&, cudaStream_t);
template void conv2d_npp<double>(const Conv2dArgs<double>&, const Conv2dLaunch&, cudaStream_t);
template void conv2d_cudnn<float>(const Conv2dArgs<float>&, const Conv2dLaunch&, cudaStream_t);
template void conv2d_cudnn<double>(const Conv2dArgs<double>&, const Conv2dLaunch&, cudaStream_t);
template void conv2d_fft<float>(const Conv2dArgs<float>&, const Conv2dLaunch&, cudaStream_t);
template void conv2d_fft<double>(const Conv2dArgs<double>&, const Conv2dLaunch&, cudaStream_t);

}  // namespace wb::peer

namespace wb {

template <class T>
std::vector<Step<Conv2dArgs<T>>> conv2d_peers() {
    using A = Conv2dArgs<T>;
    auto one = [](const A&) { return Conv2dLaunch{}; };
    auto all = [](const A&) { return std::vector<Conv2dLaunch>{Conv2dLaunch{}}; };
    std::vector<Step<A>> v;
#ifdef WB_HAVE_NPP
    v.push_back({"npp", sizeof(T) == 4 ? "NPP nppiFilter_32f_C1R (filter reversed, zero-bordered copy)"
                                          : "NPP nppiFilter_64f_C1R (filter reversed, zero-bordered copy)",
                 &peer::conv2d_npp<T>, one, all});
#endif
#ifdef WB_HAVE_CUDNN
    v.push_back({"cudnn", "cuDNN cudnnConvolutionForward, cross-correlation, FMA math, fastest algorithm",
                 &peer::conv2d_cudnn<T>, one, all});
#endif
#ifdef WB_HAVE_CUFFT
    v.push_back({"cufft", "FFT convolution on cuFFT: R2C, pointwise product, C2R (filter spectrum cached)",
                 &peer::conv2d_fft<T>, one, all});
#endif
    if (v.empty())  // a toolkit without any of them: a peer that says so when called
        v.push_back({"npp", "no convolution peer in this build", &peer::conv2d_npp<T>, one, all});
    return v;
}

template std::vector<Step<Conv2dArgs<float>>> conv2d_peers<float>();
template std::vector<Step<Conv2dArgs<double>>> conv2d_peers<double>();

}  // namespace wb
