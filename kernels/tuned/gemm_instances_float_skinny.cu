/// \file tuned/gemm_instances_float_skinny.cu
/// \brief The tuned GEMM's float kernels for skinny C (up to 64 columns or rows).
///        One translation unit per group of configurations, so that their kernels compile in
///        parallel and an edit to one group rebuilds only it (gemm_config.hpp lists them all).
#include "tuned/gemm_dispatch.cuh"

namespace wb::tuned::gemm_impl {

template void run_config<float, kFloat128x64>(const GemmArgs<float>&, int, cudaStream_t, const char*);
template int resident_blocks<float, kFloat128x64>(bool, bool, bool, bool);
template void run_config<float, kFloat64x128>(const GemmArgs<float>&, int, cudaStream_t, const char*);
template int resident_blocks<float, kFloat64x128>(bool, bool, bool, bool);
template void run_config<float, kFloat128x16>(const GemmArgs<float>&, int, cudaStream_t, const char*);
template int resident_blocks<float, kFloat128x16>(bool, bool, bool, bool);
template void run_config<float, kFloat16x128>(const GemmArgs<float>&, int, cudaStream_t, const char*);
template int resident_blocks<float, kFloat16x128>(bool, bool, bool, bool);

}  // namespace wb::tuned::gemm_impl
