// hybrid_conv2d.cpp — the hybrid convolution (hybrid_conv2d.hpp): bands of input rows with their
// halo to the GPU, chunk by chunk on two streams, the CPU's rows at the same time (with pieces > 1,
// claimed from both ends while the call runs: hybrid_balance.hpp).
#include "hybrid_conv2d.hpp"

#include "cpu_peers.hpp"
#include "hybrid_balance.hpp"
#include "hybrid_common.hpp"
#include "launch_checks.hpp"
#include "hybrid_partition.hpp"

#include <algorithm>
#include <cstddef>

namespace wb::hybrid {

namespace {

/// The GPU side's buffers for bands of up to `cap` output rows (taken from sp), and its steps: the
/// filter to the device once, then each band's input rows (with their halo) in, its kernel, its
/// output rows out, on one stream.
template <class T>
struct GpuBands {
    const Conv2dArgs<T>& h;
    detail::ShareState& sp;
    T* df = nullptr;
    T* din[2] = {nullptr, nullptr};
    T* dout[2] = {nullptr, nullptr};

    GpuBands(const Conv2dArgs<T>& h_, detail::ShareState& sp_, int cap) : h(h_), sp(sp_) {
        const std::size_t e = sizeof(T), cols = static_cast<std::size_t>(h.cols);
        const std::size_t band_cap = (static_cast<std::size_t>(cap) + 2 * static_cast<std::size_t>(h.radius())) * cols;
        df = static_cast<T*>(sp.whole.get(taps() * e));
        for (int b = 0; b < 2; ++b) {
            din[b] = static_cast<T*>(sp.in[b].get(band_cap * e));
            dout[b] = static_cast<T*>(sp.out[b].get(band_cap * e));
        }
    }
    std::size_t taps() const { return static_cast<std::size_t>(h.fs) * static_cast<std::size_t>(h.fs); }
    void prologue() { detail::copy_whole(sp, df, h.filter, taps() * sizeof(T)); }
    /// Output rows [r0, r0 + c) on stream b.
    void issue(int r0, int c, int b) {
        cudaStream_t st = sp.s[b];
        const std::size_t cols = static_cast<std::size_t>(h.cols);
        const RowRange band = conv2d_input_rows(h.rows, h.fs, r0, r0 + c);
        const int band_rows = band.end - band.begin;
        detail::copy_2d(din[b], cols, h.in + static_cast<std::size_t>(band.begin) * static_cast<std::size_t>(h.in_pitch),
                        static_cast<std::size_t>(h.in_pitch), cols, static_cast<std::size_t>(band_rows), cudaMemcpyHostToDevice, st);
        const Conv2dArgs<T> d{band_rows, h.cols, h.fs, din[b], h.cols, df, dout[b], h.cols};
        const auto& step = wb::step<Conv2dArgs<T>>(5);
        step.launch(d, step.default_launch(d), st);
        detail::copy_2d(h.out + static_cast<std::size_t>(r0) * static_cast<std::size_t>(h.out_pitch),
                        static_cast<std::size_t>(h.out_pitch), dout[b] + static_cast<std::size_t>(r0 - band.begin) * cols, cols, cols,
                        static_cast<std::size_t>(c), cudaMemcpyDeviceToHost, st);
    }
};

}  // namespace

int conv2d_cpu_side_threads() { return std::max(1, cpu::threads() - 1); }

template <class T>
void conv2d(const Conv2dArgs<T>& h, int gpu_rows, int chunk_rows, int pieces) {
    const char* fn = "hybrid::conv2d";
    const bool work = validate_conv2d(h, fn);
    detail::check_share(fn, "gpu_rows", gpu_rows, "rows", h.rows, "chunk_rows", chunk_rows);
    if (pieces < 1) launch_checks::fail(fn, "pieces (" + launch_checks::num(pieces) + ") must be >= 1");
    if (!work) return;
    // Who issues (detail::run's rule): the image and the output decide. The filter (fs^2 elements)
    // is copied in once at the call's start; a pageable one is staged in microseconds.
    detail::run_balanced_share<GpuBands<T>>(fn, h, h.rows, gpu_rows, chunk_rows, pieces, {h.in, h.out}, [&](int r0, int r1) {
        // beside the GPU, a core left to its host thread (cpu_peers.hpp: OpenMP's idle threads spin)
        const cpu::ScopedOmpThreads fewer(gpu_rows > 0 ? conv2d_cpu_side_threads() : cpu::threads());
        cpu::conv2d_rows(h, r0, r1);
    });
}

template void conv2d<float>(const Conv2dArgs<float>&, int, int, int);
template void conv2d<double>(const Conv2dArgs<double>&, int, int, int);

}  // namespace wb::hybrid
