// overheads.cu — chapter 0, experiment 6: the fixed costs an iterative algorithm pays besides its
// bytes (declared in memory_lab.hpp): a kernel launched into a stream, a kernel inside a replayed
// CUDA graph, and a host round trip (a scalar copied to the host and waited for). The CG model
// (model/cg) charges exactly these per iteration; chapter 0 measures them so that its constants
// can be checked against this machine. Host clock (std::chrono::steady_clock) around whole
// batches: these costs are what the host sees, not what a kernel timer sees.
#include "memory_lab.hpp"

#include "lab/lab_internal.cuh"

#include <algorithm>
#include <chrono>
#include <vector>

namespace wb::lab {

namespace {

/// One thread increments a counter: the smallest kernel that proves it ran.
__global__ void count_kernel(int* counter) { *counter += 1; }

double now_us() {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Median of `batches` calls of `batch()`, each returning microseconds per repetition.
template <class F>
double median_of(int batches, F&& batch) {
    std::vector<double> t;
    for (int b = 0; b < batches; ++b) t.push_back(batch());
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

/// Owns what the experiment allocates (freed on every path, the graph included).
struct Resources {
    cudaStream_t s = nullptr;
    int* counter = nullptr;  ///< device
    int* host = nullptr;     ///< pinned
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    ~Resources() {
        if (exec) cudaGraphExecDestroy(exec);
        if (graph) cudaGraphDestroy(graph);
        if (host) cudaFreeHost(host);
        if (counter) cudaFree(counter);
        if (s) cudaStreamDestroy(s);
    }
};

}  // namespace

int overhead_reps(Scale s) { return s == Scale::full ? 20000 : s == Scale::quick ? 2000 : 200; }

OverheadTimes measure_overheads(int reps) {
    OverheadTimes o;
    o.reps = std::max(kGraphNodes, reps);
    const int graph_reps = o.reps / kGraphNodes;
    constexpr int kBatches = 5;
    Resources r;
    WB_CUDA(cudaStreamCreateWithFlags(&r.s, cudaStreamNonBlocking));
    WB_CUDA(cudaMalloc(&r.counter, sizeof(int)));
    WB_CUDA(cudaMallocHost(&r.host, sizeof(int)));
    WB_CUDA(cudaMemsetAsync(r.counter, 0, sizeof(int), r.s));
    long long expected = 0;

    // Warm-up: the first launches load the module and set up the stream.
    for (int i = 0; i < 100; ++i) count_kernel<<<1, 1, 0, r.s>>>(r.counter);
    expected += 100;
    WB_CUDA(cudaGetLastError());
    WB_CUDA(cudaStreamSynchronize(r.s));

    o.launch_us = median_of(kBatches, [&] {
        const double t0 = now_us();
        for (int i = 0; i < o.reps; ++i) count_kernel<<<1, 1, 0, r.s>>>(r.counter);
        WB_CUDA(cudaStreamSynchronize(r.s));
        return (now_us() - t0) / o.reps;
    });
    expected += static_cast<long long>(kBatches) * o.reps;

    const int sync_reps = std::max(1, o.reps / 10);  // each one waits: fewer of them
    o.launch_sync_us = median_of(kBatches, [&] {
        const double t0 = now_us();
        for (int i = 0; i < sync_reps; ++i) {
            count_kernel<<<1, 1, 0, r.s>>>(r.counter);
            WB_CUDA(cudaStreamSynchronize(r.s));
        }
        return (now_us() - t0) / sync_reps;
    });
    expected += static_cast<long long>(kBatches) * sync_reps;

    // A graph of kGraphNodes dependent kernels (a stream capture), replayed.
    WB_CUDA(cudaStreamBeginCapture(r.s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < kGraphNodes; ++i) count_kernel<<<1, 1, 0, r.s>>>(r.counter);
    WB_CUDA(cudaStreamEndCapture(r.s, &r.graph));
    WB_CUDA(cudaGraphInstantiate(&r.exec, r.graph, 0));
    WB_CUDA(cudaGraphLaunch(r.exec, r.s));  // warm-up (uploads the graph)
    WB_CUDA(cudaStreamSynchronize(r.s));
    expected += kGraphNodes;
    o.graph_node_us = median_of(kBatches, [&] {
        const double t0 = now_us();
        for (int i = 0; i < graph_reps; ++i) WB_CUDA(cudaGraphLaunch(r.exec, r.s));
        WB_CUDA(cudaStreamSynchronize(r.s));
        return (now_us() - t0) / (static_cast<double>(graph_reps) * kGraphNodes);
    });
    expected += static_cast<long long>(kBatches) * graph_reps * kGraphNodes;

    o.round_trip_us = median_of(kBatches, [&] {
        const double t0 = now_us();
        for (int i = 0; i < sync_reps; ++i) {
            count_kernel<<<1, 1, 0, r.s>>>(r.counter);
            WB_CUDA(cudaMemcpyAsync(r.host, r.counter, sizeof(int), cudaMemcpyDeviceToHost, r.s));
            WB_CUDA(cudaStreamSynchronize(r.s));
        }
        return (now_us() - t0) / sync_reps;
    });
    expected += static_cast<long long>(kBatches) * sync_reps;
    WB_CUDA(cudaGetLastError());

    // Every kernel ran exactly once: the counter says how many did.
    WB_CUDA(cudaMemcpyAsync(r.host, r.counter, sizeof(int), cudaMemcpyDeviceToHost, r.s));
    WB_CUDA(cudaStreamSynchronize(r.s));
    o.verified = static_cast<long long>(*r.host) == expected;
    return o;
}

}  // namespace wb::lab
