/// \file launch_checks.hpp
/// \brief Host-side checks every op's launchers share (architecture §3): argument errors that
///        name the function, argument, value and rule; grid sizes checked against the hardware
///        limits; launch tunables checked against their rules; the SM count the default launches
///        are derived for. Each op's `<op>_detail` namespace brings these in by `using`.
#pragma once

#include "launch_limits.hpp"

#include <cstddef>
#include <string>

namespace wb::launch_checks {

/// Throws std::invalid_argument "fn: what".
[[noreturn]] void fail(const char* fn, const std::string& what);

/// `v` as text (for messages).
inline std::string num(long long v) { return std::to_string(v); }

inline long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

/// The largest extent of a dimension the kernels index with 32-bit ints (GEMV m, n; GEMM m, n, k;
/// SYMV n; conv2d rows, cols): kMaxInt32 - 2^16 = 2147418111. An index past the last row or column
/// stays an int where the extent is at most kMaxInt32 less the most that any step adds beyond it: a
/// block's tile (at most 1024 rows or columns in any step), a conv2d window (a tile and the
/// filter's halo: under 2048 columns), whole steps of a split reduction (a tuned GEMV T step:
/// at most 2048 rows), or a grid stride over gridDim.y (at most kMaxGridYZ: GEMM's C = beta C, the cuFFT
/// peer's padding), the largest. GEMV's explicit splits can reach further; its launchers bound
/// them (gemv_split_reduction, tuned_gemv_n_max_split in gemv_rules.hpp).
constexpr int kMaxIndexedExtent = kMaxInt32 - (kMaxGridYZ + 1);

/// Throws std::invalid_argument "fn: name (value) must be <= 2147418111 (what are indexed with
/// 32-bit ints: a block or grid stride past the last one would overflow)" above kMaxIndexedExtent.
void require_indexed(const char* fn, const char* name, int value, const char* what);

/// The largest pitch cudaMemcpy2D takes, in bytes: cudaDevAttrMaxPitch of the current device
/// (2^31 - 1 on current GPUs; that without a GPU). A larger one fails the copy ("invalid pitch
/// argument"): the peers that copy with an operand's pitch check it first.
long long max_copy_pitch();

/// Throws std::invalid_argument "fn: name (pitch) x elem_bytes bytes (pitch x elem_bytes) must be
/// <= limit (why)" where the pitch in bytes passes `limit`.
void require_pitch_bytes(const char* fn, const char* name, int pitch, std::size_t elem_bytes, long long limit,
                         const char* why);

/// Grid size in one dimension, checked against the hardware limit (kMaxGridX in x, kMaxGridYZ in y, z;
/// launch_limits.hpp):
/// throws std::invalid_argument "fn: problem too large for one launch" above it.
unsigned grid_dim(long long blocks, long long limit, const char* fn);

/// Checks a launch field against its rule; throws std::invalid_argument naming both, e.g.
/// "tuned::gemm: launch.tile_m (96) must be one of the instantiated tiles (128, 64)".
void require_launch(bool ok, const char* fn, const char* field, int value, const std::string& rule);

/// A launch's text, e.g. "nb=64 Q=4 block=64x4": the fields a launch sets, in order, joined by
/// spaces; "default" when it sets none (every tunable 0: the step's default). Each op's
/// `Launch::str()` is a chain of `add` calls, so the CSV's launch column reads the same for all ops.
class LaunchText {
public:
    /// Appends `text` when `set`.
    LaunchText& add(bool set, const std::string& text) {
        if (set) s_ += (s_.empty() ? "" : " ") + text;
        return *this;
    }
    std::string str() const { return s_.empty() ? "default" : s_; }

private:
    std::string s_;
};

/// "64x4", "128x128x32": sizes joined by 'x'.
inline std::string dims(long long a, long long b) { return num(a) + 'x' + num(b); }
inline std::string dims(long long a, long long b, long long c) { return dims(a, b) + 'x' + num(c); }

/// A device attribute (a cudaDeviceAttr, as int) of the current device, read once per host
/// thread, device and attribute; `no_gpu` where there is no GPU (the chapters' predict-only mode).
int device_attribute(int attribute, int no_gpu);

/// SMs of the current device (cached per host thread and device); without a GPU (the chapters'
/// predict-only mode) 132, the h200 preset's, the device the predictions are printed for.
int sm_count();
/// L2 bytes of the current device (cached likewise); without a GPU 50 MiB, the H100's and H200's.
long long l2_bytes();
/// The current device's SM clock in Hz (its attribute, cached likewise); without a GPU 1.98 GHz,
/// the h200 preset's.
double sm_hz();
/// The current device's theoretical DRAM bandwidth in bytes per second, 2 x memory clock x bus
/// width (its attributes, cached likewise); without a GPU the h200 preset's (3201 MHz, 6144 bits).
double dram_bytes_per_second();

}  // namespace wb::launch_checks
