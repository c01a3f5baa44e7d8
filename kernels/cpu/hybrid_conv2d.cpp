// hybrid_conv2d.cpp — the hybrid convolution (hybrid_conv2d.hpp): bands of input rows with their
// halo to the GPU, chunk by chunk on two streams, the CPU's rows at the same time.
#include "hybrid_conv2d.hpp"

#include "cpu_peers.hpp"
#include "hybrid_common.hpp"
#include "hybrid_partition.hpp"

#include <algorithm>
#include <cstddef>

namespace wb::hybrid {

namespace {

/// The GPU's share: output rows [0, g) in bands of `chunk`.
template <class T>
void gpu_share(const Conv2dArgs<T>& h, int g, int chunk, const detail::GpuCall& call) {
    chunk = std::min(chunk, g);
    const std::size_t e = sizeof(T), cols = static_cast<std::size_t>(h.cols);
    const std::size_t band_cap = (static_cast<std::size_t>(chunk) + 2 * static_cast<std::size_t>(h.radius())) * cols;
    const std::size_t taps = static_cast<std::size_t>(h.fs) * static_cast<std::size_t>(h.fs);
    detail::ShareState& sp = *call.sp;
    T* const df = static_cast<T*>(sp.whole.get(taps * e));
    T* const din[2] = {static_cast<T*>(sp.in[0].get(band_cap * e)), static_cast<T*>(sp.in[1].get(band_cap * e))};
    T* const dout[2] = {static_cast<T*>(sp.out[0].get(band_cap * e)), static_cast<T*>(sp.out[1].get(band_cap * e))};
    const auto& step = wb::step<Conv2dArgs<T>>(5);
    detail::run_gpu_chunks(
        call, "hybrid::conv2d", g, chunk, [&] { detail::copy_whole(sp, df, h.filter, taps * e); },
        [&](int r0, int c, int b) {
            cudaStream_t st = sp.s[b];
            const RowRange band = conv2d_input_rows(h.rows, h.fs, r0, r0 + c);
            const int band_rows = band.end - band.begin;
            detail::copy_2d(din[b], cols, h.in + static_cast<std::size_t>(band.begin) * static_cast<std::size_t>(h.in_pitch),
                            static_cast<std::size_t>(h.in_pitch), cols, static_cast<std::size_t>(band_rows),
                            cudaMemcpyHostToDevice, st);
            const Conv2dArgs<T> d{band_rows, h.cols, h.fs, din[b], h.cols, df, dout[b], h.cols};
            step.launch(d, step.default_launch(d), st);
            detail::copy_2d(h.out + static_cast<std::size_t>(r0) * static_cast<std::size_t>(h.out_pitch),
                            static_cast<std::size_t>(h.out_pitch), dout[b] + static_cast<std::size_t>(r0 - band.begin) * cols,
                            cols, cols, static_cast<std::size_t>(c), cudaMemcpyDeviceToHost, st);
        });
}

}  // namespace

int conv2d_cpu_side_threads() { return std::max(1, cpu::threads() - 1); }

template <class T>
void conv2d(const Conv2dArgs<T>& h, int gpu_rows, int chunk_rows) {
    const char* fn = "hybrid::conv2d";
    const bool work = validate_conv2d(h, fn);
    detail::check_share(fn, "gpu_rows", gpu_rows, "rows", h.rows, "chunk_rows", chunk_rows);
    if (!work) return;
    // Who issues (detail::run's rule): the image and the output decide. The filter (fs^2 elements)
    // is copied in once at the call's start; a pageable one is staged in microseconds.
    detail::run(fn, gpu_rows < h.rows, gpu_rows > 0, {h.in, h.out}, [&] {
                    // beside the GPU, a core left to its host thread (cpu_peers.hpp: OpenMP's idle threads spin)
                    const cpu::ScopedOmpThreads fewer(gpu_rows > 0 ? conv2d_cpu_side_threads() : cpu::threads());
                    cpu::conv2d_rows(h, gpu_rows, h.rows);
                },
                [&](const detail::GpuCall& call) { gpu_share(h, gpu_rows, chunk_rows, call); });
}

template void conv2d<float>(const Conv2dArgs<float>&, int, int);
template void conv2d<double>(const Conv2dArgs<double>&, int, int);

}  // namespace wb::hybrid
