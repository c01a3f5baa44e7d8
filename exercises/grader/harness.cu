// The GPU side of the grader (harness.hpp). Each graded case lives in allocations with guard
// bands of NaN around A and of a second NaN pattern around B; shared memory is filled with NaN
// before every call, so a missing barrier reads NaN instead of last call's leftovers; the output
// is compared bit for bit (a transpose computes nothing), and B's guard bands and padding must
// come back untouched. Out-of-bounds reads therefore show up in the output without crashing,
// and out-of-bounds writes show up in the guards.
#include "harness.hpp"

#include "bench.hpp"
#include "buffer.hpp"
#include "check.hpp"
#include "device.hpp"
#include "random.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace wb::grade {
namespace {

__global__ void scrub_shared_kernel(int words) {
    extern __shared__ float smem[];
    const float nan = __int_as_float(0x7FFFFFFF);
    for (int i = threadIdx.x; i < words; i += blockDim.x) smem[i] = nan;
}

/// Fills the shared memory of every SM with NaN (two blocks per SM of the largest size).
void scrub_shared_memory(cudaStream_t stream) {
    static int bytes = -1, blocks = 0;
    if (bytes < 0) {
        int dev = 0, optin = 0, sms = 0;
        WB_CUDA(cudaGetDevice(&dev));
        WB_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
        WB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        WB_CUDA(cudaFuncSetAttribute(scrub_shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
        WB_CUDA(cudaFuncSetAttribute(scrub_shared_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
        bytes = optin;
        blocks = 2 * sms;
    }
    scrub_shared_kernel<<<blocks, 1024, bytes, stream>>>(bytes / 4);
    WB_CHECK_LAUNCH();
}

std::uint32_t bits(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

std::string hex(std::uint32_t u) {
    std::ostringstream os;
    os << "0x" << std::hex << u;
    return os.str();
}

/// Synchronizes; a failure here is a fault in the kernel, which poisons the context.
void sync_or_fatal(cudaStream_t stream, const std::string& what) {
    const cudaError_t e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess)
        throw FatalDeviceError(what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) +
                               "): the CUDA context is lost, no further case can run");
}

GridMode g_grid_mode = GridMode::as_written;


/// The submission's arguments for case `c` on device arrays A and B.
ex::TransposeArgs transpose_args(const GradedCase& c, const float* A, float* B) {
    ex::TransposeArgs args;
    args.rows = c.rows;
    args.cols = c.cols;
    args.A = A;
    args.lda = c.lda;
    args.B = B;
    args.ldb = c.ldb;
    return args;
}

/// Calls the submission's launcher and waits for its kernel. Returns "" when it returned and the
/// kernel did not fault, "the launcher threw: ..." when it threw on the host (graded "error");
/// throws FatalDeviceError when the device faulted (the context is lost: grading stops).
std::string call_submission(ex::TransposeFn fn, const ex::TransposeArgs& args, cudaStream_t stream) {
    sync_or_fatal(stream, "before the call");
    try {
        fn(args, stream);
    } catch (const FatalDeviceError&) {
        throw;
    } catch (const std::exception& e) {
        if (cudaDeviceSynchronize() != cudaSuccess)
            throw FatalDeviceError(std::string("the launcher threw after a device fault: ") + e.what());
        return std::string("the launcher threw: ") + e.what();
    }
    sync_or_fatal(stream, "the transpose kernel faulted");
    return "";
}

}  // namespace

unsigned graded_grid_for(long long work, long long per_block) {
    const unsigned blocks = ex::grid_for(work, per_block);
    return g_grid_mode == GridMode::looped ? static_cast<unsigned>(looped_grid(blocks)) : blocks;
}

GridModeScope::GridModeScope(GridMode m) : prev_(g_grid_mode) { g_grid_mode = m; }
GridModeScope::~GridModeScope() { g_grid_mode = prev_; }

std::string device_description() {
    int dev = 0;
    WB_CUDA(cudaGetDevice(&dev));
    const DeviceInfo info = query_device(dev);
    return info.name + " (" + std::to_string(info.sm_count) + " SMs)";
}

CaseResult run_graded_case(ex::TransposeFn fn, const GradedCase& c, std::uint64_t seed, int repeats) {
    CaseResult out;
    out.c = c;
    const std::size_t a_elems = std::size_t(c.rows - 1) * c.lda + c.cols;  // rows x lda, last row unpadded
    const std::size_t b_elems = std::size_t(c.cols - 1) * c.ldb + c.rows;
    // Guards: wide enough that a tile-sized overrun (up to 64 rows of either matrix) stays in them.
    const std::size_t guard = 64 * std::size_t(std::max(c.lda, c.ldb)) + 4096;

    // A's image: guard | rows x lda (padding = guard pattern) | guard.
    const std::vector<float> values = random_vector<float>(std::size_t(c.rows) * c.cols, seed);
    std::vector<std::uint32_t> a_img(guard + a_elems + guard, kGuardA);
    for (int r = 0; r < c.rows; ++r)
        for (int col = 0; col < c.cols; ++col)
            a_img[guard + std::size_t(r) * c.lda + col] = bits(values[std::size_t(r) * c.cols + col]);
    // B's image: guard | cols x ldb (elements poisoned, padding = guard pattern) | guard.
    std::vector<std::uint32_t> b_img(guard + b_elems + guard, kGuardB);
    for (int r = 0; r < c.cols; ++r)
        for (int col = 0; col < c.rows; ++col) b_img[guard + std::size_t(r) * c.ldb + col] = kPoisonB;

    DeviceBuffer<std::uint32_t> dA(a_img.size()), dB(b_img.size());
    dA.upload(a_img);
    cudaStream_t stream = nullptr;
    WB_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    struct StreamGuard {
        cudaStream_t s;
        ~StreamGuard() { cudaStreamDestroy(s); }
    } sg{stream};

    const ex::TransposeArgs args = transpose_args(c, reinterpret_cast<const float*>(dA.data() + guard),
                                                  reinterpret_cast<float*>(dB.data() + guard));

    for (int rep = 0; rep < repeats; ++rep) {
        const GridMode mode = rep % 2 == 1 ? GridMode::looped : GridMode::as_written;
        const GridModeScope grid_scope(mode);
        dB.upload(b_img);
        scrub_shared_memory(stream);
        if (std::string err = call_submission(fn, args, stream); !err.empty()) {
            out.result = "error";
            out.msg = err;
            return out;
        }
        const auto got = dB.download();
        const auto a_after = dA.download();

        long long unwritten = 0, oob_read = 0, wrong = 0, guard_hits = 0, pad_hits = 0;
        std::string first;
        auto note = [&first](const std::string& s) {
            if (first.empty()) first = s;
        };
        for (std::size_t i = 0; i < got.size(); ++i) {
            const bool in_body = i >= guard && i < guard + b_elems;
            const std::size_t k = i - guard;
            const bool element = in_body && int(k % c.ldb) < c.rows;
            if (!element) {
                if (got[i] != kGuardB) {
                    if (in_body) ++pad_hits; else ++guard_hits;
                    note(std::string(in_body ? "wrote into B's padding" : "wrote outside B") + " at offset " +
                         std::to_string(static_cast<long long>(i) - static_cast<long long>(guard)));
                }
                continue;
            }
            const std::size_t br = k / c.ldb, bc = k % c.ldb;  // B(br, bc) = A(bc, br)
            const std::uint32_t want = bits(values[bc * c.cols + br]);
            if (got[i] == want) continue;
            if (got[i] == kPoisonB) {
                ++unwritten;
                note("B(" + std::to_string(br) + "," + std::to_string(bc) + ") never written");
            } else if (got[i] == kGuardA) {
                ++oob_read;
                note("B(" + std::to_string(br) + "," + std::to_string(bc) + ") holds a value read outside A");
            } else {
                ++wrong;
                note("B(" + std::to_string(br) + "," + std::to_string(bc) + ") = " + hex(got[i]) + ", expected " +
                     hex(want));
            }
        }
        const bool a_changed = a_after != a_img;
        if (unwritten + oob_read + wrong + guard_hits + pad_hits == 0 && !a_changed) continue;
        std::ostringstream msg;
        msg << "run " << rep + 1 << (mode == GridMode::looped ? " (grid looped: each block walks several tiles):" : ":");
        if (wrong) msg << " " << wrong << " wrong values;";
        if (unwritten) msg << " " << unwritten << " elements never written;";
        if (oob_read) msg << " " << oob_read << " elements read outside A (out-of-bounds read);";
        if (pad_hits) msg << " " << pad_hits << " writes into B's padding;";
        if (guard_hits) msg << " " << guard_hits << " writes outside B (out-of-bounds write);";
        if (a_changed) msg << " A was modified;";
        msg << " first: " << (first.empty() ? std::string("A was modified") : first);
        out.result = "fail";
        out.msg = msg.str();
        return out;
    }
    out.result = "pass";
    return out;
}

CaseResult run_sanitized_case(ex::TransposeFn fn, const GradedCase& c, std::uint64_t seed, GridMode mode,
                              bool check_output) {
    CaseResult out;
    out.c = c;
    const GridModeScope grid_scope(mode);
    const std::size_t a_elems = std::size_t(c.rows - 1) * c.lda + c.cols;
    const std::size_t b_elems = std::size_t(c.cols - 1) * c.ldb + c.rows;
    const std::vector<float> values = random_vector<float>(std::size_t(c.rows) * c.cols, seed);
    // Raw allocations: nothing writes them but the copy of A's elements and the kernel.
    struct Raw {
        void* p = nullptr;
        ~Raw() { if (p) cudaFree(p); }
    } a, b;
    WB_CUDA(cudaMalloc(&a.p, a_elems * sizeof(float)));
    WB_CUDA(cudaMalloc(&b.p, b_elems * sizeof(float)));
    WB_CUDA(cudaMemcpy2D(a.p, std::size_t(c.lda) * sizeof(float), values.data(), std::size_t(c.cols) * sizeof(float),
                         std::size_t(c.cols) * sizeof(float), std::size_t(c.rows), cudaMemcpyHostToDevice));
    const ex::TransposeArgs args = transpose_args(c, static_cast<const float*>(a.p), static_cast<float*>(b.p));
    if (std::string err = call_submission(fn, args, nullptr); !err.empty()) {
        out.result = "error";
        out.msg = err;
        return out;
    }
    out.result = "pass";
    if (!check_output) return out;
    std::vector<float> got(std::size_t(c.cols) * c.rows);
    WB_CUDA(cudaMemcpy2D(got.data(), std::size_t(c.rows) * sizeof(float), b.p, std::size_t(c.ldb) * sizeof(float),
                         std::size_t(c.rows) * sizeof(float), std::size_t(c.cols), cudaMemcpyDeviceToHost));
    long long wrong = 0;
    std::string first;
    for (int br = 0; br < c.cols; ++br)
        for (int bc = 0; bc < c.rows; ++bc) {
            const std::uint32_t want = bits(values[std::size_t(bc) * c.cols + br]);
            const std::uint32_t have = bits(got[std::size_t(br) * c.rows + bc]);
            if (want == have) continue;
            if (wrong++ == 0)
                first = "B(" + std::to_string(br) + "," + std::to_string(bc) + ") = " + hex(have) + ", expected " + hex(want);
        }
    if (wrong) {
        out.result = "fail";
        out.msg = std::to_string(wrong) + " wrong or unwritten values; first: " + first;
    }
    return out;
}

ShapeTimes time_shape(const std::vector<ex::TransposeFn>& fns, const PerfShape& shape, int rounds) {
    const GridModeScope grid_scope(GridMode::as_written);
    const std::size_t n = std::size_t(shape.rows) * shape.cols;
    DeviceBuffer<float> A(random_vector<float>(n, 20261122u)), B(n);
    ex::TransposeArgs args;
    args.rows = shape.rows;
    args.cols = shape.cols;
    args.A = A.data();
    args.lda = shape.cols;
    args.B = B.data();
    args.ldb = shape.rows;

    BenchOptions opt;
    opt.warmup = 2;
    opt.min_reps = 10;
    opt.max_reps = 60;
    opt.max_seconds = 0.25;
    opt.flush_l2 = true;
    opt.working_set_bytes = 2 * n * sizeof(float);

    std::vector<std::vector<double>> samples(fns.size() + 1);
    for (int round = 0; round < rounds; ++round) {
        for (std::size_t k = 0; k < fns.size(); ++k) {
            if (!fns[k]) continue;
            const auto fn = fns[k];
            samples[k].push_back(benchmark([&](cudaStream_t s) { fn(args, s); }, opt).median_ms);
            sync_or_fatal(nullptr, "a timed call faulted");
        }
        samples[fns.size()].push_back(benchmark(
            [&](cudaStream_t s) { WB_CUDA(cudaMemcpyAsync(B.data(), A.data(), n * sizeof(float), cudaMemcpyDeviceToDevice, s)); },
            opt).median_ms);
    }
    ShapeTimes t;
    auto median = [](std::vector<double> v) {
        if (v.empty()) return 0.0;
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    for (std::size_t k = 0; k < fns.size(); ++k) {
        const double m = median(samples[k]);
        t.ms.push_back(m);
        if (m > 0 && samples[k].size() > 1) {
            const auto [lo, hi] = std::minmax_element(samples[k].begin(), samples[k].end());
            t.noise = std::max(t.noise, (*hi - *lo) / m);
        }
    }
    t.copy_ms = median(samples[fns.size()]);
    return t;
}

}  // namespace wb::grade
