// conv2d_cpu.cpp — the CPU peer of the convolution (cpu_peers.hpp): the direct cross-correlation
// of kernels/conv2d.hpp, zero outside the image, "same" size, each row's pitch honoured. No BLAS
// offers it, so it is ours: the output rows are spread over the cores (OpenMP, static schedule);
// each row is accumulated in a row buffer, filter row by filter row and tap by tap, so the inner
// loop runs along contiguous input and output elements (the compiler vectorizes it) and the
// border is handled by clipping each tap's range of columns instead of testing every element.
#include "cpu_peers.hpp"

#include "launch_checks.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace wb::cpu {

template <class T>
void conv2d_rows(const Conv2dArgs<T>& a, int row0, int row1) {
    const char* fn = "cpu::conv2d_rows";
    const bool work = validate_conv2d(a, fn);
    if (row0 < 0 || row0 > a.rows)
        launch_checks::fail(fn, "row0 (" + launch_checks::num(row0) + ") must be in [0, rows] ([0, " +
                                    launch_checks::num(a.rows) + "])");
    if (row1 < row0 || row1 > a.rows)
        launch_checks::fail(fn, "row1 (" + launch_checks::num(row1) + ") must be in [row0, rows] ([" +
                                    launch_checks::num(row0) + ", " + launch_checks::num(a.rows) + "])");
    if (!work || row0 == row1) return;
    const int h = a.radius(), fs = a.fs, rows = a.rows, cols = a.cols;
#pragma omp parallel
    {
        std::vector<T> acc(static_cast<std::size_t>(cols));
#pragma omp for schedule(static)
        for (int i = row0; i < row1; ++i) {
            std::fill(acc.begin(), acc.end(), T(0));
            for (int k = 0; k < fs; ++k) {
                const int ir = i + k - h;
                if (ir < 0 || ir >= rows) continue;  // a row of zeros
                const T* in_row = a.in + static_cast<std::size_t>(ir) * static_cast<std::size_t>(a.in_pitch);
                for (int l = 0; l < fs; ++l) {
                    const T f = a.filter[static_cast<std::size_t>(k) * fs + l];
                    const int d = l - h;  // input column = output column + d
                    const int j0 = std::max(0, -d), j1 = std::min(cols, cols - d);
                    T* __restrict__ out = acc.data();
                    const T* __restrict__ src = in_row + d;
                    for (int j = j0; j < j1; ++j) out[j] += f * src[j];
                }
            }
            std::copy(acc.begin(), acc.end(), a.out + static_cast<std::size_t>(i) * static_cast<std::size_t>(a.out_pitch));
        }
    }
}

template <class T>
void conv2d(const Conv2dArgs<T>& a) {
    if (!validate_conv2d(a, "cpu::conv2d")) return;
    conv2d_rows(a, 0, a.rows);
}

template void conv2d_rows<float>(const Conv2dArgs<float>&, int, int);
template void conv2d_rows<double>(const Conv2dArgs<double>&, int, int);
template void conv2d<float>(const Conv2dArgs<float>&);
template void conv2d<double>(const Conv2dArgs<double>&);

}  // namespace wb::cpu
