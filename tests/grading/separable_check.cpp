// The GPU check of chapter 2's separable-filter exercise (separable_check.hpp).
#include "separable_check.hpp"

#include "buffer.hpp"
#include "error_norm.hpp"
#include "exercise_check.hpp"
#include "random.hpp"

#include <limits>

namespace wb::grade::test {

namespace {
constexpr std::size_t kGuardOut = 1024;  // after out, holding kSentinel
}  // namespace

std::string SeparableCase::label() const {
    return std::to_string(rows) + "x" + std::to_string(cols) + " fs=" + std::to_string(fs) +
           " in_pitch=" + std::to_string(in_pitch) + " out_pitch=" + std::to_string(out_pitch);
}

const std::vector<SeparableCase>& separable_cases() {
    static const std::vector<SeparableCase> cases = {
        {1, 1, 1, 1, 1},     {1, 1, 3, 1, 1},       {7, 5, 5, 5, 6},         {5, 7, 15, 9, 7},
        {33, 31, 3, 31, 40}, {100, 257, 7, 260, 257}, {513, 1000, 63, 1000, 1003},
        {1, 4097, 9, 4097, 4097}, {4097, 1, 9, 1, 2}, {1000, 999, 31, 1001, 999},
    };
    return cases;
}

std::string check_separable(wb::ex::SeparableFn fn, const SeparableCase& c, unsigned long long seed) {
    return check_separable_layout(fn, c, seed, false);
}

std::string check_separable_layout(wb::ex::SeparableFn fn, const SeparableCase& c, unsigned long long seed, bool padded) {
    const std::vector<float> row_taps = wb::random_vector<float>(static_cast<std::size_t>(c.fs), seed + 3);
    const std::vector<float> col_taps = wb::random_vector<float>(static_cast<std::size_t>(c.fs), seed + 4);
    wb::ex::SeparableArgs a;
    a.rows = c.rows; a.cols = c.cols; a.fs = c.fs; a.in_pitch = c.in_pitch; a.out_pitch = c.out_pitch;
    a.row_taps = row_taps.data(); a.col_taps = col_taps.data();
    // Other data around the image and the workspace: a kernel that reads past them finds it.
    const std::size_t rows = static_cast<std::size_t>(c.rows), cols = static_cast<std::size_t>(c.cols);
    // Chapter 4's layout: tmp's pitch is out_pitch, and both guards keep the rows 128-byte aligned.
    const std::size_t tmp_pitch = padded ? static_cast<std::size_t>(c.out_pitch) : cols;
    const std::size_t guard_in = 32 * static_cast<std::size_t>(c.in_pitch) + 64, guard_tmp = 32 * tmp_pitch + 64;
    const std::size_t in_size = (rows - 1) * static_cast<std::size_t>(c.in_pitch) + cols;
    std::vector<float> in = wb::random_vector<float>(guard_in + in_size + guard_in, seed);
    if (padded)  // the padding of each row holds NaN: it may be read, never used
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t col = cols; col < static_cast<std::size_t>(c.in_pitch); ++col)
                in[guard_in + r * static_cast<std::size_t>(c.in_pitch) + col] = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> tmp = wb::random_vector<float>(guard_tmp + rows * tmp_pitch + guard_tmp, seed + 1);
    const std::size_t out_size = (rows - 1) * static_cast<std::size_t>(c.out_pitch) + cols;
    const std::vector<float> out0(out_size + kGuardOut, kSentinel);
    try {
        DeviceBuffer<float> din(in), dtmp(tmp), dout(out0);
        a.in = din.data() + guard_in; a.tmp = dtmp.data() + guard_tmp; a.out = dout.data();
        const std::vector<float> image(in.begin() + static_cast<std::ptrdiff_t>(guard_in), in.end());
        const std::vector<double> ref = wb::ex::separable_reference(a, image);
        fn(a, nullptr);
        WB_CUDA(cudaDeviceSynchronize());
        const std::vector<float> out = dout.download();
        std::vector<bool> is_entry(out.size(), false);
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t col = 0; col < cols; ++col) is_entry[r * static_cast<std::size_t>(c.out_pitch) + col] = true;
        return compare_output(out, is_entry, ref, wb::tolerance<float>(2 * static_cast<std::size_t>(c.fs)), [&](std::size_t i) {
            return "outside out (index " + std::to_string(i) + (i >= out_size ? ", past its end)" : ", in the pitch gap)");
        });
    } catch (const std::exception& e) {
        return std::string("error: ") + e.what();
    }
}

std::string check_separable_all(wb::ex::SeparableFn fn, unsigned long long seed) {
    // The launcher sizes its grid without grid_for(): the looped grid would be the same run.
    return first_failure(separable_cases(), [&](const SeparableCase& c) { return check_separable(fn, c, seed); }, false);
}

double time_separable_ms(wb::ex::SeparableFn fn, unsigned long long seed) {
    const std::vector<float> taps = wb::random_vector<float>(15, seed + 3);
    wb::ex::SeparableArgs a;
    a.rows = a.cols = a.in_pitch = a.out_pitch = 4096; a.fs = 15;
    a.row_taps = a.col_taps = taps.data();
    DeviceBuffer<float> din(wb::random_vector<float>(4096u * 4096u, seed)), dtmp(4096u * 4096u), dout(4096u * 4096u);
    a.in = din.data(); a.tmp = dtmp.data(); a.out = dout.data();
    return median_ms([&](cudaStream_t s) { fn(a, s); });
}

}  // namespace wb::grade::test
