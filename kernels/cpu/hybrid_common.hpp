/// \file hybrid_common.hpp
/// \brief What chapter 7's hybrids share (hybrid_gemv.hpp and its siblings): how one call runs on
///        both processors at once, the GPU side's reusable streams and buffers, its pipeline of
///        chunks, the failure contract, and a test hook that makes one side fail.
///
/// One hybrid call. The CPU's share runs on the calling thread (whose OpenMP team and OpenBLAS
/// threads are already started). Where the host arrays the GPU side copies are page-locked, every
/// copy and kernel of the GPU's share is asynchronous: the calling thread issues them all first,
/// then computes its share, then sleeps on blocking-sync events until the GPU is done. Another
/// thread would have to wake up and win a core from the CPU's busy threads before the GPU could
/// start: measured on an H200's 16-core host in the rows' turn, that hand-off cost up to 0.8 ms and
/// the hybrid up to a third of its time (docs/notes/split.md, session 37). Where an array is
/// pageable, a copy is staged through the driver: one into pageable memory returns only when done,
/// one from it only once its source is staged, so the GPU's share goes to a GPU worker: one
/// persistent host thread per calling thread, which issues the copies and kernels and sleeps on
/// the events, while the calling thread computes. A call with only one side's work runs
/// it on the calling thread.
///
/// The GPU's share, pipelined. Its outputs go in chunks on two streams, alternately, into two sets
/// of device buffers: the copy-in of one chunk overlaps the kernel of the other and the copy-out
/// of the one before (with pinned host memory; a pageable copy is staged by the driver and does
/// not overlap). An operand every chunk needs (GEMV's x, GEMM's A, the filter) is copied once on
/// stream 0, and stream 1 waits for it.
///
/// The contract. A call returns when both sides have finished and every copy is complete: the
/// caller never sees an output while a copy into it may still run, and may reuse its inputs at
/// once. When either side fails, the call waits until the other side has stopped and every copy
/// is over, then throws (the GPU's error first): the output is then unspecified and nothing is
/// reported as done.
#pragma once

#include "buffer.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <vector>

