// The hybrid convolution of chapter 7 (kernels/cpu/hybrid_conv2d.hpp): the GPU's bands (each with
// its halo) and the CPU's rows assembled in place, against the float64 reference on odd images,
// pitches above the width (the output's padding never written), FS 1, 3, 9 and 35 (a halo wider
// than a band), shares none / one row / some / all but one / all with bands that do not divide
// them, pinned and pageable memory, float and double; the failure contract and the early-read
// rule (test_hybrid_common.hpp); argument errors.
#include "catch.hpp"

#include "cpu_peers.hpp"
#include "hybrid_conv2d.hpp"
#include "random.hpp"
#include "reference_conv2d.hpp"
#include "test_hybrid_common.hpp"

#include <cstring>
#include <limits>
#include <vector>

namespace {

using hybrid_test::Host;

template <class T>
struct Case {
    int rows, cols, fs, in_pitch, out_pitch;
    std::vector<T> in0, f0, out0;
    std::vector<double> ref;
    Host<T> in, f, out;
    Case(int rows_, int cols_, int fs_, bool pinned, std::uint64_t seed)
        : rows(rows_), cols(cols_), fs(fs_), in_pitch(cols_ + 3), out_pitch(cols_ + 5),
          in0(wb::random_vector<T>(static_cast<std::size_t>(in_pitch) * rows_, seed)),
          f0(wb::random_vector<T>(static_cast<std::size_t>(fs_) * fs_, seed + 1)), out0(out_init(seed + 2)),
          ref(reference()), in(in0, pinned), f(f0, pinned), out(out0, pinned) {}
    /// The image's cols of each row poisoned; the padding keeps its values.
    std::vector<T> out_init(std::uint64_t seed) const {
        auto v = wb::random_vector<T>(static_cast<std::size_t>(out_pitch) * rows, seed);
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c) v[static_cast<std::size_t>(r) * out_pitch + c] = std::numeric_limits<T>::quiet_NaN();
        return v;
    }
    std::vector<double> reference() const {
        wb::ref::Conv2dOperands<T> o;
        o.rows = rows, o.cols = cols, o.fs = fs, o.in = &in0, o.in_pitch = in_pitch, o.filter = &f0;
        return wb::ref::conv2d(o);
    }
    void reset() { std::memcpy(out.data(), out0.data(), out0.size() * sizeof(T)); }
    wb::Conv2dArgs<T> args() { return {rows, cols, fs, in.data(), in_pitch, f.data(), out.data(), out_pitch}; }
    void check() const {
        bool padding_kept = false;  // the padding past each row as it was
        const std::vector<T> img = hybrid_test::packed(out.copy(), out0, rows, cols, out_pitch, &padding_kept);
        CHECK(padding_kept);
        hybrid_test::check_error(img, ref, static_cast<std::size_t>(fs) * fs);
    }
};

}  // namespace

TEST_CASE("hybrid::conv2d matches the float64 reference for every FS, share and band", "[gpu][split]") {
    const int rows = hybrid_test::size(517), cols = hybrid_test::size(389);
    for (int fs : {1, 3, 9, 35}) {
        const bool pinned = fs != 9;  // FS 9 from pageable memory
        Case<float> f(rows, cols, fs, pinned, 401);
        Case<double> d(rows, cols, fs, pinned, 411);
        for (int g : {0, 1, rows / 3, rows - 1, rows})
            for (int band : {37, 5}) {  // 5 rows: narrower than FS 9's and 35's halos
                INFO("fs " << fs << " pinned " << pinned << " gpu_rows " << g << " band " << band);
                f.reset();
                wb::hybrid::conv2d(f.args(), g, band);
                f.check();
                d.reset();
                wb::hybrid::conv2d(d.args(), g, band + 27);
                d.check();
            }
    }
}

TEST_CASE("hybrid::conv2d: a failure on either side surfaces after both stopped", "[gpu][split]") {
    const int rows = hybrid_test::size(1537);
    Case<float> c(rows, hybrid_test::size(1021), 9, true, 421);
    hybrid_test::check_failures<float>([&] { wb::hybrid::conv2d(c.args(), rows / 2 + 31, rows / 8); }, c.out.data(), c.out.size(),
                                       [&] { c.check(); }, [&] { c.reset(); });
}

