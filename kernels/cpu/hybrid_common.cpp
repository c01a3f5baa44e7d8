// hybrid_common.cpp — what the hybrids share (hybrid_common.hpp): the GPU worker thread, the cached
// streams and buffers, the chunk pipeline and its error path, and the failure test hook.
#include "hybrid_common.hpp"

#include "check.hpp"
#include "launch_checks.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace wb::hybrid {

namespace {

std::atomic<int> g_armed{static_cast<int>(testing::Fail::none)};
std::atomic<bool> g_in_turn{false};
std::atomic<int> g_issuer{static_cast<int>(testing::Issuer::automatic)};
thread_local SideTimes t_last_sides;

using Clock = std::chrono::steady_clock;
double ms_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

/// One persistent host thread that runs the GPU side of the calls of the thread that owns it.
/// Starting a thread per call would cost tens of microseconds; a thread that lives on keeps its
/// streams and buffers (share_state() is per thread) from call to call.
class GpuWorker {
public:
    GpuWorker() : thread_([this] { loop(); }) {}
    ~GpuWorker() {
        {
            std::lock_guard<std::mutex> lock(m_);
            quit_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }
    GpuWorker(const GpuWorker&) = delete;
    GpuWorker& operator=(const GpuWorker&) = delete;

    std::future<void> submit(std::function<void()> f) {
        std::packaged_task<void()> task(std::move(f));
        std::future<void> done = task.get_future();
        {
            std::lock_guard<std::mutex> lock(m_);
            task_ = std::move(task);
            pending_ = true;
        }
        cv_.notify_all();
        return done;
    }

private:
    void loop() {
        for (;;) {
            std::packaged_task<void()> task;
            {
                std::unique_lock<std::mutex> lock(m_);
                cv_.wait(lock, [this] { return pending_ || quit_; });
                if (!pending_) return;
                task = std::move(task_);
                pending_ = false;
            }
            task();  // an exception is stored in the task's future
        }
    }
    std::mutex m_;
    std::condition_variable cv_;
    std::packaged_task<void()> task_;
    bool pending_ = false, quit_ = false;
    std::thread thread_;  // last: started once the members above exist
};

GpuWorker& gpu_worker() {
    thread_local GpuWorker w;
    return w;
}

}  // namespace

namespace testing {
void fail_next_call(Fail side) { g_armed.store(static_cast<int>(side)); }
void run_sides_in_turn(bool on) { g_in_turn.store(on); }
void force_issuer(Issuer who) { g_issuer.store(static_cast<int>(who)); }
}  // namespace testing

SideTimes last_side_times() { return t_last_sides; }

namespace detail {

testing::Fail take_injected_failure() {
    return static_cast<testing::Fail>(g_armed.exchange(static_cast<int>(testing::Fail::none)));
}

ShareState::ShareState() {
    for (auto& st : s) WB_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    WB_CUDA(cudaEventCreateWithFlags(&whole_ready, cudaEventDisableTiming));
    for (auto& e : done) WB_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming | cudaEventBlockingSync));
    for (auto& e : kernel_done) WB_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
}

ShareState::~ShareState() {
    for (auto& st : s)
        if (st) cudaStreamDestroy(st);
    if (whole_ready) cudaEventDestroy(whole_ready);
    for (auto& e : done)
        if (e) cudaEventDestroy(e);
    for (auto& e : kernel_done)
        if (e) cudaEventDestroy(e);
    for (auto& e : marks_) cudaEventDestroy(e);
}

cudaEvent_t ShareState::mark(std::size_t i) {
    while (marks_.size() <= i) {
        cudaEvent_t e = nullptr;
        WB_CUDA(cudaEventCreate(&e));  // with timing: a balanced call reads the chunks' times
        marks_.push_back(e);
    }
    return marks_[i];
}

void ShareState::drain() noexcept {
    for (auto& st : s) cudaStreamSynchronize(st);
}

