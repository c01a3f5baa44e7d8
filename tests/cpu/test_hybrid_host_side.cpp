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
#include <vector>

TEST_CASE("cpu::ScopedOmpThreads: the team for the scope, then the one before; the rows' bits unchanged", "[cpu][split]") {
    const int all = wb::cpu::threads();
    REQUIRE(all >= 1);
    const int rows = 37, cols = 29, fs = 5;
    const auto in = wb::random_vector<double>(static_cast<std::size_t>(rows) * cols, 51);
    const auto f = wb::random_vector<double>(static_cast<std::size_t>(fs) * fs, 52);
    std::vector<double> whole(in.size()), fewer(in.size());
    wb::poison(whole);
    wb::poison(fewer);
    wb::cpu::conv2d(wb::Conv2dArgs<double>{rows, cols, fs, in.data(), cols, f.data(), whole.data(), cols});
    for (int n : {1, all > 1 ? all - 1 : 1}) {
        {
            const wb::cpu::ScopedOmpThreads scope(n);
#if defined(_OPENMP)
            CHECK(wb::cpu::threads() == n);
#endif
            wb::cpu::conv2d_rows(wb::Conv2dArgs<double>{rows, cols, fs, in.data(), cols, f.data(), fewer.data(), cols}, 0, rows);
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
    const int rows = 64, cols = 48, fs = 3;
    const auto in = wb::random_vector<float>(static_cast<std::size_t>(rows) * cols, 53);
    const auto f = wb::random_vector<float>(static_cast<std::size_t>(fs) * fs, 54);
    std::vector<float> ref(in.size()), out(in.size());
    wb::poison(ref);
    wb::poison(out);
    wb::cpu::conv2d(wb::Conv2dArgs<float>{rows, cols, fs, in.data(), cols, f.data(), ref.data(), cols});
    wb::hybrid::conv2d(wb::Conv2dArgs<float>{rows, cols, fs, in.data(), cols, f.data(), out.data(), cols}, 0, 16);
    for (std::size_t i = 0; i < out.size(); ++i) REQUIRE(out[i] == ref[i]);
    const wb::hybrid::SideTimes t = wb::hybrid::last_side_times();
    CHECK(t.cpu_ms > 0);
    CHECK(t.gpu_ms == 0);
    CHECK(t.total_ms == t.cpu_ms);
}