TEST_CASE("hybrid::conv2d: the output is complete at the return and the inputs are free to reuse", "[gpu][split]") {
    const int rows = hybrid_test::size(2049);
    Case<double> c(rows, hybrid_test::size(2047), 5, true, 431);
    hybrid_test::check_no_early_read<double>([&] { wb::hybrid::conv2d(c.args(), 3 * rows / 4, rows / 7); }, c.out.data(),
                                             c.out.size(), [&] { c.check(); },
                                             [&] { c.reset(); }, {&c.in, &c.f});
}

TEST_CASE("hybrid::conv2d: bad arguments throw before anything runs", "[gpu][split]") {
    std::vector<float> v(64, 1.0f), o(64);
    wb::Conv2dArgs<float> a{8, 8, 3, v.data(), 8, v.data(), o.data(), 8};
    CHECK_THROWS_WITH(wb::hybrid::conv2d(a, 9, 4), "hybrid::conv2d: gpu_rows (9) must be in [0, rows] ([0, 8])");
    CHECK_THROWS_WITH(wb::hybrid::conv2d(a, 4, 0), "hybrid::conv2d: chunk_rows (0) must be >= 1");
    a.fs = 4;
    CHECK_THROWS_AS(wb::hybrid::conv2d(a, 4, 4), std::invalid_argument);
}

// The balanced call (pieces > 1, kernels/cpu/hybrid_balance.hpp): where the two sides meet depends
// on their times in this run, so each call is checked whole, whatever split it ended with.
TEST_CASE("hybrid::conv2d balanced matches the float64 reference for every FS, plan and piece count", "[gpu][split]") {
    const int rows = hybrid_test::size(517), cols = hybrid_test::size(389);
    for (int fs : {1, 3, 9, 35}) {
        const bool pinned = fs != 9;  // FS 9 from pageable memory: the fixed share
        Case<float> f(rows, cols, fs, pinned, 441);
        Case<double> d(rows, cols, fs, pinned, 451);
        for (int g : {1, rows / 3, rows - 1})
            for (int pieces : {2, 8}) {
                INFO("fs " << fs << " pinned " << pinned << " plan " << g << " pieces " << pieces);
                f.reset();
                wb::hybrid::conv2d(f.args(), g, 5, pieces);  // 5 rows: narrower than FS 9's and 35's halos
                const int gpu_rows = wb::hybrid::last_side_times().gpu_outputs;
                if (pinned) CHECK((gpu_rows >= 1 && gpu_rows <= rows - 1));  // each side at least one row
                else CHECK(gpu_rows == -1);
                f.check();
                d.reset();
                wb::hybrid::conv2d(d.args(), g, 41, pieces);
                d.check();
            }
    }
}

TEST_CASE("hybrid::conv2d balanced: a failure on either side surfaces after both stopped", "[gpu][split]") {
    const int rows = hybrid_test::size(1537);
    Case<float> c(rows, hybrid_test::size(1021), 9, true, 461);
    hybrid_test::check_failures<float>([&] { wb::hybrid::conv2d(c.args(), rows / 2 + 31, rows / 16, 7); }, c.out.data(),
                                       c.out.size(), [&] { c.check(); }, [&] { c.reset(); });
}

TEST_CASE("hybrid::conv2d balanced: a GPU failure between the CPU's pieces surfaces after both stopped", "[gpu][split]") {
    const int rows = hybrid_test::size(1537);
    Case<float> c(rows, hybrid_test::size(1021), 9, true, 465);
    hybrid_test::check_late_failure<float>([&] { wb::hybrid::conv2d(c.args(), rows / 2, rows / 16, 7); }, c.out.data(),
                                           c.out.size(), [&] { c.check(); }, [&] { c.reset(); });
}

TEST_CASE("hybrid::conv2d balanced: the output is complete at the return and the inputs are free to reuse", "[gpu][split]") {
    const int rows = hybrid_test::size(2049);
    Case<double> c(rows, hybrid_test::size(2047), 5, true, 471);
    hybrid_test::check_no_early_read<double>([&] { wb::hybrid::conv2d(c.args(), 3 * rows / 4, rows / 14, 8); }, c.out.data(),
                                             c.out.size(), [&] { c.check(); }, [&] { c.reset(); }, {&c.in, &c.f});
}

TEST_CASE("hybrid::conv2d: pieces below 1 throw before anything runs", "[gpu][split]") {
    std::vector<float> v(64, 1.0f), o(64);
    const wb::Conv2dArgs<float> a{8, 8, 3, v.data(), 8, v.data(), o.data(), 8};
    CHECK_THROWS_WITH(wb::hybrid::conv2d(a, 4, 4, 0), "hybrid::conv2d: pieces (0) must be >= 1");
}
