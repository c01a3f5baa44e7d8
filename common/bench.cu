// bench.cu — the benchmark harness of architecture §5 (declared in bench.hpp).
//
// Method: untimed warm-up calls; then timed calls, each between its own pair of CUDA events,
// with the L2 flushed *before* the start event (outside the timed region) so a memory-bound
// kernel reads DRAM, not cache. The flush writes a buffer of twice the L2 (architecture §5), which
// leaves the L2 full of dirty lines, as any kernel that wrote its output would: the timed
// kernel's misses must write some of them back, and a kernel whose loads pick clean or
// evict-first victims pays less (docs/notes/gemv.md). WB_L2_FLUSH=write_read adds a
// read-back of the buffer, so the L2 is left clean: the other condition, for comparison. Calls are enqueued in batches and the stream is synchronised
// once per batch, so the GPU never waits on the host between calls and a start event fires as
// soon as the flush before it has finished. After each batch the relative standard error of the
// mean decides whether more repetitions are needed (target_rse, capped by max_reps and
// max_seconds). summarize() turns the samples into median/min/max/mean/rse/spread.
#include "bench.hpp"

#include "check.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>

namespace wb {

namespace {

/// A start/stop event pair, destroyed even when the timed callable throws.
struct EventPair {
    cudaEvent_t start = nullptr, stop = nullptr;
    EventPair() {
        WB_CUDA(cudaEventCreate(&start));
        try {
            WB_CUDA(cudaEventCreate(&stop));
        } catch (...) {
            cudaEventDestroy(start);
            throw;
        }
    }
    ~EventPair() {
        if (start) cudaEventDestroy(start);
        if (stop) cudaEventDestroy(stop);
    }
    EventPair(const EventPair&) = delete;
    EventPair& operator=(const EventPair&) = delete;
};

/// One flusher per device, created on first use and kept for the life of the process (it is
/// deliberately never destroyed: freeing device memory during static destruction can run after
/// the CUDA runtime has been unloaded).
L2Flusher& flusher_for_current_device() {
    static std::mutex mutex;
    static auto* flushers = new std::map<int, L2Flusher*>();
    int device = 0;
    WB_CUDA(cudaGetDevice(&device));
    std::lock_guard<std::mutex> lock(mutex);
    auto it = flushers->find(device);
    if (it == flushers->end()) it = flushers->emplace(device, new L2Flusher()).first;
    return *it->second;
}

/// Reads every 16 bytes of the flush buffer with ordinary (L2-allocating) loads. The XOR of the
/// words is compared with a constant the memset pattern cannot produce, so the loads stay live.
__global__ void read_back_kernel(const uint4* buf, std::size_t n16, unsigned* sink) {
    unsigned acc = 0;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n16; i += stride) {
        const uint4 v = buf[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u) *sink = acc;
}

L2Flusher::Mode mode_from_environment() {
    const char* env = std::getenv("WB_L2_FLUSH");
    if (!env || !*env || std::strcmp(env, "write") == 0) return L2Flusher::Mode::write;
    if (std::strcmp(env, "write_read") == 0) return L2Flusher::Mode::write_read;
    throw std::invalid_argument(std::string("WB_L2_FLUSH (\"") + env + "\") must be \"write\" or \"write_read\"");
}

void validate(const BenchOptions& opt) {
    auto fail = [](const std::string& what) { throw std::invalid_argument("benchmark: " + what); };
    if (opt.warmup < 0) fail("warmup (" + std::to_string(opt.warmup) + ") must be >= 0");
    if (opt.min_reps < 1) fail("min_reps (" + std::to_string(opt.min_reps) + ") must be >= 1");
    if (opt.max_reps < opt.min_reps)
        fail("max_reps (" + std::to_string(opt.max_reps) + ") must be >= min_reps (" +
             std::to_string(opt.min_reps) + ")");
    if (!(opt.target_rse > 0))
        fail("target_rse (" + std::to_string(opt.target_rse) + ") must be > 0");
    if (!(opt.max_seconds > 0))
        fail("max_seconds (" + std::to_string(opt.max_seconds) + ") must be > 0");
}

}  // namespace

// ---------------------------------------------------------------------------------------------
L2Flusher::L2Flusher() {
    int device = 0, l2 = 0;
    WB_CUDA(cudaGetDevice(&device));
    WB_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    // Twice the L2 (architecture §5); at least 8 MiB should a device report no L2 size.
    bytes_ = std::max<std::size_t>(2 * static_cast<std::size_t>(l2), std::size_t{8} << 20);
    mode_ = mode_from_environment();
    int sms = 0;
    WB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    blocks_ = 4 * std::max(sms, 1);
    WB_CUDA(cudaMalloc(&buf_, bytes_));
    WB_CUDA(cudaMalloc(&sink_, sizeof(unsigned)));
}

L2Flusher::~L2Flusher() {
    if (buf_) cudaFree(buf_);  // never throw from a destructor
    if (sink_) cudaFree(sink_);
}

void L2Flusher::flush(cudaStream_t stream) {
    // Writing every line of a buffer twice the L2's size evicts whatever the previous call left
    // there; the lines of the buffer's second half stay behind, dirty.
    WB_CUDA(cudaMemsetAsync(buf_, 0x5a, bytes_, stream));
    if (mode_ == Mode::write) return;
    // Reading the buffer back writes those dirty lines back now, outside the timed region, and
    // leaves the L2 holding clean lines that the timed kernel can evict for free.
    read_back_kernel<<<blocks_, 512, 0, stream>>>(static_cast<const uint4*>(buf_), bytes_ / sizeof(uint4), sink_);
    WB_CUDA(cudaGetLastError());
}

// ---------------------------------------------------------------------------------------------
BenchStats summarize(std::vector<double> samples_ms) {
    if (samples_ms.empty())
        throw std::invalid_argument("summarize: samples_ms (0 values) must not be empty");
    for (std::size_t i = 0; i < samples_ms.size(); ++i)
        if (!std::isfinite(samples_ms[i]) || samples_ms[i] < 0)
            throw std::invalid_argument("summarize: samples_ms[" + std::to_string(i) + "] (" +
                                        std::to_string(samples_ms[i]) +
                                        ") must be finite and >= 0");
    std::sort(samples_ms.begin(), samples_ms.end());
    const std::size_t n = samples_ms.size();
    BenchStats s;
    s.reps = static_cast<int>(n);
    s.min_ms = samples_ms.front();
    s.max_ms = samples_ms.back();
    s.median_ms = (n % 2 == 1) ? samples_ms[n / 2] : 0.5 * (samples_ms[n / 2 - 1] + samples_ms[n / 2]);
    s.mean_ms = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0) / static_cast<double>(n);
    if (n >= 2 && s.mean_ms > 0) {
        double ss = 0;
        for (double v : samples_ms) ss += (v - s.mean_ms) * (v - s.mean_ms);
        const double sd = std::sqrt(ss / static_cast<double>(n - 1));  // sample standard deviation
        s.rse = sd / std::sqrt(static_cast<double>(n)) / s.mean_ms;    // standard error / mean
    }
    s.spread = s.median_ms > 0 ? (s.max_ms - s.min_ms) / s.median_ms : 0.0;
    return s;
}

