/// \file tuned/gemm_instances_float.cu
/// \brief The tuned GEMM's float kernels for C of every width: 256 x 128, 128 x 128, 64 x 64 tiles.
///        One translation unit per group of configurations, so that their kernels compile in
///        parallel and an edit to one group rebuilds only it (gemm_config.hpp lists them all).
#include "tuned/gemm_dispatch.cuh"

namespace wb::tuned::gemm_impl {

template void run_config<float, kFloat256x128>(const GemmArgs<float>&, int, cudaStream_t, const char*);
template int resident_blocks<float, kFloat256x128>(bool, bool, bool, bool);
template void run_config<float, kFloat128x128>(const GemmArgs<float>&, int, cudaStream_t, const char*);
template int resident_blocks<float, kFloat128x128>(bool, bool, bool, bool);
template void run_config<float, kFloat64x64>(const GemmArgs<float>&, int, cudaStream_t, const char*);
template int resident_blocks<float, kFloat64x64>(bool, bool, bool, bool);

}  // namespace wb::tuned::gemm_impl