void ShareState::finish(bool sleep) {
    if (!sleep) {
        for (auto& st : s) WB_CUDA(cudaStreamSynchronize(st));
        return;
    }
    for (int i = 0; i < 2; ++i) WB_CUDA(cudaEventRecord(done[i], s[i]));
    for (auto& e : done) WB_CUDA(cudaEventSynchronize(e));
}

void* PinnedScratch::get(std::size_t bytes) {
    if (bytes > bytes_) {
        if (p_) WB_CUDA(cudaFreeHost(p_));
        p_ = nullptr;
        bytes_ = 0;
        WB_CUDA(cudaMallocHost(&p_, bytes));
        bytes_ = bytes;
    }
    return p_;
}

ShareState& share_state() {
    thread_local std::map<int, std::unique_ptr<ShareState>> states;
    int dev = 0;
    WB_CUDA(cudaGetDevice(&dev));
    auto& p = states[dev];
    if (!p) p = std::make_unique<ShareState>();
    return *p;
}

void fail_injected_gpu(ShareState& sp, const char* fn) {
    sp.drain();
    throw std::runtime_error(std::string(fn) + ": injected GPU failure (test hook), after the first chunk was issued");
}

void whole_done(ShareState& sp) {
    WB_CUDA(cudaEventRecord(sp.whole_ready, sp.s[0]));
    WB_CUDA(cudaStreamWaitEvent(sp.s[1], sp.whole_ready, 0));
}

void copy_whole(ShareState& sp, void* dst, const void* src, std::size_t bytes) {
    if (bytes > 0) WB_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, sp.s[0]));
    whole_done(sp);
}

void run_gpu_chunks(const GpuCall& call, const char* fn, int g, int chunk, const std::function<void()>& prologue,
                    const std::function<void(int, int, int)>& issue) {
    ShareState& sp = *call.sp;
    try {
        prologue();
        for (int r0 = 0, i = 0; r0 < g; r0 += chunk, ++i) {
            issue(r0, std::min(chunk, g - r0), i & 1);
            if (i == 0 && call.inject_failure) fail_injected_gpu(sp, fn);
        }
    } catch (...) {
        sp.drain();  // nothing still touches the caller's buffers when the error surfaces
        throw;
    }
}

void wait_streams(ShareState& sp, bool sleep) {
    try {
        sp.finish(sleep);
    } catch (...) {
        sp.drain();
        throw;
    }
}

void check_share(const char* fn, const char* part_name, int gpu_part, const char* total_name, int total,
                 const char* chunk_name, int chunk) {
    using launch_checks::num;
    if (gpu_part < 0 || gpu_part > total)
        launch_checks::fail(fn, std::string(part_name) + " (" + num(gpu_part) + ") must be in [0, " + total_name + "] ([0, " +
                                    num(total) + "])");
    if (chunk < 1) launch_checks::fail(fn, std::string(chunk_name) + " (" + num(chunk) + ") must be >= 1");
}

bool page_locked(std::initializer_list<const void*> ptrs) {
    for (const void* p : ptrs) {
        if (!p) continue;
        cudaPointerAttributes a{};
        if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
            cudaGetLastError();  // not a pointer CUDA knows: ordinary memory
            return false;
        }
        if (a.type != cudaMemoryTypeHost) return false;
    }
    return true;
}

bool issue_on_caller(std::initializer_list<const void*> gpu_host_arrays) {
    const auto issuer = static_cast<testing::Issuer>(g_issuer.load());
    return issuer == testing::Issuer::automatic ? page_locked(gpu_host_arrays) : issuer == testing::Issuer::caller;
}

SideTimes& side_times_slot() { return t_last_sides; }

bool sides_in_turn() { return g_in_turn.load(); }

