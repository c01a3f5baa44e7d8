// xt_tile_probe.cu — does cuBLASXt come nearer chapter 7's GEMM with a tile other than its default?
//
// Chapter 7 times the vendor's host-memory GEMM (cuBLASXt, kernels/cpu/xt_gemm.hpp) at its default
// tile (1024 x 1024 on the H200 machine) beside ours: about a millisecond per call at every n up to
// 1024, and 2 - 3x our better way at 2048 - 4096 (docs/notes/split.md, session 44). A user of the
// library would set its tile (cublasXtSetBlockDim). This probe times, in the same rounds
// (cpu::time_interleaved, the rule chapter 7's rows are timed by), C = A B on page-locked host
// memory at n = 256, 1024, 2048 and 4096, float and double: cuBLASXt at tiles of 256, 512, 1024,
// 2048 and 4096, and ours with its transfers (hybrid::gemm with every column on the GPU in one
// chunk: copy in, the tuned kernel, copy out). It prints each call's median batch (ms) and the best
// tile's time over ours.
//
// Build and run (needs a GPU and cuBLAS):
//   cmake --build build --target xt_tile_probe && build/bin/xt_tile_probe
#include "buffer.hpp"
#include "host_timing.hpp"
#include "hybrid_gemm.hpp"
#include "xt_gemm.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

namespace {

constexpr int kTiles[] = {256, 512, 1024, 2048, 4096};

/// A, B and C of one n x n product on page-locked memory (chapter 7's values: in [0.5, 1)).
template <class T>
struct Operands {
    wb::PinnedBuffer<T> buf;
    wb::GemmArgs<T> a;
    explicit Operands(int n) : buf(3 * static_cast<std::size_t>(n) * static_cast<std::size_t>(n)) {
        const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
        for (std::size_t i = 0; i < 3 * nn; ++i) buf.data()[i] = static_cast<T>(0.5 + static_cast<double>((i * 2654435761u) % 1021) / 2048.0);
        a = wb::GemmArgs<T>{wb::Op::N, wb::Op::N, n, n, n, T(1), buf.data(), n, buf.data() + nn, n, T(0), buf.data() + 2 * nn, n};
    }
};

template <class T>
void probe(int n, const char* type) {
    auto o = std::make_shared<Operands<T>>(n);
    std::vector<std::function<void()>> calls;
    calls.push_back([o, n] { wb::hybrid::gemm(o->a, n, n); });
    for (int tile : kTiles) calls.push_back([o, tile] { wb::xt::gemm(o->a, 0.0, tile); });
    wb::cpu::TimingPlan plan;
    plan.min_batches = 7;
    const std::vector<wb::cpu::CallTiming> t = wb::cpu::time_interleaved(calls, plan);
    double best = t[1].ms;
    std::printf("%-6s %5d  ours %9.4f | cuBLASXt by tile:", type, n, t[0].ms);
    for (std::size_t i = 1; i < t.size(); ++i) {
        std::printf(" %d %9.4f", kTiles[i - 1], t[i].ms);
        best = std::min(best, t[i].ms);
    }
    std::printf(" | ours / best tile %.3f\n", t[0].ms / best);
}

}  // namespace

int main() {
    std::printf("xt_tile_probe: median batch (ms), every call of a size timed in turn, page-locked host memory\n");
    for (int n : {256, 1024, 2048, 4096}) {
        probe<float>(n, "float");
        probe<double>(n, "double");
    }
    return 0;
}
