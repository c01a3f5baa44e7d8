// symv_timeline.cu — where a tuned SYMV call's time goes that does not scale with n: every block's
// start and end (%globaltimer, ns) and SM, recorded by an instrumented copy of the tuned step, and
// from them the grid's concurrency over time: how long the first wave takes to start streaming,
// how long the tail runs below full occupancy, and how busy the block slots are over the span.
// The instrumented copy is built by scripts/probes/symv_timeline.sh (it patches a temporary copy of
// kernels/tuned/symv.cu: a timestamp at the top of the kernel, one after a barrier at its end, and
// wb_probe_timeline_set to hand it the buffer) and links before the library, so that
// wb::tuned::symv below is the instrumented one. L2 is flushed before every call.
//
// Build and run (from the repository root, after the CMake build in build-main):
//   bash scripts/probes/symv_timeline.sh build        # -> build-main/symv_timeline
//   ./build-main/symv_timeline [--sizes 1024,4096,8192,16384] [--reps 5]
#include "symv_operands.cuh"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// Defined in the instrumented copy of kernels/tuned/symv.cu: where each block writes
// {start ns, end ns, SM} (3 values per block, at 3 x blockIdx.x), or nullptr for no record.
extern "C" void wb_probe_timeline_set(unsigned long long* records);

namespace {

struct Block {
    unsigned long long t0, t1;
    unsigned sm;
};

// From one call's block records: the span, the grid's concurrency over time (a sweep over starts and
// ends), the time until the running blocks first reach 90% of their peak (ramp) and the time after
// they last fall below it (tail), and the slots' busy fraction (sum of block times / (peak x span)).
void summarize(const char* prec, int n, const wb::SymvLaunch& l, const std::vector<Block>& b, double call_us) {
    unsigned long long t_min = ~0ull, t_max = 0;
    for (const Block& k : b) {
        t_min = std::min(t_min, k.t0);
        t_max = std::max(t_max, k.t1);
    }
    std::vector<std::pair<unsigned long long, int>> ev;
    double busy = 0;
    for (const Block& k : b) {
        ev.push_back({k.t0, +1});
        ev.push_back({k.t1, -1});
        busy += static_cast<double>(k.t1 - k.t0);
    }
    std::sort(ev.begin(), ev.end());
    int run = 0, peak = 0;
    for (auto& e : ev) peak = std::max(peak, run += e.second);
    const int high = (9 * peak + 9) / 10;
    unsigned long long ramp_end = t_max, tail_start = t_min;
    run = 0;
    for (auto& e : ev) {
        run += e.second;
        if (run >= high && ramp_end == t_max) ramp_end = e.first;
        if (run >= high) tail_start = e.first;
    }
    // A tail event: the last time the count was at or above `high` is when it started to fall for good.
    double first_wave_end = 0, last_start = 0, min_dur = 1e30, max_dur = 0;
    for (const Block& k : b) {
        last_start = std::max(last_start, static_cast<double>(k.t0 - t_min));
        min_dur = std::min(min_dur, static_cast<double>(k.t1 - k.t0));
        max_dur = std::max(max_dur, static_cast<double>(k.t1 - k.t0));
        if (k.t0 - t_min < 1000) first_wave_end = std::max(first_wave_end, static_cast<double>(k.t1 - t_min));
    }
    const double span = static_cast<double>(t_max - t_min);
    std::printf("%-6s n=%6d %-28s blocks %6zu  call %8.1f us  span %8.1f us  peak %4d running  ramp %6.2f us  "
                "tail %6.2f us  slots busy %5.1f%%  last start %8.1f us  block %6.2f ... %7.2f us  first wave ends by %8.1f us\n",
                prec, n, l.str().c_str(), b.size(), call_us, span / 1e3, peak, (ramp_end - t_min) / 1e3,
                (t_max - tail_start) / 1e3, 100.0 * busy / (static_cast<double>(peak) * span), last_start / 1e3,
                min_dur / 1e3, max_dur / 1e3, first_wave_end / 1e3);
}

template <class T>
void run(const std::vector<int>& sizes, int reps, const Flush& flush, unsigned long long* rec, size_t rec_cap) {
    const char* prec = sizeof(T) == 4 ? "float" : "double";
    for (int n : sizes) {
        SymvOperands<T> op(static_cast<size_t>(n) * n, n);
        const wb::SymvArgs<T> a = op.args(wb::Uplo::Lower, n, op.A, n);
        const wb::SymvLaunch l = wb::tuned::symv_default(a);
        // The call's time without records, then `reps` recorded calls (each after a flush).
        wb_probe_timeline_set(nullptr);
        const double us = median_us([&] { wb::tuned::symv<T>(a, l, nullptr); }, flush, 15);
        for (int r = 0; r < reps; ++r) {
            CHECK(cudaMemset(rec, 0, rec_cap * sizeof(unsigned long long)));
            wb_probe_timeline_set(rec);
            flush();
            wb::tuned::symv<T>(a, l, nullptr);
            CHECK(cudaDeviceSynchronize());
            wb_probe_timeline_set(nullptr);
            std::vector<unsigned long long> hr(rec_cap);
            CHECK(cudaMemcpy(hr.data(), rec, rec_cap * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
            std::vector<Block> blocks;
            for (size_t i = 0; i + 2 < rec_cap; i += 3)
                if (hr[i] != 0) blocks.push_back({hr[i], hr[i + 1], static_cast<unsigned>(hr[i + 2])});
            summarize(prec, n, l, blocks, us);
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<int> sizes = {1024, 2048, 4096, 8192, 16384};
    int reps = 3;
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--sizes") == 0) {
            sizes = int_list(argv[++i]);
        } else if (std::strcmp(argv[i], "--reps") == 0) {
            reps = std::max(1, std::atoi(argv[++i]));
        }
    }
    cudaDeviceProp p{};
    CHECK(cudaGetDeviceProperties(&p, 0));
    std::printf("%s, %d SMs; times from %%globaltimer (ns) at each block's start and end\n", p.name,
                p.multiProcessorCount);
    Flush flush;
    // Records for the largest grid: nt x Y blocks, nt <= n / 32 + 2, Y <= 8.
    int n_max = 0;
    for (int n : sizes) n_max = std::max(n_max, n);
    const size_t rec_cap = 3 * (static_cast<size_t>(n_max) / 32 + 2) * 8;
    unsigned long long* rec = nullptr;
    CHECK(cudaMalloc(&rec, rec_cap * sizeof(unsigned long long)));
    run<float>(sizes, reps, flush, rec, rec_cap);
    run<double>(sizes, reps, flush, rec, rec_cap);
    CHECK(cudaFree(rec));
}
