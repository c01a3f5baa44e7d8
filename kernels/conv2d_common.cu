/// \file conv2d_common.cu
/// \brief Convolution host pieces shared by every step: argument validation (architecture §3:
///        each message names the function, the argument, its value and the rule),
///        Conv2dLaunch::str, the SM count, and the FFT peer's small device steps (padding,
///        pointwise product, extraction).
#include "conv2d_common.cuh"

#include <algorithm>
#include <cstdint>
#include <map>

namespace wb {

std::string Conv2dLaunch::str() const {
    using launch_checks::dims;
    return launch_checks::LaunchText()
        .add(tile_x > 0 || tile_y > 0, "tile=" + dims(tile_x, tile_y))
        .add(thread_x > 0 || thread_y > 0, "thread=" + dims(thread_x, thread_y))
        .add(block_x > 0 || block_y > 0, "block=" + dims(block_x, block_y))
        .add(blocked > 0, "blocked")
        .str();
}

using launch_checks::fail;
using launch_checks::num;

template <class T>
bool validate_conv2d(const Conv2dArgs<T>& a, const char* fn) {
    if (a.rows < 0) fail(fn, "rows (" + num(a.rows) + ") must be >= 0");
    if (a.cols < 0) fail(fn, "cols (" + num(a.cols) + ") must be >= 0");
    launch_checks::require_indexed(fn, "rows", a.rows, "rows");
    launch_checks::require_indexed(fn, "cols", a.cols, "columns");
    if (a.fs < 1) fail(fn, "fs (" + num(a.fs) + ") must be >= 1");
    if (a.fs % 2 == 0) fail(fn, "fs (" + num(a.fs) + ") must be odd (the filter has a centre)");
    if (a.fs > kConv2dMaxFilter) fail(fn, "fs (" + num(a.fs) + ") must be <= " + num(kConv2dMaxFilter));
    const int tight = std::max(1, a.cols);
    if (a.in_pitch < tight) fail(fn, "in_pitch (" + num(a.in_pitch) + ") must be >= max(1, cols) (" + num(tight) + ")");
    if (a.out_pitch < tight)
        fail(fn, "out_pitch (" + num(a.out_pitch) + ") must be >= max(1, cols) (" + num(tight) + ")");
    if (a.rows == 0 || a.cols == 0) return false;  // nothing to read or write
    if (a.in == nullptr) fail(fn, "in must not be null when rows and cols are > 0");
    if (a.filter == nullptr) fail(fn, "filter must not be null when rows and cols are > 0");
    if (a.out == nullptr) fail(fn, "out must not be null when rows and cols are > 0");
    // In-place is not supported: every output reads FS x FS inputs around it.
    const auto lo_in = reinterpret_cast<std::uintptr_t>(a.in);
    const auto hi_in = lo_in + (static_cast<std::uintptr_t>(a.rows - 1) * a.in_pitch + a.cols) * sizeof(T);
    const auto lo_out = reinterpret_cast<std::uintptr_t>(a.out);
    const auto hi_out = lo_out + (static_cast<std::uintptr_t>(a.rows - 1) * a.out_pitch + a.cols) * sizeof(T);
    if (lo_out < hi_in && lo_in < hi_out)
        fail(fn, std::string("out (") + (lo_out == lo_in ? "== in" : "overlapping in") +
                     ") must not overlap in: in-place convolution is not supported");
    return true;
}

template bool validate_conv2d<float>(const Conv2dArgs<float>&, const char*);
template bool validate_conv2d<double>(const Conv2dArgs<double>&, const char*);

namespace conv2d_detail {

namespace {

/// A complex number of T as cuFFT lays it out: float2 / double2 (re, im).
template <class T> struct Complex;
template <> struct Complex<float> { using type = float2; };
template <> struct Complex<double> { using type = double2; };

template <class T>
__global__ void pad_image_kernel(const T* __restrict__ in, int rows, int cols, int pitch, T* __restrict__ dst, int pr,
                                 int pc) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= pc) return;
    for (int r = blockIdx.y; r < pr; r += gridDim.y)
        dst[static_cast<long long>(r) * pc + c] = r < rows && c < cols ? in[static_cast<long long>(r) * pitch + c] : T(0);
}

template <class T>
__global__ void pad_filter_kernel(const T* __restrict__ filter, int fs, T* __restrict__ dst, int pr, int pc) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= pc) return;
    const int h = fs / 2;
    for (int r = blockIdx.y; r < pr; r += gridDim.y) {
        // (r, c) holds filter(k, l) with (h - k) mod pr == r, (h - l) mod pc == c.
        const int dr = r <= h ? r : r - pr, dc = c <= h ? c : c - pc;  // signed offsets h - k, h - l
        const int k = h - dr, l = h - dc;
        dst[static_cast<long long>(r) * pc + c] =
            k >= 0 && k < fs && l >= 0 && l < fs ? filter[static_cast<long long>(k) * fs + l] : T(0);
    }
}

