// gemm.cpp — chapter 6's GEMM derivation (derive/derivation.hpp): White's MM procedure on the
// T10 (§4.5.2, Eq. 4.41); elsewhere the math units (rule 2), then the tile and the split of k
// that give the busiest SM the least time (rule 5: whole rounds of resident blocks, the split's
// second pass counted) at the rate the tile's reuse allows (rule 2), not faster than Little's law
// lets the bytes arrive (rule 1); ties to more reuse (rule 2), then less shared memory (rule 3).
#include "derive/derivation.hpp"
#include "derive/derive_internal.hpp"

#include "model/gemm.hpp"
#include "model/kernel_time.hpp"
#include "model/model_internal.hpp"
#include "model/occupancy.hpp"
#include "model/white.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace wb::derive {

using model::detail::ceil_div;
using model::detail::fmt;

namespace {

/// Warp schedulers per SM on every GPU since Maxwell (compute 5.0): each issues one warp
/// instruction per clock.
constexpr int kSchedulers = 4;
/// Resident warps per scheduler that keep the tensor-core kernel's mma pipe issuing.
constexpr int kWarpsPerScheduler = 2;
/// Registers a thread holds besides its accumulators and operand fragments: indices, the
/// pipeline's addresses, loop counters and predicates.
constexpr int kBaseRegs = 40;

/// White §4.5.2 on the T10 with n_ele = 16 and 32 registers per thread.
void white_mm(const DeviceProfile& dev, long long n, Derivation& d) {
    const model::WhiteLaunch l = model::derive_mm_launch_t10(n, dev);
    const int smem = 16 * l.dblk_x * 4;  // Eq. 4.8 with n_ele = 16
    const int threads = l.dblk_x * l.dblk_y;
    const int per_sm = model::white_active_blocks_per_sm(dev, threads, 32, smem);
    const auto g = model::grid_metrics(dev, l.dgrd_x * l.dgrd_y, threads, per_sm);
    d.params.push_back({"n_ele", 16, "most shared-memory reuse (rule 2, White §4.5.2)",
                        "16 elements of a row of A staged per thread, the most a half-warp's segment reuses"});
    d.params.push_back({"dBlk.x", l.dblk_x, "least shared memory per block (rule 3, White Eq. 4.8)",
                        "n_ele x dBlk.x x 4 B = " + std::to_string(smem) + " B; dBlk.x >= 8 (a 32-byte segment)"});
    d.params.push_back({"dBlk.y", l.dblk_y, "bus saturated, most partitions, fewest fragments (rules 1, 4, 5)",
                        std::to_string(g.active_threads) + " active threads >= 12800 (Eq. 4.14), " +
                            std::to_string(g.fragmented_blocks) + " fragmented blocks"});
    d.params.push_back({"dGrd.x", l.dgrd_x, "tiles across C (White Eq. 4.25c)",
                        std::to_string(n) + " / (dBlk.x dBlk.y)"});
    d.params.push_back({"dGrd.y", l.dgrd_y, "rows of C per n_ele (White Eq. 4.29)", std::to_string(n) + " / 16"});
    const double parts = detail::white_partitions(dev, l, threads, 32, smem);
    d.params.push_back({"partitions", static_cast<long long>(parts), "most partitions (rule 4, White Eq. 3.13)",
                        fmt("%.1f", parts) + " of " + std::to_string(dev.partitions) + " partitions touched", false});
}

/// One candidate kernel on this device: what the rules read off it.
struct Kernel {
    const GemmTile* t = nullptr;
    int threads = 0, warps = 0, regs = 0, smem = 0, per_sm = 0;
    long long tiles = 0;
    double smem_per_fma = 0;  ///< rule 2, the thread's reuse: shared-memory bytes per FMA
    double rate = 0;          ///< FMAs per second of one SM with enough warps (rule 2's bound)
    double stall = 0;         ///< the share of its time one warp of an FMA tile waits (see busy())
    std::string bound;        ///< which of rule 2's bounds sets `rate`
};

/// One (kernel, split) and the time the rules give it.
struct Choice {
    const Kernel* kern = nullptr;
    long long split = 1, blocks = 0, busiest = 0;  ///< slices of k, blocks, blocks on the busiest SM
    double seconds = 0, main = 0, memory = 0, second_pass = 0;
};

/// Registers per thread: the accumulators and two sets of operand fragments (the next k-step's
/// loaded while this one's FMAs run) in 4-byte registers, plus kBaseRegs; within the kernel's
/// launch bound (registers are allocated per warp in units of reg_alloc_unit).
int registers(const DeviceProfile& dev, const GemmTile& t, int threads, int elem) {
    const int acc = t.tensor_core ? t.thread_m * t.thread_n / dev.warp_size : t.thread_m * t.thread_n;
    // An mma's A fragment is 16 x 8 per 16 rows of the warp tile, B's 8 x 8 per 8 columns, shared by
    // the warp's 32 lanes; a thread tile loads its thread_m + thread_n operands itself.
    const int frag = t.tensor_core ? (t.thread_m / 16 * 4 + t.thread_n / 8 * 2) : t.thread_m + t.thread_n;
    const int want = (acc + 2 * frag) * elem / 4 + kBaseRegs;
    const int warps = std::max(1, threads / dev.warp_size);
    const int unit = std::max(1, dev.reg_alloc_unit);
    const long long per_warp = dev.regs_per_sm / (static_cast<long long>(std::max(1, t.min_blocks)) * warps);
    const int bound = static_cast<int>(per_warp / unit * unit / dev.warp_size);
    return std::max(1, std::min({want, bound, dev.max_regs_per_thread}));
}

}  // namespace

