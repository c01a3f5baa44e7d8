/// \file buffer.hpp
/// \brief RAII owners of device and pinned host memory. Copies are explicit (upload/download),
///        moves transfer ownership, destruction frees; errors throw through WB_CUDA.
#pragma once

#include "check.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace wb {

/// cudaMalloc that says how much it asked for when it fails: throws CudaError (a
/// std::runtime_error) "<what>: cannot allocate N bytes of device memory (M bytes free): <error>".
/// The failed allocation's error is cleared (cudaGetLastError), so the stream, earlier results
/// and the next launch's error check are not affected by it.
inline void* device_alloc_or_throw(std::size_t bytes, const char* what) {
    void* p = nullptr;
    const cudaError_t err = cudaMalloc(&p, bytes);
    if (err == cudaSuccess) return p;
    (void)cudaGetLastError();  // an allocation failure is not sticky: clear it for the next check
    std::size_t free_b = 0, total_b = 0;
    const bool known = cudaMemGetInfo(&free_b, &total_b) == cudaSuccess;
    (void)cudaGetLastError();
    throw CudaError(std::string(what) + ": cannot allocate " + std::to_string(bytes) + " bytes of device memory (" +
                    (known ? std::to_string(free_b) + " bytes free" : std::string("free memory unknown")) +
                    "): " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

/// An array of `n` elements of T in device memory (cudaMalloc, never managed memory).
template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t n) : n_(n) {
        if (n_ > 0) p_ = static_cast<T*>(device_alloc_or_throw(n_ * sizeof(T), "DeviceBuffer"));
    }
    explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
    ~DeviceBuffer() {
        if (p_) cudaFree(p_);  // never throw from a destructor
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        std::swap(p_, o.p_);
        std::swap(n_, o.n_);
        return *this;
    }

    T* data() { return p_; }
    const T* data() const { return p_; }
    std::size_t size() const { return n_; }
    std::size_t bytes() const { return n_ * sizeof(T); }

    /// Copy host -> device; `host.size()` must not exceed size().
    void upload(const std::vector<T>& host) {
        if (host.size() > n_) throw std::invalid_argument("DeviceBuffer::upload: host size exceeds buffer");
        if (!host.empty()) WB_CUDA(cudaMemcpy(p_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    /// Copy device -> host into a vector of size().
    std::vector<T> download() const {
        std::vector<T> host(n_);
        if (n_ > 0) WB_CUDA(cudaMemcpy(host.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
        return host;
    }
    /// Fill every byte with `byte` (0xFF makes every float/double a NaN: the poison value).
    void fill_bytes(int byte) {
        if (n_ > 0) WB_CUDA(cudaMemset(p_, byte, n_ * sizeof(T)));
    }

private:
    T* p_ = nullptr;
    std::size_t n_ = 0;
};

/// Page-locked host memory (cudaMallocHost), for transfers at full link speed.
template <class T>
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    explicit PinnedBuffer(std::size_t n) : n_(n) {
        if (n_ > 0) WB_CUDA(cudaMallocHost(reinterpret_cast<void**>(&p_), n_ * sizeof(T)));
    }
    ~PinnedBuffer() {
        if (p_) cudaFreeHost(p_);
    }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    PinnedBuffer(PinnedBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
    PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
        std::swap(p_, o.p_);
        std::swap(n_, o.n_);
        return *this;
    }
    T* data() { return p_; }
    const T* data() const { return p_; }
    std::size_t size() const { return n_; }
    T& operator[](std::size_t i) { return p_[i]; }

private:
    T* p_ = nullptr;
    std::size_t n_ = 0;
};

/// A launcher's workspace: one device allocation that only grows, reused call after call. It is
/// never freed (it lives as long as the process; the driver releases it with the context at
/// exit, where a cudaFree from a static destructor could run after the driver has shut down).
/// Growing frees the old allocation: cudaFree waits for the work in flight that may use it.
class GrowOnlyBuffer {
public:
    /// At least `bytes` of device memory; `zero_when_grown`: a new allocation is zero-filled (for
    /// workspaces whose unused parts may be read, so that initcheck sees nothing uninitialized).
    void* get(std::size_t bytes, bool zero_when_grown = false) {
        if (bytes > bytes_) {
            if (p_) WB_CUDA(cudaFree(p_));
            p_ = nullptr;
            bytes_ = 0;
            p_ = device_alloc_or_throw(bytes, "launcher workspace");
            if (zero_when_grown) {
                // cudaMemset runs on the legacy default stream, which a non-blocking stream does not
                // wait for: finish it before a launch on any stream reads the zeros (growth is rare).
                WB_CUDA(cudaMemset(p_, 0, bytes));
                WB_CUDA(cudaDeviceSynchronize());
            }
            bytes_ = bytes;
        }
        return p_;
    }

private:
    void* p_ = nullptr;
    std::size_t bytes_ = 0;
};

/// The calling host thread's GrowOnlyBuffer for `Tag` on the current device, for launchers that
/// return only when their work is done (CG: it reports the iterations): one thread's calls never
/// overlap on the GPU. Each launcher that needs a workspace names its own tag type, so workspaces
/// of different launchers never alias.
template <class Tag>
GrowOnlyBuffer& workspace_of_current_device() {
    thread_local std::map<int, GrowOnlyBuffer> per_device;
    int dev = 0;
    WB_CUDA(cudaGetDevice(&dev));
    return per_device[dev];
}

/// The calling host thread's GrowOnlyBuffer for `Tag` on the current device and stream `s`, for
/// asynchronous launchers (GEMV's and SYMV's partials, GEMM's split k): two calls on two streams
/// may run at the same time and must not share a workspace, while calls on one stream run in
/// order and can. (A stream destroyed with work still queued and a new one that gets the same
/// handle would share: destroy a stream only after its work is done, or synchronize.)
template <class Tag>
GrowOnlyBuffer& workspace_of_current_device(cudaStream_t s) {
    thread_local std::map<std::pair<int, cudaStream_t>, GrowOnlyBuffer> per_device_stream;
    int dev = 0;
    WB_CUDA(cudaGetDevice(&dev));
    return per_device_stream[{dev, s}];
}

}  // namespace wb
