// The host side of chapter 7's hybrids that runs without a GPU (kernels/cpu/hybrid_common.hpp,
// cpu_peers.hpp): a call whose share gives the GPU no rows runs on the calling thread and records
// its time as the CPU side's (hybrid::last_side_times), and cpu::ScopedOmpThreads sets the
// OpenMP team for a scope and puts it back, the convolution's rows giving the same bits on fewer
// threads (each output row is one thread's, whatever the team).
#include "catch.hpp"

#include "cpu_peers.hpp"
#include "hybrid_common.hpp"
#include "hybrid_conv2d.hpp"
#include "random.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

/// A seeded rows x cols image and FS x FS filter, two poisoned outputs, and the arguments that
/// write the first (`args`) or the second (`other`).
template <class T>
struct ConvCase {
    int rows, cols, fs;
    std::vector<T> in, f, out, out2;
    ConvCase(int rows_, int cols_, int fs_, std::uint64_t seed)
        : rows(rows_), cols(cols_), fs(fs_),
          in(wb::random_vector<T>(static_cast<std::size_t>(rows_) * cols_, seed)),
          f(wb::random_vector<T>(static_cast<std::size_t>(fs_) * fs_, seed + 1)), out(in.size()), out2(in.size()) {
        wb::poison(out);
        wb::poison(out2);
    }
    wb::Conv2dArgs<T> args(std::vector<T>& o) const { return {rows, cols, fs, in.data(), cols, f.data(), o.data(), cols}; }
};

}  // namespace

TEST_CASE("cpu::ScopedOmpThreads: the team for the scope, then the one before; the rows' bits unchanged", "[cpu][split]") {
    const int all = wb::cpu::threads();
    REQUIRE(all >= 1);
    ConvCase<double> c(37, 29, 5, 51);
    std::vector<double>&whole = c.out, &fewer = c.out2;
    wb::cpu::conv2d(c.args(whole));
    for (int n : {1, all > 1 ? all - 1 : 1}) {
        {
            const wb::cpu::ScopedOmpThreads scope(n);
#if defined(_OPENMP)
            CHECK(wb::cpu::threads() == n);
#endif
            wb::cpu::conv2d_rows(c.args(fewer), 0, c.rows);
        }
        CHECK(wb::cpu::threads() == all);
        for (std::size_t i = 0; i < whole.size(); ++i) REQUIRE(fewer[i] == whole[i]);
        wb::poison(fewer);
    }
    {
        const wb::cpu::ScopedOmpThreads below_one(0);  // clamped to one thread
#if defined(_OPENMP)
        CHECK(wb::cpu::threads() == 1);
#endif
    }
    CHECK(wb::cpu::threads() == all);
}

TEST_CASE("hybrid::last_side_times: a call with no GPU rows is its CPU side, on the calling thread", "[cpu][split]") {
    ConvCase<float> c(64, 48, 3, 53);
    std::vector<float>&ref = c.out, &out = c.out2;
    wb::cpu::conv2d(c.args(ref));
    wb::hybrid::conv2d(c.args(out), 0, 16);
    for (std::size_t i = 0; i < out.size(); ++i) REQUIRE(out[i] == ref[i]);
    const wb::hybrid::SideTimes t = wb::hybrid::last_side_times();
    CHECK(t.cpu_ms > 0);
    CHECK(t.gpu_ms == 0);
    CHECK(t.total_ms == t.cpu_ms);
}