//! [hybrid-run]
void run(const char* fn, bool cpu_work, bool gpu_work, std::initializer_list<const void*> gpu_host_arrays,
         const std::function<void()>& cpu, const std::function<void(const GpuCall&)>& gpu,
         const std::function<void()>& after) {
    const testing::Fail fail = take_injected_failure();
    auto cpu_side = [&] {
        if (fail == testing::Fail::cpu)
            throw std::runtime_error(std::string(fn) + ": injected CPU failure (test hook), before its share ran");
        cpu();
    };
    const Clock::time_point start = Clock::now();
    SideTimes& sides = t_last_sides;
    sides = SideTimes{};
    auto then_after = [&] {  // once both sides have stopped without error, inside the call's time
        if (!after) return;
        after();
        sides.total_ms = ms_between(start, Clock::now());
    };
    if (!gpu_work) {
        if (cpu_work) cpu_side();
        sides.cpu_ms = sides.total_ms = ms_between(start, Clock::now());
        return then_after();
    }
    ShareState& sp = share_state();  // the streams and buffers the GPU side issues on, and run() waits on
    const GpuCall call{&sp, fail == testing::Fail::gpu || fail == testing::Fail::gpu_late};
    if (!cpu_work) {  // the GPU alone, issued and waited for here (spinning: no CPU share wants the core)
        gpu(call);
        sides.gpu_issued_ms = ms_between(start, Clock::now());
        wait_streams(sp, false);
        sides.gpu_ms = sides.total_ms = ms_between(start, Clock::now());
        return then_after();
    }
    std::exception_ptr cpu_error, gpu_error;
    Clock::time_point gpu_began = start, gpu_issued = start, gpu_end = start;
    std::future<void> gpu_done;
    const bool on_caller = issue_on_caller(gpu_host_arrays);
    if (on_caller) {
        gpu(call);  // every GPU step issued; on an error the streams are drained and the CPU's share never starts
        gpu_issued = Clock::now();
    } else {
        int dev = 0;
        WB_CUDA(cudaGetDevice(&dev));
        gpu_done = gpu_worker().submit([&, dev] {
            gpu_began = Clock::now();
            WB_CUDA(cudaSetDevice(dev));  // the worker's current device is the caller's
            gpu(call);
            gpu_issued = Clock::now();
            wait_streams(sp, true);
            gpu_end = Clock::now();
        });
    }
    auto wait_gpu = [&] {  // both sides have stopped before anything is reported
        try {
            if (on_caller) {
                wait_streams(sp, true);  // asleep on the events
                gpu_end = Clock::now();
            } else {
                gpu_done.get();
            }
        } catch (...) {
            gpu_error = std::current_exception();
        }
    };
    const bool in_turn = g_in_turn.load();
    if (in_turn) wait_gpu();  // diagnosis: the GPU side alone first
    const Clock::time_point cpu_start = Clock::now();
    try {
        cpu_side();
    } catch (...) {
        cpu_error = std::current_exception();
    }
    sides.cpu_ms = ms_between(cpu_start, Clock::now());
    if (!in_turn) wait_gpu();  // issued here, its end is seen only after the CPU's share
    sides.gpu_ms = ms_between(start, gpu_end);
    sides.gpu_began_ms = on_caller ? 0 : ms_between(start, gpu_began);
    sides.gpu_issued_ms = ms_between(start, gpu_issued);
    sides.issued_on_caller = on_caller;
    if (gpu_error) std::rethrow_exception(gpu_error);
    if (cpu_error) std::rethrow_exception(cpu_error);
    sides.total_ms = ms_between(start, Clock::now());
    then_after();
}
//! [hybrid-run]

}  // namespace detail

double measure_hybrid_overhead_ms() {
    const auto empty = [] {
        detail::run("hybrid overhead", true, true, {}, [] {}, [](const detail::GpuCall&) {});  // run() waits
    };
    std::vector<double> t;
    for (int i = 0; i < 201; ++i) {  // the first calls create the streams
        const auto t0 = std::chrono::steady_clock::now();
        empty();
        if (i >= 10) t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

}  // namespace wb::hybrid
