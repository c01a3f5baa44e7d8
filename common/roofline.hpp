/// \file roofline.hpp
/// \brief Useful work of each computation, defined once (architecture §5): the bytes a perfect kernel
///        must move and the flops it must do. GB/s and GFLOP/s in every table divide these.
#pragma once

#include <cstddef>

namespace wb::roofline {

/// GEMV: size(T) (m n + len(x) + len(y) [+ len(y) again when beta != 0]).
double gemv_bytes(bool trans, long long m, long long n, std::size_t elem, bool beta_nonzero);
double gemv_flops(long long m, long long n);   ///< 2 m n
double gemm_flops(long long m, long long n, long long k);  ///< 2 m n k
double symv_bytes(long long n, std::size_t elem);          ///< size(T)(n(n+1)/2 + 3n)
/// Convolution of a rows x cols image with an FS x FS filter: elem (2 rows cols + FS^2) bytes
/// (image in, image out, filter) and 2 rows cols FS^2 flops.
double conv_bytes(long long rows, long long cols, int fs, std::size_t elem);
double conv_flops(long long rows, long long cols, int fs);

/// GB/s from bytes and milliseconds.
inline double gbs(double bytes, double ms) { return bytes / (ms * 1e6); }
inline double gflops(double flops, double ms) { return flops / (ms * 1e6); }

}  // namespace wb::roofline
