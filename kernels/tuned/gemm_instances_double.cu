/// \file tuned/gemm_instances_double.cu
/// \brief The tuned GEMM's double kernels.
///        One translation unit per group of configurations, so that their kernels compile in
///        parallel and an edit to one group rebuilds only it (gemm_config.hpp lists them all).
#include "tuned/gemm_dispatch.cuh"

namespace wb::tuned::gemm_impl {

template void run_config<double, kDouble128x128>(const GemmArgs<double>&, int, cudaStream_t, const char*);
template int resident_blocks<double, kDouble128x128>(bool, bool, bool, bool);
template void run_config<double, kDouble64x64>(const GemmArgs<double>&, int, cudaStream_t, const char*);
template int resident_blocks<double, kDouble64x64>(bool, bool, bool, bool);
template void run_config<double, kDouble128x16>(const GemmArgs<double>&, int, cudaStream_t, const char*);
template int resident_blocks<double, kDouble128x16>(bool, bool, bool, bool);
template void run_config<double, kDouble16x128>(const GemmArgs<double>&, int, cudaStream_t, const char*);
template int resident_blocks<double, kDouble16x128>(bool, bool, bool, bool);

}  // namespace wb::tuned::gemm_impl
