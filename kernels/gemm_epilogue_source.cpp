/// \file gemm_epilogue_source.cpp
/// \brief The GEMM model's source of chapter 5's measured epilogue bandwidths
///        (gemm_epilogue_source.hpp).
#include "gemm_epilogue_source.hpp"

namespace wb {
namespace {
GemmEpilogueSource g_source = nullptr;  // constant-initialized: safe to set from any static initializer
GemmMainLoopSource g_main = nullptr;
}  // namespace

void set_gemm_epilogue_source(GemmEpilogueSource source) { g_source = source; }

double gemm_epilogue_gbs(const GemmLaunch& l, int elem_bytes, bool live) {
    return g_source ? g_source(l, elem_bytes, live) : 0.0;
}

void set_gemm_main_loop_source(GemmMainLoopSource source) { g_main = source; }

GemmTimedCall gemm_main_loop_timed(const GemmLaunch& l, int elem_bytes, bool live) {
    return g_main ? g_main(l, elem_bytes, live) : GemmTimedCall{};
}

}  // namespace wb