template <class C, class T>
__global__ void multiply_kernel(C* __restrict__ a, const C* __restrict__ b, long long n, T scale) {
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const C x = a[i], y = b[i];
        a[i] = C{(x.x * y.x - x.y * y.y) * scale, (x.x * y.y + x.y * y.x) * scale};
    }
}

template <class T>
__global__ void extract_kernel(const T* __restrict__ src, int pc, T* __restrict__ out, int rows, int cols, int pitch) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    for (int r = blockIdx.y; r < rows; r += gridDim.y)
        out[static_cast<long long>(r) * pitch + c] = src[static_cast<long long>(r) * pc + c];
}

template <class T>
__global__ void reverse_kernel(const T* __restrict__ filter, long long n, T* __restrict__ dst) {
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x)
        dst[i] = filter[n - 1 - i];  // row-major: reversing the array flips both directions
}

dim3 grid2(int cols, int rows) {
    return dim3(static_cast<unsigned>(ceil_div(std::max(cols, 1), 256)), static_cast<unsigned>(std::clamp(rows, 1, kMaxGridYZ)));
}

}  // namespace

template <class T>
void fft_pad_image(const T* in, int rows, int cols, int pitch, T* dst, int pr, int pc, cudaStream_t s) {
    pad_image_kernel<T><<<grid2(pc, pr), 256, 0, s>>>(in, rows, cols, pitch, dst, pr, pc);
    WB_CHECK_LAUNCH();
}
template <class T>
void fft_pad_filter(const T* filter, int fs, T* dst, int pr, int pc, cudaStream_t s) {
    pad_filter_kernel<T><<<grid2(pc, pr), 256, 0, s>>>(filter, fs, dst, pr, pc);
    WB_CHECK_LAUNCH();
}
template <class T>
void fft_multiply(void* a, const void* b, long long n, T scale, cudaStream_t s) {
    using C = typename Complex<T>::type;
    const long long blocks = std::min<long long>(ceil_div(std::max(n, 1LL), 256), 16LL * kMaxGridYZ);
    multiply_kernel<<<static_cast<unsigned>(blocks), 256, 0, s>>>(static_cast<C*>(a), static_cast<const C*>(b), n,
                                                                  scale);
    WB_CHECK_LAUNCH();
}
template <class T>
void reverse_filter(const T* filter, int fs, T* dst, cudaStream_t s) {
    const long long n = static_cast<long long>(fs) * fs;
    reverse_kernel<T><<<static_cast<unsigned>(std::min<long long>(ceil_div(n, 256), 4096)), 256, 0, s>>>(filter, n, dst);
    WB_CHECK_LAUNCH();
}
template <class T>
void fft_extract(const T* src, int pc, T* out, int rows, int cols, int pitch, cudaStream_t s) {
    extract_kernel<T><<<grid2(cols, rows), 256, 0, s>>>(src, pc, out, rows, cols, pitch);
    WB_CHECK_LAUNCH();
}

template void fft_pad_image<float>(const float*, int, int, int, float*, int, int, cudaStream_t);
template void fft_pad_image<double>(const double*, int, int, int, double*, int, int, cudaStream_t);
template void fft_pad_filter<float>(const float*, int, float*, int, int, cudaStream_t);
template void fft_pad_filter<double>(const double*, int, double*, int, int, cudaStream_t);
template void fft_multiply<float>(void*, const void*, long long, float, cudaStream_t);
template void fft_multiply<double>(void*, const void*, long long, double, cudaStream_t);
template void reverse_filter<float>(const float*, int, float*, cudaStream_t);
template void reverse_filter<double>(const double*, int, double*, cudaStream_t);
template void fft_extract<float>(const float*, int, float*, int, int, int, cudaStream_t);
template void fft_extract<double>(const double*, int, double*, int, int, int, cudaStream_t);

}  // namespace conv2d_detail
}  // namespace wb
