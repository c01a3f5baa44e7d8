/// \file host_array.hpp
/// \brief Host arrays for the CPU peers' operands: n elements from an allocator (page-locked where
///        a GPU copies them, chapter 7) or ordinary memory, with the BLAS tail after them
///        (cpu_peers.hpp: kBlasTailBytes). The calibration (peer_rates.cpp) and chapter 7's rows
///        (chapters/ch07_split/split_measure.cpp) both hold their operands in them.
#pragma once

#include "cpu_peers.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

namespace wb::cpu {

/// Host memory of `bytes` bytes, freed when the pointer goes (an empty HostAlloc: ordinary memory).
/// Chapter 7's rows work on page-locked memory where a GPU takes part, and the calibration then
/// measures on the same kind.
using HostAlloc = std::function<std::shared_ptr<void>(std::size_t bytes)>;

/// n elements of T from `alloc` (ordinary memory where it is empty), then the BLAS tail. The n
/// elements are not initialized: the caller fills them, on the threads that will read them (the
/// pages land near those threads); the tail is zeroed (a kernel that reads past the matrix reads
/// defined values, and never uses them).
template <class T>
class HostArray {
public:
    /// Throws std::runtime_error, its message beginning with `who`, where `alloc` returns none.
    HostArray(std::size_t n, const HostAlloc& alloc, const std::string& who = "cpu::HostArray") : n_(n) {
        const std::size_t all = blas_host_elems<T>(n);
        keep_ = alloc ? alloc(all * sizeof(T)) : std::shared_ptr<void>(new T[all], [](void* p) { delete[] static_cast<T*>(p); });
        if (!keep_) throw std::runtime_error(who + ": no host memory for " + std::to_string(n) + " elements");
        std::fill(data() + n, data() + all, T(0));
    }
    T* data() const { return static_cast<T*>(keep_.get()); }
    std::size_t size() const { return n_; }

private:
    std::size_t n_;
    std::shared_ptr<void> keep_;
};

}  // namespace wb::cpu
