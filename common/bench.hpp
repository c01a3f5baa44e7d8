/// \file bench.hpp
/// \brief The benchmark harness (architecture §5): CUDA events around each call, warm-up first,
///        repetitions until the median is stable, L2 flushed between calls for memory-bound
///        kernels, and an "L2-resident" mark when the working set fits in L2 anyway.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <vector>

namespace wb {

struct BenchOptions {
    int warmup = 3;              ///< untimed calls first (module load, handle creation, clocks)
    int min_reps = 10;           ///< at least this many timed calls
    int max_reps = 200;          ///< cap on timed calls
    double target_rse = 0.01;    ///< stop once the relative standard error of the mean < 1%
    double max_seconds = 2.0;    ///< or once this much wall time was spent timing
    bool flush_l2 = true;        ///< write a buffer of twice the L2 before every timed call (L2Flusher)
    std::size_t working_set_bytes = 0;  ///< bytes the call touches; used for the L2-resident mark
};

struct BenchStats {
    double median_ms = 0, min_ms = 0, max_ms = 0, mean_ms = 0;
    double rse = 0;           ///< relative standard error of the mean
    double spread = 0;        ///< (max - min) / median
    int reps = 0;
    bool l2_resident = false; ///< working set fits in L2: the timing may be cache, not DRAM
};

/// Time `fn(stream)`. The callable enqueues work on the stream; it must not synchronize.
BenchStats benchmark(const std::function<void(cudaStream_t)>& fn, const BenchOptions& opt = {},
                     cudaStream_t stream = nullptr);

/// Evicts the L2 between timed calls: writes a device buffer of twice the L2's size (architecture §5),
/// so the next kernel starts with none of its own data in the L2, and with the L2 full of dirty
/// lines (as after any kernel that wrote its output). Environment WB_L2_FLUSH=write_read also
/// reads the buffer back, leaving clean lines: the comparison in docs/notes/gemv.md.
class L2Flusher {
public:
    enum class Mode { write, write_read };
    L2Flusher();   ///< sized from the current device's L2; mode from WB_L2_FLUSH
    ~L2Flusher();
    L2Flusher(const L2Flusher&) = delete;
    L2Flusher& operator=(const L2Flusher&) = delete;
    void flush(cudaStream_t stream);
    std::size_t bytes() const { return bytes_; }
    Mode mode() const { return mode_; }

private:
    void* buf_ = nullptr;
    unsigned* sink_ = nullptr;  ///< written only if an impossible checksum comes up: keeps the reads
    std::size_t bytes_ = 0;
    int blocks_ = 0;
    Mode mode_ = Mode::write;
};

/// Statistics of a list of samples (exposed for the CPU tests).
BenchStats summarize(std::vector<double> samples_ms);

}  // namespace wb