double gemm_op_pair_rate(bool transposed_a, bool op_b_t, double tn, double nt, double tt) {
    const double r = transposed_a ? (op_b_t && tt > 0 ? tt : tn) : op_b_t ? nt : 1.0;
    return r > 0 ? r : 1.0;
}

namespace {

/// Rule 2's bound on one SM's FMA rate for kernel `k`: the math units, the shared-memory banks
/// at the thread's reuse, the issue slots (the FMA instruction, its operand loads and the stage's
/// copies), and the L2 at the block's reuse.
void rate(const DeviceProfile& dev, const GemmCall& c, Kernel& k) {
    const GemmTile& t = *k.t;
    const double clock = dev.sm_clock_mhz * 1e6;
    const int elem = c.elem_bytes;
    const int lanes = t.tensor_core ? dev.fp64_mma_lanes_per_sm : elem == 8 ? dev.fp64_lanes_per_sm : dev.fp32_lanes_per_sm;
    const double math = static_cast<double>(lanes) * clock;
    k.smem_per_fma = static_cast<double>(elem) * (t.thread_m + t.thread_n) / (t.thread_m * t.thread_n);
    const double banks = dev.banks * 4.0 * clock / k.smem_per_fma;
    double issue = 1e300;
    if (!t.tensor_core) {
        // Per FMA a thread issues the FMA, (thread_m + thread_n) elements of 16-byte loads per
        // thread_m x thread_n FMAs, and its share of the stage's copies (16 bytes each, or one
        // element where the columns are not aligned).
        const double fmas = static_cast<double>(t.thread_m) * t.thread_n;
        const double loads = (t.thread_m + t.thread_n) * elem / 16.0;
        // Element copies: their issue slots, unless the kernel's element-copy rate was measured
        // (then applied below, with the 16-byte copies counted here).
        const bool elem_count = !c.aligned && !(t.element_rate > 0);
        const double copies = static_cast<double>(t.tile_m + t.tile_n) * elem / (elem_count ? elem : 16.0) / k.threads;
        // The loop's other instructions per k-step (counted in the kernels' SASS with 16-byte
        // copies, model::kTunedGemmLoopInstrPerKTile), those copies replaced by the ones above.
        const double copies16 = static_cast<double>(t.tile_m + t.tile_n) * elem / 16.0 / k.threads;
        const double others = std::max(0.0, model::kTunedGemmLoopInstrPerKTile / t.tile_k - copies16) + copies;
        issue = kSchedulers * dev.warp_size * clock / (1.0 + (loads + others) / fmas);
        // Each k-step a warp issues its fragment loads, then its FMAs, which wait for the last
        // load: a shared-memory load's latency after the loads' own issue slots.
        const double wait = model::kSharedLoadCycles + loads;
        k.stall = wait / (fmas + loads + wait);
    }
    const double l2 = model::kL2OverDram * dev.bandwidth_gbs * 1e9 / dev.sm_count * t.tile_m * t.tile_n /
                      ((t.tile_m + t.tile_n) * static_cast<double>(elem));
    k.rate = std::min({math, banks, issue, l2});
    k.bound = k.rate == math ? (t.tensor_core ? "the tensor cores" : "the FMA lanes")
              : k.rate == banks ? fmt("the banks at %.2f B per FMA", k.smem_per_fma)
              : k.rate == issue ? "the issue slots"
                                : "the L2";
    // The FMA tile's main loop as measured on its own timed call, over as counted there.
    if (!t.tensor_core && t.main_loop_scale > 0 && t.main_loop_scale != 1) {
        k.rate = std::min(k.rate * t.main_loop_scale, math);
        k.bound += fmt(", x %.2f its measured main loop", t.main_loop_scale);
    }
    // What the counts above do not see, measured on the device for this kernel: an operand stored
    // with k contiguous read transposed through registers (op(A) = A^T, op(B) = B: the rates of
    // TN, NT and TT over NN), and element copies of unaligned columns (the tensor cores' kernel
    // too: an 8-byte copy per element and its address math). Not faster than the FMA lanes.
    {
        double rel = gemm_op_pair_rate(c.transposed_a, c.op_b_t, t.transposed_a_rate, t.op_nt_rate, t.op_tt_rate);
        const char* ops = c.transposed_a ? (c.op_b_t ? "TT" : "op(A) = A^T") : c.op_b_t ? "NT" : "NN";
        const bool op_rel = rel != 1;
        // An op pair other than NN with element copies: its own measured rate where there is one
        // (the product of the two misses how a tile's transposing element paths add up).
        const double pair_el = !c.transposed_a ? (c.op_b_t ? t.nt_element_rate : 0)
                                               : (c.op_b_t ? t.tt_element_rate : t.tn_element_rate);
        if (!c.aligned && pair_el > 0) rel = pair_el;
        else if (!c.aligned && t.element_rate > 0) rel *= t.element_rate;
        if (rel != 1) {
            k.rate = std::min(k.rate * rel, math);
            k.bound += fmt(", x %.2f measured", rel) + " (" + (op_rel ? ops : "") + (op_rel && !c.aligned ? ", " : "") +
                       (!c.aligned ? "element copies" : "") + ")";
        }
    }
}

/// The share of rule 2's rate an SM reaches with `blocks` resident blocks of kernel `k`. An FMA
/// tile's warp waits for its fragments once per k-step (Kernel::stall of its time); a scheduler
/// idles only while all of its warps wait, so w warps per scheduler keep it issuing
/// 1 - stall^w of the clocks (the waits of independent warps overlap at random). The tensor
/// cores' kernel: a round of fewer than kWarpsPerScheduler warps per scheduler at that share.
double busy(const Kernel& k, long long blocks) {
    const double warps = static_cast<double>(blocks) * k.warps;
    if (k.t->tensor_core) return std::min(1.0, warps / (kSchedulers * kWarpsPerScheduler));
    return 1.0 - std::pow(k.stall, warps / kSchedulers);
}

/// Rule 5 for kernel `k` split into `split` slices: the busiest SM runs ceil(blocks / SMs) blocks
/// in rounds of at most per_sm; a round runs at the share of the rate its warps keep issuing
/// (busy()); a block's epilogue (its loads of C, its tile of C moved at the SM's share of the
/// bandwidth) hides only behind the other resident blocks' FMAs; one DRAM latency before the
/// first stage arrives. Rule 1: the device's bytes (A and B once, C once or, with beta != 0,
/// twice) arrive no faster than the resident blocks' loads in flight allow (Little's law). The
/// split's second pass reads the slices' partials and writes C. A split may take more than one
/// round of the kernel's slots: where the tiles alone leave SMs idle or unevenly loaded, slices
/// spread the busiest SM's k over all of them (and a last partial round runs at its warps'
/// share). Returns false where the split is not a launch: a slice without a whole k-tile, more
/// blocks than `most_blocks` (past one round of the most-resident candidate's slots every SM
/// already holds as many blocks as any kernel keeps: more slices only add partials), or partials
/// past the workspace.
bool time_of(const DeviceProfile& dev, const GemmCall& c, const Kernel& k, long long split, long long most_blocks,
             Choice& out) {
    const GemmTile& t = *k.t;
    const long long per = ceil_div(c.k, split);
    const long long kc = ceil_div(per, t.tile_k) * t.tile_k;
    if (ceil_div(c.k, kc) != split) return false;
    const long long sms = dev.sm_count;
    const long long blocks = k.tiles * split;
    const double bytes_c = static_cast<double>(c.m) * c.n * c.elem_bytes;
    if (split > 1 && (blocks > most_blocks || (c.max_workspace_bytes > 0 && split * bytes_c > c.max_workspace_bytes)))
        return false;
    const double bw = dev.bandwidth_gbs * 1e9, latency = dev.latency_ns * 1e-9;
    const long long busiest = ceil_div(blocks, sms);
    const double fmas = static_cast<double>(t.tile_m) * t.tile_n * kc;  // one block's, padding included
    // A block's epilogue: with beta != 0 (and no split, whose partials are only written) it loads
    // its tile of C in batches before the stores (a 4-row group per batch for the FMA kernels,
    // all of it at once for the tensor cores'), one DRAM latency each; then its tile of C moves
    // at the SM's share of the bandwidth. A round of j blocks hides the epilogues behind the
    // other blocks' FMAs where there are any: the round takes the longer of the j blocks' FMAs
    // at the shared rate and one block's own FMAs plus its epilogue. A block alone on its SM
    // (the 256 x 128 tile), or a short k, waits for all of it.
    // Its tile of C moves at the SM's share of the bandwidth, or of what the kernel's epilogue was
    // measured to move where that is less (its round trips overlap less than the share assumes).
    const double c_bw = t.epilogue_gbs > 0 ? std::min(bw, t.epilogue_gbs * 1e9) : bw;
    const bool loads_c = c.reads_c && split == 1;
    const double tile_bytes = static_cast<double>(t.tile_m) * t.tile_n * c.elem_bytes * (loads_c ? 2.0 : 1.0);
    const double batches = !loads_c ? 0.0 : t.tensor_core ? 1.0 : std::max(1, t.thread_m / 4);
    auto round_time = [&](long long j) {
        const double shared = static_cast<double>(j) * fmas / (k.rate * busy(k, j));
        const double own = fmas / (k.rate * busy(k, 1)) + batches * latency +
                           static_cast<double>(j) * tile_bytes / (c_bw / sms);
        return std::max(shared, own);
    };
    const long long full = busiest / k.per_sm, rest = busiest % k.per_sm;
    out.main = full * round_time(k.per_sm) + (rest > 0 ? round_time(rest) : 0) + latency;
    const double bytes = static_cast<double>(c.elem_bytes) * (c.m * c.k + c.k * c.n + c.m * c.n * (c.reads_c ? 2.0 : 1.0));
    const double in_flight = static_cast<double>(std::max(1, t.stages - 1)) * (t.tile_m + t.tile_n) * t.tile_k *
                             c.elem_bytes * std::min(blocks, sms * k.per_sm);
    out.memory = bytes / std::min(bw, in_flight / latency);
    out.second_pass = split > 1 ? 2.0 * split * bytes_c / bw + model::kLaunchOverheadUs * 1e-6 : 0;
    out.kern = &k;
    out.split = split;
    out.blocks = blocks;
    out.busiest = busiest;
    out.seconds = std::max(out.main, out.memory) + out.second_pass;
    return true;
}

/// The estimate's resolution (gemm_resolution): it leaves out effects of a few percent (the L2's
/// hit rate, the registers a launch bound takes from a thread tile, the order blocks finish in),
/// so times within 1/16 of the least count as equal and White's order decides among them: rule 2
/// (more reuse: fewer shared-memory bytes per FMA), then rule 3 (less shared memory per block),
/// then more blocks on the busiest SM up to the kernel's resident blocks (more warps to hide
/// each other's waits: the four-warp tiles measured 4-9% faster at split 6 than at split 4 on
/// 8192 x 64 x 2048, 3 blocks per SM against 2, and the counts put them within 1%), then the
/// fewest slices of k (fewer partials), then the time.
constexpr double kResolution = kGemmResolution;

/// Rule 2, then rule 3, then the busiest SM's blocks in flight, then fewer slices, then less time.
bool preferred(const Choice& a, const Choice& b) {
    if (a.kern->smem_per_fma != b.kern->smem_per_fma) return a.kern->smem_per_fma < b.kern->smem_per_fma;
    if (a.kern->smem != b.kern->smem) return a.kern->smem < b.kern->smem;
    const long long fa = std::min<long long>(a.busiest, a.kern->per_sm);
    const long long fb = std::min<long long>(b.busiest, b.kern->per_sm);
    if (fa != fb) return fa > fb;
    if (a.split != b.split) return a.split < b.split;
    return a.seconds < b.seconds;
}

/// The pick among `all`: the preferred of those within kResolution of the least time.
const Choice* pick(const std::vector<Choice>& all) {
    const Choice* fastest = nullptr;
    for (const Choice& c : all)
        if (!fastest || c.seconds < fastest->seconds) fastest = &c;
    const Choice* best = nullptr;
    for (const Choice& c : all)
        if (c.seconds <= fastest->seconds * (1 + kResolution) && (!best || preferred(c, *best))) best = &c;
    return best;
}

std::string us(double s) { return fmt("%.1f us", s * 1e6); }

std::string tile_name(const Kernel& k) {
    return std::to_string(k.t->tile_m) + " x " + std::to_string(k.t->tile_n) + (k.t->tensor_core ? " (tensor cores)" : "");
}

}  // namespace