namespace wb::hybrid {

namespace testing {
/// Which side the next hybrid call makes fail.
enum class Fail { none, cpu, gpu, gpu_late };
/// Arms a failure for the next hybrid call of this process (tests only): `cpu` throws on the CPU
/// side before its share runs (the GPU side runs to its end); `gpu` throws on the GPU side after
/// its first chunk has been issued (copies in flight), which then waits for its streams. Both
/// throw std::runtime_error naming the side ("... injected CPU failure ..."). `gpu_late`: a
/// balanced call (hybrid_balance.hpp) fails on its GPU side at its first poll, between the CPU's
/// pieces, with chunks in flight; any other call takes it as `gpu`. A call whose share leaves the
/// armed side without work disarms it without failing.
void fail_next_call(Fail side);
/// Diagnosis only (scripts/probes/hybrid_sides_probe.cu): while on, a hybrid call of this process
/// runs its GPU side to its end first and then its CPU side, so that each side's time in
/// last_side_times() is its time alone, at the same share and through the same code.
void run_sides_in_turn(bool on);
/// Which thread issues a hybrid call's GPU side (the file comment): `automatic`, the default, the
/// calling thread where every host array the GPU side copies is page-locked and the GPU worker
/// otherwise; `worker` and `caller` force one (tests and scripts/probes/hybrid_sides_probe.cu, which
/// compares the two; forced on pageable arrays, the caller's copies run before its CPU share).
enum class Issuer { automatic, worker, caller };
void force_issuer(Issuer who);
/// force_issuer for a scope: the automatic choice again at its end.
class ScopedIssuer {
public:
    explicit ScopedIssuer(Issuer who) { force_issuer(who); }
    ~ScopedIssuer() { force_issuer(Issuer::automatic); }
    ScopedIssuer(const ScopedIssuer&) = delete;
    ScopedIssuer& operator=(const ScopedIssuer&) = delete;
};
}  // namespace testing

/// The last hybrid call's sides on the calling thread (ms): each side from its start to its end,
/// and the whole call; 0 for a side without work. The GPU side's start is the call's: through the
/// GPU worker it includes the hand-off; issued on the calling thread, its end is seen only once the
/// CPU's share is done, so that it is then the call's time unless the GPU took longer. What
/// chapter 7's notes compare with each side's model when a hybrid misses its prediction.
struct SideTimes {
    double cpu_ms = 0, gpu_ms = 0, total_ms = 0;
    /// From the call's start: when the GPU worker began (its hand-off and wake-up; 0 where the
    /// calling thread issued the GPU side or the GPU had no work), and when the GPU side's last
    /// chunk was issued (the API calls behind it: copies, launches, their launch rules).
    double gpu_began_ms = 0, gpu_issued_ms = 0;
    /// The calling thread issued the GPU side before the CPU's share began (page-locked arrays):
    /// gpu_issued_ms then delays the CPU's share by as much (chapter 7's model prices it).
    bool issued_on_caller = false;
    /// A balanced call (hybrid_balance.hpp): the outputs the GPU computed in the end; -1 for a
    /// call with a fixed share (its GPU part is the share given).
    int gpu_outputs = -1;
    /// A balanced call: the chunks its calling thread issued before the CPU's share began (what
    /// gpu_issued_ms covers); 0 for a call with a fixed share (its issue covers all its chunks).
    int chunks_before_cpu = 0;
};
SideTimes last_side_times();

/// What running both sides at once costs by itself (ms): the median of empty hybrid calls, whose
/// GPU side only records an event on each stream and waits for it as a real share does (issued
/// on the calling thread, as a share of page-locked arrays is: the wake-up from the blocking-sync
/// events, the return). Chapter 7's model adds it to the hybrid's GPU side. Needs a CUDA device.
double measure_hybrid_overhead_ms();

namespace detail {

/// What the GPU side reuses from call to call, per host thread and device (a library keeps its
/// workspace so; cuBLAS does): two non-blocking streams, events and the device buffers, grown as
/// needed. Creating and freeing them in every call would cost more than a small call's copies and
/// kernel together (an H200 measured 0.18 ms for a whole n = 256 GEMV that did so).
struct ShareState {
    cudaStream_t s[2] = {nullptr, nullptr};
    cudaEvent_t whole_ready = nullptr;            ///< the operand every chunk needs is on the device
    cudaEvent_t done[2] = {nullptr, nullptr};     ///< blocking-sync: the waiting thread sleeps
    cudaEvent_t kernel_done[2] = {nullptr, nullptr};  ///< a stream's last kernel (chunks that accumulate in order)
    GrowOnlyBuffer whole, whole2;                 ///< operands every chunk needs
    GrowOnlyBuffer in[2], in2[2], out[2];         ///< one chunk's operands and result, per stream
    /// Timing events a balanced call (hybrid_balance.hpp) records: mark(0) when the operands every
    /// chunk needs are in, mark(1 + i) after chunk i; created as first asked for, kept.
    cudaEvent_t mark(std::size_t i);
    ShareState();
    ~ShareState();  ///< at thread exit: errors ignored, never thrown
    ShareState(const ShareState&) = delete;
    ShareState& operator=(const ShareState&) = delete;
    /// Waits for both streams without throwing: on the error path, so that no copy still reads or
    /// writes the caller's host buffers once the error surfaces.
    void drain() noexcept;
    /// Waits for both streams; `sleep`: on blocking-sync events (the thread that waits beside a
    /// busy CPU: the calling thread after its share, or the GPU worker), else spinning (a GPU-only
    /// call: nothing else wants the core, and waking costs time).
    void finish(bool sleep);

private:
    std::vector<cudaEvent_t> marks_;
};
/// The calling thread's ShareState for the current device.
ShareState& share_state();

/// Page-locked host memory that only grows, one per thread that keeps it (thread_local): what
/// crosses the link from or into host memory the caller does not own (CG's p and q in every
/// iteration, SYMV's y_low). From pinned memory a copy is a DMA, from pageable memory a staged one.
class PinnedScratch {
public:
    PinnedScratch() = default;
    ~PinnedScratch() {
        if (p_) cudaFreeHost(p_);
    }
    PinnedScratch(const PinnedScratch&) = delete;
    PinnedScratch& operator=(const PinnedScratch&) = delete;
    void* get(std::size_t bytes);

private:
    void* p_ = nullptr;
    std::size_t bytes_ = 0;
};

/// How the GPU side of this call runs: it issues its copies and kernels on `sp` (the calling
/// thread's ShareState: its streams and buffers) and returns; run() waits for them.
struct GpuCall {
    ShareState* sp = nullptr;
    bool inject_failure = false;  ///< the test hook: fail after the first chunk is issued
};

/// Throws the injected GPU failure of `fn` (the test hook) after draining the streams.
[[noreturn]] void fail_injected_gpu(ShareState& sp, const char* fn);

/// The GPU side of a pipelined call, issued on call.sp: `prologue()` (the operands every chunk
/// needs: copy_whole), then issue(r0, c, b) for the chunks [r0, r0 + c) of [0, g) of `chunk`
/// outputs each on stream b = 0, 1, 0, ...; it returns once all is issued (run() waits). On any
/// error the streams are drained and the error rethrown.
void run_gpu_chunks(const GpuCall& call, const char* fn, int g, int chunk, const std::function<void()>& prologue,
                    const std::function<void(int r0, int c, int b)>& issue);

/// Makes stream 1 wait for everything issued on stream 0 so far (the operands every chunk needs).
void whole_done(ShareState& sp);
/// Copies `bytes` from host `src` to device `dst` on stream 0, then whole_done.
void copy_whole(ShareState& sp, void* dst, const void* src, std::size_t bytes);

/// A 2-D copy (cudaMemcpy2DAsync) of `rows` runs of `width` elements of T, `spitch` elements apart
/// on the source and `dpitch` apart on the destination; nothing for an empty block.
template <class T>
void copy_2d(T* dst, std::size_t dpitch, const T* src, std::size_t spitch, std::size_t width, std::size_t rows,
             cudaMemcpyKind kind, cudaStream_t s) {
    if (width == 0 || rows == 0) return;
    WB_CUDA(cudaMemcpy2DAsync(dst, dpitch * sizeof(T), src, spitch * sizeof(T), width * sizeof(T), rows, kind, s));
}

/// Whether every non-null host pointer in `ptrs` is page-locked (cudaMallocHost, cudaHostAlloc or
/// cudaHostRegister'ed memory, an interior pointer too; the pointer is what is asked, not the
/// whole array): what decides who issues the GPU's share.
bool page_locked(std::initializer_list<const void*> ptrs);

/// Runs one hybrid call (the file comment): `cpu()` on the calling thread where `cpu_work`;
/// `gpu(call)` where `gpu_work`. With both, the GPU side is issued on the calling thread before
/// `cpu()` where every array of `gpu_host_arrays` is page-locked, else on the GPU worker; alone, on
/// the calling thread. Which arrays the list holds (one rule for every hybrid): each output the GPU
/// side copies back, since a copy into pageable memory returns only once it is done (the calling
/// thread would wait for the GPU's share before starting its own), and each input of more than a
/// vector's elements (a matrix, an image), since a pageable input is staged before its copy
/// returns (milliseconds for a matrix, microseconds for a vector or a filter, which the list
/// leaves out). `gpu` only issues (on call.sp); run() waits, asleep on the events beside a CPU
/// share, spinning alone. Returns when both have stopped, rethrowing the GPU's error first, then
/// the CPU's. A GPU side that fails while the calling thread issues it has drained its streams,
/// and the CPU's share then never starts (through the worker the CPU's share runs to its end):
/// either way the output is unspecified. `fn` names the call in the injected failures' messages.
/// `after` (where given) runs on the calling thread once both sides have stopped without error,
/// inside the call's time (SYMV adds what the GPU's columns give the CPU's rows there).
void run(const char* fn, bool cpu_work, bool gpu_work, std::initializer_list<const void*> gpu_host_arrays,
         const std::function<void()>& cpu, const std::function<void(const GpuCall&)>& gpu,
         const std::function<void()>& after = {});

/// A BLAS hybrid's degenerate call, alpha == 0 (GEMM: or k == 0): out = beta out, and the
/// operands it would multiply are not read (BLAS lets them be null). `cols` columns of `rows`
/// elements, `ld` apart, scaled on the calling thread through run() like any call (it takes an
/// armed test failure and sets last_side_times()); beta == 0 writes zeros without reading out.
/// Neither side copies or computes anything else.
template <class T>
void scale_on_host(const char* fn, T* out, int rows, int cols, std::size_t ld, T beta) {
    run(fn, true, false, {},
        [&] {
            for (int j = 0; j < cols; ++j)
                for (int i = 0; i < rows; ++i) {
                    T& v = out[static_cast<std::size_t>(j) * ld + static_cast<std::size_t>(i)];
                    v = beta == T(0) ? T(0) : beta * v;
                }
        },
        [](const GpuCall&) {});
}

/// The share's argument rules of every hybrid: throws std::invalid_argument naming `fn` unless
/// 0 <= gpu_part <= total and chunk >= 1, e.g. "hybrid::gemv: gpu_rows (9) must be in [0, len(y)]
/// ([0, 8])" or "hybrid::gemv: chunk_rows (0) must be >= 1".
void check_share(const char* fn, const char* part_name, int gpu_part, const char* total_name, int total,
                 const char* chunk_name, int chunk);

/// The test hook's armed side, taken (and disarmed) by one call.
testing::Fail take_injected_failure();
/// run()'s rule for a call with both sides: the calling thread issues the GPU side where every
/// host array of `gpu_host_arrays` is page-locked (or testing::force_issuer says so).
bool issue_on_caller(std::initializer_list<const void*> gpu_host_arrays);
/// Whether testing::run_sides_in_turn is on (a balanced call then runs its fixed share).
bool sides_in_turn();
/// The calling thread's SideTimes, which last_side_times() returns (set by each call).
SideTimes& side_times_slot();
/// Waits for every copy and kernel issued on `sp` (asleep on the events where `sleep`); on an
/// error, once they are all over, then rethrows.
void wait_streams(ShareState& sp, bool sleep);

}  // namespace detail

}  // namespace wb::hybrid
