/// \file buffer.hpp
/// \brief RAII owners of device and pinned host memory. Copies are explicit (upload/download),
///        moves transfer ownership, destruction frees; errors throw through WB_CUDA.
#pragma once

#include "check.hpp"

#include <cstddef>
#include <utility>
#include <vector>

namespace wb {

/// An array of `n` elements of T in device memory (cudaMalloc, never managed memory).
template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t n) : n_(n) {
        if (n_ > 0) WB_CUDA(cudaMalloc(reinterpret_cast<void**>(&p_), n_ * sizeof(T)));
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

}  // namespace wb