// ---------------------------------------------------------------------------------------------
BenchStats benchmark(const std::function<void(cudaStream_t)>& fn, const BenchOptions& opt,
                     cudaStream_t stream) {
    if (!fn) throw std::invalid_argument("benchmark: fn (empty) must be a callable");
    validate(opt);

    L2Flusher* flusher = opt.flush_l2 ? &flusher_for_current_device() : nullptr;

    for (int i = 0; i < opt.warmup; ++i) {
        if (flusher) flusher->flush(stream);
        fn(stream);
    }
    WB_CUDA(cudaStreamSynchronize(stream));

    // Batches: the first has min_reps calls, later ones a quarter of that (at least 4), so the
    // stopping rule is checked often without the host ever starving the GPU.
    const int later_batch = std::max(4, opt.min_reps / 4);
    std::vector<std::unique_ptr<EventPair>> events;
    std::vector<double> samples;
    samples.reserve(static_cast<std::size_t>(opt.min_reps));
    const auto t0 = std::chrono::steady_clock::now();
    BenchStats stats;
    for (;;) {
        const int done = static_cast<int>(samples.size());
        const int batch = std::min(done == 0 ? opt.min_reps : later_batch, opt.max_reps - done);
        while (static_cast<int>(events.size()) < batch) events.push_back(std::make_unique<EventPair>());
        for (int i = 0; i < batch; ++i) {
            if (flusher) flusher->flush(stream);  // outside the timed region
            WB_CUDA(cudaEventRecord(events[i]->start, stream));
            fn(stream);
            WB_CUDA(cudaEventRecord(events[i]->stop, stream));
        }
        for (int i = 0; i < batch; ++i) {
            WB_CUDA(cudaEventSynchronize(events[i]->stop));
            float ms = 0;
            WB_CUDA(cudaEventElapsedTime(&ms, events[i]->start, events[i]->stop));
            samples.push_back(static_cast<double>(ms));
        }
        stats = summarize(samples);
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (stats.reps >= opt.max_reps || stats.rse < opt.target_rse || elapsed >= opt.max_seconds) break;
    }

    if (opt.working_set_bytes > 0) {
        int device = 0, l2 = 0;
        WB_CUDA(cudaGetDevice(&device));
        WB_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
        stats.l2_resident = opt.working_set_bytes <= static_cast<std::size_t>(l2);
    }
    return stats;
}

}  // namespace wb