std::vector<long long> gemm_split_candidates(long long most) {
    std::vector<long long> v;
    for (long long p = 1; p <= most; p *= 2) {
        v.push_back(p);
        if (3 * p <= most) v.push_back(3 * p);
    }
    std::sort(v.begin(), v.end());
    return v;
}

Derivation derive_gemm(const DeviceProfile& dev, long long m, long long n, long long k, int elem_bytes,
                       const std::vector<GemmTile>& tiles, long long max_split_k) {
    // Aligned, not a vector C, no workspace limit.
    return derive_gemm(dev, GemmCall{m, n, k, elem_bytes, true, false, max_split_k, 0}, tiles);
}

Derivation derive_gemm(const DeviceProfile& dev, const GemmCall& c, const std::vector<GemmTile>& tiles) {
    detail::check_shape("derive_gemm", c.elem_bytes, c.m, c.n, c.k);
    Derivation d;
    d.op = "gemm";
    d.shape = std::to_string(c.m) + " x " + std::to_string(c.n) + " x " + std::to_string(c.k) + " " +
              detail::precision(c.elem_bytes);
    if (c.elem_bytes == 4 && c.m == c.n && c.n == c.k && detail::white_case(dev, c.m, c.n)) {
        try {
            white_mm(dev, c.n, d);
            return d;
        } catch (const std::invalid_argument&) {
            // White's Step 1 cannot be met here (fewer SMs than the T10 hold 12800 threads of his
            // MM): the rules below, which ask for Little's law instead of his count.
            d.params.clear();
            d.params.push_back({"active threads", model::kWhiteMinActiveThreadsT10,
                                "saturate the bus (rule 1, White Eq. 4.14)",
                                "no launch of White's MM keeps this many threads active on " + dev.name +
                                    ": the tiles below instead",
                                false});
        }
    }
    if (c.vector_c) {
        d.params.push_back({"gemv", 2, "C is a vector: its bytes bound it (rule 1)",
                            "one FMA per element of the long operand: a tile of C at least 16 wide does 1/16 of "
                            "its FMAs there; the GEMV reads the operand at the read ceiling"});
        return d;
    }
    std::vector<GemmTile> cands = tiles;
    if (cands.empty()) {
        // 256 threads (16 x 16), k depth: each row of a stage's slab is two 32-byte sectors.
        const int tk = std::max(1, 2 * dev.segment_bytes / c.elem_bytes);
        for (int tm : {32, 64, 128, 256})
            for (int tn : {32, 64, 128, 256})
                if (tn <= tm) cands.push_back({tm, tn, tk, tm / 16, tn / 16, 2});
    }
    // Rule 2, the math units: the FP64 tensor cores where a candidate runs on them and they do
    // more FMAs per clock than the FP64 lanes; an mma also reads each fragment once per warp.
    const bool tensor = c.elem_bytes == 8 && dev.fp64_mma_lanes_per_sm > dev.fp64_lanes_per_sm &&
                        std::any_of(cands.begin(), cands.end(), [](const GemmTile& t) { return t.tensor_core; });
    std::vector<Kernel> kernels;
    for (const GemmTile& t : cands) {
        if (t.tensor_core && !tensor) continue;
        if (t.tile_m < 1 || t.tile_n < 1 || t.tile_k < 1 || t.thread_m < 1 || t.thread_n < 1) continue;
        Kernel kern;
        kern.t = &t;
        kern.threads = t.tensor_core ? dev.warp_size * (t.tile_m / t.thread_m) * (t.tile_n / t.thread_n)
                                     : t.tile_m * t.tile_n / (t.thread_m * t.thread_n);
        if (kern.threads < dev.warp_size || kern.threads > dev.max_threads_per_block) continue;
        kern.warps = kern.threads / dev.warp_size;
        kern.regs = registers(dev, t, kern.threads, c.elem_bytes);
        kern.smem = std::max(1, t.stages) * (t.tile_m + t.tile_n) * t.tile_k * c.elem_bytes;
        if (kern.smem > dev.smem_per_block_bytes) continue;
        kern.per_sm = t.blocks_per_sm > 0 ? t.blocks_per_sm
                                          : model::occupancy(dev, kern.threads, kern.regs, kern.smem).blocks_per_sm;
        if (kern.per_sm < 1) continue;
        kern.tiles = ceil_div(c.m, t.tile_m) * ceil_div(c.n, t.tile_n);
        rate(dev, c, kern);
        kernels.push_back(kern);
    }
    if (kernels.empty())
        throw std::invalid_argument("derive_gemm: tiles (" + std::to_string(cands.size()) +
                                    " candidates) must include one that fits the registers and shared memory of " +
                                    dev.name);
    // Rule 5 for each kernel and split of k, then the pick among all of them.
    std::vector<Choice> all;
    int most_resident = 1;
    for (const Kernel& kern : kernels) most_resident = std::max(most_resident, kern.per_sm);
    const long long most_blocks = static_cast<long long>(dev.sm_count) * most_resident;
    auto splits = [&](const Kernel& kern, long long kernel_most) {
        long long most = kernel_most > 0 ? kernel_most : c.k;
        if (c.max_split_k > 0) most = std::min(most, c.max_split_k);
        std::vector<Choice> v;
        for (long long split : gemm_split_candidates(std::max<long long>(1, most))) {
            Choice ch;
            if (time_of(dev, c, kern, split, most_blocks, ch)) v.push_back(ch);
        }
        return v;
    };
    for (const Kernel& kern : kernels) {
        const std::vector<Choice> v = splits(kern, kern.t->max_split);
        all.insert(all.end(), v.begin(), v.end());
    }
    if (all.empty())
        throw std::invalid_argument("derive_gemm: no candidate of " + std::to_string(kernels.size()) +
                                    " gives a launch for " + d.shape);
    const Choice best = *pick(all);
    d.seconds = best.seconds;
    const Kernel& bk = *best.kern;
    const GemmTile& bt = *bk.t;
    const std::string lanes_word = tensor ? "tensor-core" : (c.elem_bytes == 8 ? "FP64" : "FP32");
    if (c.elem_bytes == 8) {
        // Rule 2 rates the tensor cores higher (more FMAs per clock, fragments read once per warp);
        // rule 5 weighs their tiles and splits against the FMA tiles' like any other candidate's.
        const Choice* other = nullptr;
        for (const Choice& ch : all)
            if (ch.kern->t->tensor_core != bt.tensor_core && (!other || ch.seconds < other->seconds)) other = &ch;
        std::string why = std::to_string(dev.fp64_lanes_per_sm) + " FP64 FMA lanes per SM";
        if (tensor)
            why = std::to_string(dev.fp64_mma_lanes_per_sm) + " FP64 FMAs per clock per SM on the tensor cores against " +
                  std::to_string(dev.fp64_lanes_per_sm) + " on the FMA lanes; " +
                  (bt.tensor_core ? "their kernel " + us(best.seconds) + (other ? ", the FMA tiles' best " + us(other->seconds) : "")
                                  : "the FMA tiles " + us(best.seconds) + (other ? ", the tensor cores' kernel " + us(other->seconds) +
                                                                                       " (one tile shape, no split of k)"
                                                                                 : ""));
        else if (dev.fp64_mma_lanes_per_sm > dev.fp64_lanes_per_sm)
            why += " (no tensor-core kernel among the candidates)";
        else
            why += ": no faster FP64 tensor cores on " + dev.name;
        d.params.push_back({"math", bt.tensor_core ? 2 : 1, "the most FMAs per clock (rule 2), the waves (rule 5)", why});
    }
    // The runner-up: the fastest choice of another tile, so the line says what the pick beat.
    const Choice* second = nullptr;
    for (const Choice& ch : all)
        if (ch.kern != best.kern && (!second || ch.seconds < second->seconds)) second = &ch;
    std::string against = second ? "; next " + tile_name(*second->kern) + " split " + std::to_string(second->split) +
                                       " " + us(second->seconds) +
                                       (second->seconds <= best.seconds * (1 + kResolution)
                                            ? " (within 1/16: more reuse, then less shared memory, wins)"
                                            : "")
                                 : "";
    d.params.push_back({"tile_m", bt.tile_m, "the least time of the busiest SM, ties to more reuse (rules 5, 2, 3)",
                        tile_name(bk) + " split " + std::to_string(best.split) + ": " + us(best.seconds) + against});
    d.params.push_back({"tile_n", bt.tile_n, "reuse: the rate it allows (rule 2)",
                        fmt("%.2f", bk.smem_per_fma) + " B of shared memory per FMA" +
                            (tensor ? " (the warp's fragments)" : " (a thread's " + std::to_string(bt.thread_m) + " x " +
                                                                      std::to_string(bt.thread_n) + ")") +
                            ", " + fmt("%.0f", 2.0 * bt.tile_m * bt.tile_n / ((bt.tile_m + bt.tile_n) * c.elem_bytes)) +
                            " flop per L2 byte: " + fmt("%.0f", bk.rate / 1e9) + " G FMA/s per SM, bound by " + bk.bound});
    d.params.push_back({"tile_k", bt.tile_k, "the kernel's k depth per stage",
                        std::to_string(bt.stages) + " stages of " + std::to_string(bt.tile_k) + " x " +
                            std::to_string(c.elem_bytes) + " B per row: " + std::to_string(bk.smem) + " B of shared memory"});
    d.params.push_back({"threads", bk.threads, "the tile's threads",
                        std::to_string(bk.warps) + " warps, " + std::to_string(bk.regs) + " registers each" +
                            (bt.min_blocks > 1 ? " (the kernel's bound of " + std::to_string(bt.min_blocks) + " blocks per SM)"
                                               : "")});
    Derived per_sm = blocks_per_sm(dev, bk.threads, bk.regs, bk.smem);
    if (bt.blocks_per_sm > 0) {
        per_sm.value = bt.blocks_per_sm;
        per_sm.metric = std::to_string(bt.blocks_per_sm) + " (the compiled kernel, read from the device)";
    }
    d.params.push_back(per_sm);
    const long long slots = static_cast<long long>(dev.sm_count) * bk.per_sm;
    std::string why = std::to_string(bk.tiles) + " tiles x " + std::to_string(best.split) + " = " +
                      std::to_string(best.blocks) + " blocks on " + std::to_string(slots) + " slots (" +
                      std::to_string(dev.sm_count) + " SMs x " + std::to_string(bk.per_sm) + "): " +
                      std::to_string(best.busiest) + " on the busiest SM, " +
                      fmt("%.2f", static_cast<double>(best.blocks) / (best.busiest * dev.sm_count)) + " of them busy; " +
                      "main loop " + us(best.main) + ", bytes " + us(best.memory) +
                      (best.split > 1 ? ", second pass " + us(best.second_pass) : "");
    // The split the rule would take were the kernel's own limit not there (the tensor-core kernel).
    if (bt.max_split == 1) {
        const std::vector<Choice> open = splits(bk, 0);
        if (const Choice* alt = open.empty() ? nullptr : pick(open); alt && alt->split > 1)
            why += "; the kernel takes no split (" + std::to_string(alt->split) + " would give " + us(alt->seconds) + ")";
    }
    d.params.push_back({"split_k", best.split, "waves with the second pass counted (rule 5, KBLAS Y)", why});
    return d;
}

}  // namespace wb::derive
