// model.cpp — execution metrics and performance models (declared in model.hpp, DESIGN §6).
//
// Why a file of its own: the chapters print a prediction beside every measurement, chapter 6
// derives launches from these metrics, and all of it must run (and be tested) without a GPU.
// Plain host arithmetic on a DeviceProfile; every formula names the equation it generalizes.
#include "model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

namespace wb::model {

namespace {

[[noreturn]] void invalid(const std::string& fn, const std::string& arg, long long value,
                          const std::string& rule) {
    throw std::invalid_argument(fn + ": " + arg + " (" + std::to_string(value) + ") " + rule);
}

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }
long long round_up(long long a, long long unit) { return unit <= 1 ? a : ceil_div(a, unit) * unit; }
bool is_pow2(long long v) { return v > 0 && (v & (v - 1)) == 0; }

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

/// Segment a compute-1.x half-warp starts from (CUDA C Programming Guide, compute 1.2/1.3
/// coalescing): 32 bytes for 1-byte words, 64 for 2-byte, 128 for 4-, 8- and 16-byte words.
long long t10_first_segment(int elem_bytes) { return elem_bytes == 1 ? 32 : elem_bytes == 2 ? 64 : 128; }

/// Transactions of one half-warp on a compute-1.2/1.3 device (White §3.3.1).
void t10_group(const std::vector<long long>& addr, int elem_bytes, WarpAccess& out) {
    std::vector<bool> done(addr.size(), false);
    for (std::size_t lead = 0; lead < addr.size(); ++lead) {
        if (done[lead]) continue;
        long long size = t10_first_segment(elem_bytes);
        long long base = addr[lead] / size * size;
        long long lo = std::numeric_limits<long long>::max(), hi = 0;
        for (std::size_t i = lead; i < addr.size(); ++i) {
            if (!done[i] && addr[i] >= base && addr[i] < base + size) {
                done[i] = true;
                lo = std::min(lo, addr[i]);
                hi = std::max(hi, addr[i] + elem_bytes);
            }
        }
        // Shrink 128 -> 64 -> 32 while the used bytes lie in one half.
        while (size > 32) {
            const long long half = size / 2;
            if (hi <= base + half) {
                size = half;
            } else if (lo >= base + half) {
                base += half;
                size = half;
            } else {
                break;
            }
        }
        ++out.transactions;
        out.bytes_moved += size;
        (size == 32 ? out.t32 : size == 64 ? out.t64 : out.t128) += 1;
    }
}

/// Sectors of one warp on a modern GPU: the distinct segment_bytes sectors the elements cover.
void sector_group(const std::vector<long long>& addr, int elem_bytes, long long seg, WarpAccess& out) {
    std::set<long long> sectors;
    for (long long a : addr)
        for (long long s = a / seg; s <= (a + elem_bytes - 1) / seg; ++s) sectors.insert(s);
    const auto n = static_cast<long long>(sectors.size());
    out.transactions += n;
    out.t32 += seg == 32 ? n : 0;
    out.bytes_moved += n * seg;
}

void check_profile_partitions(const DeviceProfile& dev, const std::string& fn) {
    if (dev.partitions <= 0 || dev.partition_bytes <= 0)
        invalid(fn, "dev.partitions", dev.partitions,
                "must be > 0: \"" + dev.name +
                    "\" hashes addresses across channels, so no linear partition map exists");
}

void check_pow2_n(const std::string& fn, long long n) {
    if (n < 512 || !is_pow2(n)) invalid(fn, "n", n, "must be a power of two >= 512 (White Eq. 4.1)");
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Occupancy
// ---------------------------------------------------------------------------------------------

const char* limiter_name(Limiter l) {
    switch (l) {
        case Limiter::blocks: return "blocks";
        case Limiter::threads: return "threads";
        case Limiter::registers: return "registers";
        case Limiter::shared_memory: return "shared memory";
    }
    return "?";
}

Occupancy occupancy(const DeviceProfile& dev, int threads_per_block, int regs_per_thread,
                    int smem_per_block) {
    const std::string fn = "occupancy";
    if (threads_per_block < 1 || threads_per_block > dev.max_threads_per_block)
        invalid(fn, "threads_per_block", threads_per_block,
                "must be in 1.." + std::to_string(dev.max_threads_per_block) + " on " + dev.name);
    if (regs_per_thread < 0 || regs_per_thread > dev.max_regs_per_thread)
        invalid(fn, "regs_per_thread", regs_per_thread,
                "must be in 0.." + std::to_string(dev.max_regs_per_thread) + " on " + dev.name);
    if (smem_per_block < 0 || smem_per_block > dev.smem_per_block_bytes)
        invalid(fn, "smem_per_block", smem_per_block,
                "must be in 0.." + std::to_string(dev.smem_per_block_bytes) + " on " + dev.name);

    Occupancy o;
    const int warp = dev.warp_size > 0 ? dev.warp_size : 32;
    const int warps_per_block = static_cast<int>(ceil_div(threads_per_block, warp));
    const int max_warps = dev.max_threads_per_sm / warp;

    o.limit_blocks = dev.max_blocks_per_sm;
    o.limit_threads = max_warps / warps_per_block;

    // Registers: per warp, rounded up to the allocation unit (CUDA occupancy calculator).
    const long long regs_per_warp = round_up(static_cast<long long>(regs_per_thread) * warp,
                                             dev.reg_alloc_unit);
    o.regs_per_block = static_cast<int>(regs_per_warp * warps_per_block);
    o.limit_registers = regs_per_warp == 0
                            ? dev.max_blocks_per_sm
                            : static_cast<int>(dev.regs_per_sm / regs_per_warp / warps_per_block);

    // Shared memory: per block, plus the per-block reservation, rounded up to the unit.
    const long long reserved = std::max(0, dev.smem_per_sm_bytes - dev.smem_per_block_bytes);
    o.smem_per_block = static_cast<int>(round_up(smem_per_block + reserved, dev.smem_alloc_unit));
    o.limit_shared_memory = o.smem_per_block == 0 ? dev.max_blocks_per_sm
                                                  : dev.smem_per_sm_bytes / o.smem_per_block;

    o.blocks_per_sm = o.limit_blocks;
    o.limiter = Limiter::blocks;
    const std::pair<int, Limiter> others[] = {{o.limit_threads, Limiter::threads},
                                              {o.limit_registers, Limiter::registers},
                                              {o.limit_shared_memory, Limiter::shared_memory}};
    for (const auto& [limit, which] : others)
        if (limit < o.blocks_per_sm) {
            o.blocks_per_sm = limit;
            o.limiter = which;
        }
    o.active_threads_per_sm = o.blocks_per_sm * threads_per_block;
    o.active_warps_per_sm = o.blocks_per_sm * warps_per_block;
    o.occupancy = max_warps > 0 ? static_cast<double>(o.active_warps_per_sm) / max_warps : 0.0;
    return o;
}

int white_active_blocks_per_sm(const DeviceProfile& dev, int threads_per_block, int regs_per_thread,
                               int smem_per_block) {
    const std::string fn = "white_active_blocks_per_sm";
    if (threads_per_block < 1 || threads_per_block > dev.max_threads_per_block)
        invalid(fn, "threads_per_block", threads_per_block,
                "must be in 1.." + std::to_string(dev.max_threads_per_block));
    if (regs_per_thread < 0) invalid(fn, "regs_per_thread", regs_per_thread, "must be >= 0");
    if (smem_per_block < 0) invalid(fn, "smem_per_block", smem_per_block, "must be >= 0");
    long long b = std::min<long long>(dev.max_blocks_per_sm, dev.max_threads_per_sm / threads_per_block);
    const long long regs_per_block = static_cast<long long>(regs_per_thread) * threads_per_block;
    if (regs_per_block > 0) b = std::min(b, dev.regs_per_sm / regs_per_block);
    if (smem_per_block > 0) b = std::min<long long>(b, dev.smem_per_sm_bytes / smem_per_block);
    return static_cast<int>(b);
}

// ---------------------------------------------------------------------------------------------
// Grid metrics
// ---------------------------------------------------------------------------------------------

GridMetrics grid_metrics(const DeviceProfile& dev, long long grid_blocks, int threads_per_block,
                         int blocks_per_sm) {
    const std::string fn = "grid_metrics";
    if (grid_blocks < 0) invalid(fn, "grid_blocks", grid_blocks, "must be >= 0");
    if (threads_per_block < 1) invalid(fn, "threads_per_block", threads_per_block, "must be >= 1");
    if (blocks_per_sm < 0) invalid(fn, "blocks_per_sm", blocks_per_sm, "must be >= 0");
    GridMetrics g;
    g.total_blocks = grid_blocks;
    g.total_threads = grid_blocks * threads_per_block;                           // Eq. 3.1
    const long long slots = static_cast<long long>(dev.sm_count) * blocks_per_sm;
    g.active_blocks = std::min(slots, grid_blocks);                              // Eq. 3.8
    g.active_threads = g.active_blocks * threads_per_block;                      // Eq. 3.9
    g.fragmented_blocks = g.active_blocks > 0 ? grid_blocks % g.active_blocks : 0;  // Eq. 3.10
    g.fragmented_threads = g.fragmented_blocks * threads_per_block;              // Eq. 3.11
    g.full_waves = g.active_blocks > 0 ? grid_blocks / g.active_blocks : 0;
    g.waves = slots > 0 ? static_cast<double>(grid_blocks) / static_cast<double>(slots) : 0.0;
    const long long last = g.fragmented_blocks > 0 ? g.fragmented_blocks : std::min(grid_blocks, slots);
    g.tail_fill = slots > 0 ? static_cast<double>(last) / static_cast<double>(slots) : 0.0;
    return g;
}

// ---------------------------------------------------------------------------------------------
// Warp requests
// ---------------------------------------------------------------------------------------------

WarpAccess warp_access(const DeviceProfile& dev, long long start_byte, int stride_elems,
                       int elem_bytes, int threads) {
    const std::string fn = "warp_access";
    if (start_byte < 0) invalid(fn, "start_byte", start_byte, "must be >= 0");
    if (stride_elems < 0) invalid(fn, "stride_elems", stride_elems, "must be >= 0");
    if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8 && elem_bytes != 16)
        invalid(fn, "elem_bytes", elem_bytes, "must be 1, 2, 4, 8 or 16");
    if (start_byte % elem_bytes != 0)
        invalid(fn, "start_byte", start_byte,
                "must be a multiple of elem_bytes (" + std::to_string(elem_bytes) +
                    "): GPUs require naturally aligned elements");
    if (threads < 1) invalid(fn, "threads", threads, "must be >= 1");
    const int group = dev.transaction_threads > 0 ? dev.transaction_threads : 32;
    const long long seg = dev.segment_bytes > 0 ? dev.segment_bytes : 32;
    const bool half_warp_rule = group < (dev.warp_size > 0 ? dev.warp_size : 32);

    WarpAccess out;
    for (int first = 0; first < threads; first += group) {
        const int count = std::min(group, threads - first);
        std::vector<long long> addr(static_cast<std::size_t>(count));
        for (int i = 0; i < count; ++i)
            addr[static_cast<std::size_t>(i)] =
                start_byte + static_cast<long long>(first + i) * stride_elems * elem_bytes;
        out.useful_bytes += static_cast<long long>(std::set<long long>(addr.begin(), addr.end()).size()) *
                            elem_bytes;
        if (half_warp_rule)
            t10_group(addr, elem_bytes, out);
        else
            sector_group(addr, elem_bytes, seg, out);
    }
    out.efficiency = out.bytes_moved > 0 ? static_cast<double>(out.useful_bytes) /
                                               static_cast<double>(out.bytes_moved)
                                         : 0.0;
    return out;
}

long long sectors_for_warp_access(const DeviceProfile& dev, long long start_byte, int stride_elems,
                                  int elem_bytes, int threads) {
    return warp_access(dev, start_byte, stride_elems, elem_bytes, threads).transactions;
}

double access_efficiency(const DeviceProfile& dev, long long start_byte, int stride_elems,
                         int elem_bytes, int threads) {
    return warp_access(dev, start_byte, stride_elems, elem_bytes, threads).efficiency;
}

// ---------------------------------------------------------------------------------------------
// Partitions and banks
// ---------------------------------------------------------------------------------------------

int partition_of(const DeviceProfile& dev, long long address) {
    check_profile_partitions(dev, "partition_of");
    if (address < 0) invalid("partition_of", "address", address, "must be >= 0");
    return static_cast<int>((address / dev.partition_bytes) % dev.partitions);
}

int partitions_touched(const DeviceProfile& dev, const std::vector<long long>& start_bytes,
                       long long bytes_per_block) {
    const std::string fn = "partitions_touched";
    check_profile_partitions(dev, fn);
    if (bytes_per_block < 1) invalid(fn, "bytes_per_block", bytes_per_block, "must be >= 1");
    std::set<int> used;
    for (long long s : start_bytes) {
        if (s < 0) invalid(fn, "start_bytes[i]", s, "must be >= 0");
        const long long first = s / dev.partition_bytes;
        const long long last = (s + bytes_per_block - 1) / dev.partition_bytes;
        const long long chunks = std::min<long long>(last - first + 1, dev.partitions);
        for (long long c = 0; c < chunks; ++c) used.insert(static_cast<int>((first + c) % dev.partitions));
        if (static_cast<int>(used.size()) == dev.partitions) break;
    }
    return static_cast<int>(used.size());
}

double partition_camping_slowdown(const DeviceProfile& dev, int partitions_used) {
    check_profile_partitions(dev, "partition_camping_slowdown");
    if (partitions_used < 1 || partitions_used > dev.partitions)
        invalid("partition_camping_slowdown", "partitions_used", partitions_used,
                "must be in 1.." + std::to_string(dev.partitions));
    return static_cast<double>(dev.partitions) / partitions_used;
}

double white_parts_per_block(const DeviceProfile& dev, int block_x, int elem_bytes) {
    check_profile_partitions(dev, "white_parts_per_block");
    if (block_x < 1) invalid("white_parts_per_block", "block_x", block_x, "must be >= 1");
    if (elem_bytes < 1) invalid("white_parts_per_block", "elem_bytes", elem_bytes, "must be >= 1");
    return static_cast<double>(block_x) * elem_bytes / dev.partition_bytes;  // Eq. 3.12
}

double white_parts_per_gpu(const DeviceProfile& dev, long long active_blocks, long long grid_x,
                           double parts_per_block) {
    check_profile_partitions(dev, "white_parts_per_gpu");
    if (active_blocks < 0) invalid("white_parts_per_gpu", "active_blocks", active_blocks, "must be >= 0");
    if (grid_x < 0) invalid("white_parts_per_gpu", "grid_x", grid_x, "must be >= 0");
    const double cap = dev.partitions;
    const double blocks = static_cast<double>(active_blocks < grid_x ? active_blocks : grid_x);
    return std::min(blocks * parts_per_block, cap);  // Eq. 3.13
}

int bank_of(const DeviceProfile& dev, long long word_index) {
    if (word_index < 0) invalid("bank_of", "word_index", word_index, "must be >= 0");
    if (dev.banks < 1) invalid("bank_of", "dev.banks", dev.banks, "must be >= 1");
    return static_cast<int>(word_index % dev.banks);
}

int bank_conflict_ways(const DeviceProfile& dev, const std::vector<long long>& word_indices) {
    std::map<int, std::set<long long>> per_bank;
    for (long long w : word_indices) per_bank[bank_of(dev, w)].insert(w);
    std::size_t ways = 0;
    for (const auto& [bank, words] : per_bank) ways = std::max(ways, words.size());
    return static_cast<int>(ways);
}

int bank_conflict_ways_strided(const DeviceProfile& dev, int stride_words, long long offset_words) {
    const std::string fn = "bank_conflict_ways_strided";
    if (stride_words < 0) invalid(fn, "stride_words", stride_words, "must be >= 0");
    if (offset_words < 0) invalid(fn, "offset_words", offset_words, "must be >= 0");
    const int threads = dev.transaction_threads > 0 ? dev.transaction_threads : 32;
    std::vector<long long> words;
    for (int i = 0; i < threads; ++i) words.push_back(offset_words + static_cast<long long>(i) * stride_words);
    return bank_conflict_ways(dev, words);
}

// ---------------------------------------------------------------------------------------------
// Little's law
// ---------------------------------------------------------------------------------------------

double bytes_in_flight_needed(const DeviceProfile& dev) { return dev.latency_ns * dev.bandwidth_gbs; }

double bytes_in_flight_needed_per_sm(const DeviceProfile& dev) {
    return dev.sm_count > 0 ? bytes_in_flight_needed(dev) / dev.sm_count : 0.0;
}

double latency_bound_bandwidth_gbs(const DeviceProfile& dev, double bytes_in_flight_per_sm,
                                   int active_sms) {
    if (bytes_in_flight_per_sm < 0)
        invalid("latency_bound_bandwidth_gbs", "bytes_in_flight_per_sm",
                static_cast<long long>(bytes_in_flight_per_sm), "must be >= 0");
    const int sms = active_sms < 0 ? dev.sm_count : std::min(active_sms, dev.sm_count);
    if (dev.latency_ns <= 0) return dev.bandwidth_gbs;
    return std::min(dev.bandwidth_gbs, sms * bytes_in_flight_per_sm / dev.latency_ns);  // B/ns = GB/s
}

// ---------------------------------------------------------------------------------------------
// GEMV per ladder stage
// ---------------------------------------------------------------------------------------------

std::vector<std::string> gemv_stage_names() { return {"naive", "shared", "pattern", "access", "tuned"}; }

GemvStageDesign gemv_stage_design(const std::string& stage, bool trans, int elem_bytes,
                                  int block_threads, const DeviceProfile& dev) {
    (void)trans;
    (void)dev;
    GemvStageDesign d;
    d.stage = stage;
    // These are the model's assumptions about each step's kernel (chapter text explains them);
    // a chapter that knows the real register count or tile passes its own design.
    if (stage == "naive") {
        d.regs_per_thread = 32;
        d.smem_per_block = 0;
        d.loads_in_flight = 8;  // the compiler unrolls the k loop and keeps about 8 loads in flight
        d.reduction_per_thread = 0;
        d.uncoalesced_t = true;
        d.summary = "one thread per result, A straight from global memory";
    } else if (stage == "shared") {
        d.regs_per_thread = 32;
        d.smem_per_block = block_threads * 8 * elem_bytes;  // a tile of 8 elements per thread
        d.loads_in_flight = 8;  // one tile load, then a barrier
        d.reduction_per_thread = 0;
        d.summary = "A staged through shared memory in coalesced tiles, x in constant memory";
    } else if (stage == "pattern") {
        d.regs_per_thread = 32;
        d.smem_per_block = block_threads * elem_bytes;  // partial sums for the block reduction
        d.loads_in_flight = 8;
        d.reduction_per_thread = 64;  // several threads share one result's sum
        d.summary = "several threads share each result; partial sums reduced in shared memory";
    } else if (stage == "access") {
        d.regs_per_thread = 40;
        d.smem_per_block = block_threads * elem_bytes;
        d.loads_in_flight = 16;  // aligned 16-byte vector loads, several per thread in flight
        d.reduction_per_thread = 64;
        d.summary = "aligned vector loads, padded shared memory, partition-aware start";
    } else if (stage == "tuned") {
        d.regs_per_thread = 64;
        d.smem_per_block = block_threads * elem_bytes;
        d.loads_in_flight = 32;  // double-buffered register prefetch: two sets of vector loads
        d.reduction_per_thread = 64;
        d.summary = "unrolled, register prefetch (double buffering), hoisted index arithmetic";
    } else {
        std::string known;
        for (const auto& n : gemv_stage_names()) known += (known.empty() ? "" : ", ") + n;
        throw std::invalid_argument("gemv_stage_design: stage (\"" + stage + "\") must be one of: " + known);
    }
    return d;
}

GemvPrediction predict_gemv(const std::string& stage, bool trans, long long m, long long n,
                            int elem_bytes, int block_threads, const DeviceProfile& dev,
                            bool beta_nonzero) {
    return predict_gemv(gemv_stage_design(stage, trans, elem_bytes, block_threads, dev), trans, m, n,
                        elem_bytes, block_threads, dev, beta_nonzero);
}

GemvPrediction predict_gemv(const GemvStageDesign& design, bool trans, long long m, long long n,
                            int elem_bytes, int block_threads, const DeviceProfile& dev,
                            bool beta_nonzero) {
    const std::string fn = "predict_gemv";
    if (m < 0) invalid(fn, "m", m, "must be >= 0");
    if (n < 0) invalid(fn, "n", n, "must be >= 0");
    if (elem_bytes != 4 && elem_bytes != 8) invalid(fn, "elem_bytes", elem_bytes, "must be 4 or 8");
    const int warp = dev.warp_size > 0 ? dev.warp_size : 32;
    if (block_threads < 1 || block_threads > dev.max_threads_per_block || block_threads % warp != 0)
        invalid(fn, "block_threads", block_threads,
                "must be a multiple of " + std::to_string(warp) + " in " + std::to_string(warp) + ".." +
                    std::to_string(dev.max_threads_per_block));

    GemvPrediction p;
    const long long results = trans ? n : m;    // len(y)
    const long long reduction = trans ? m : n;  // len(x)
    const double e = elem_bytes;
    p.useful_bytes = e * (static_cast<double>(m) * static_cast<double>(n) + static_cast<double>(reduction) +
                          static_cast<double>(results) * (beta_nonzero ? 2 : 1));
    p.occ = occupancy(dev, block_threads, design.regs_per_thread, design.smem_per_block);

    const double overhead_ms = kLaunchOverheadUs * 1e-3;
    if (m == 0 || n == 0) {
        p.useful_bytes = 0;  // BLAS returns at once: nothing is read or written
        p.predicted_ms = p.predicted_ms_cached = overhead_ms;
        p.note = "empty: launch overhead only";
        return p;
    }

    // Grid: one thread per result, or results x ceil(reduction / reduction_per_thread).
    const long long threads_total =
        design.reduction_per_thread > 0 ? results * ceil_div(reduction, design.reduction_per_thread)
                                        : results;
    p.grid = grid_metrics(dev, ceil_div(threads_total, block_threads), block_threads, p.occ.blocks_per_sm);

    // A: coalesced reading of contiguous columns (N: a warp's rows of one column; T: a warp's
    // stretch of one column), or naive T: a warp reads one element from each of 32 columns.
    const bool strided = trans && design.uncoalesced_t;
    const long long col = m;  // lda = m: columns assumed aligned to a sector
    const WarpAccess full = warp_access(dev, 0, 1, elem_bytes, warp);
    const long long rem = col % warp;
    const WarpAccess part = rem > 0 ? warp_access(dev, 0, 1, elem_bytes, static_cast<int>(rem)) : WarpAccess{};
    const long long coalesced_tx = (col / warp * full.transactions + part.transactions) * n;
    const double coalesced_bytes = static_cast<double>((col / warp * full.bytes_moved + part.bytes_moved)) * n;
    double a_bytes = coalesced_bytes;
    double per_load_bytes = e;  // DRAM bytes one thread's load moves
    if (strided) {
        const int stride = static_cast<int>(std::min<long long>(m, std::numeric_limits<int>::max()));
        const WarpAccess sw = warp_access(dev, 0, stride, elem_bytes, warp);
        const long long nrem = n % warp;
        const WarpAccess sp = nrem > 0 ? warp_access(dev, 0, stride, elem_bytes, static_cast<int>(nrem)) : WarpAccess{};
        p.transactions = (n / warp * sw.transactions + sp.transactions) * m;
        a_bytes = static_cast<double>(n / warp * sw.bytes_moved + sp.bytes_moved) * static_cast<double>(m);
        per_load_bytes = static_cast<double>(sw.bytes_moved) / warp;
    } else {
        p.transactions = coalesced_tx;
    }
    const double xy_bytes = e * (static_cast<double>(reduction) + static_cast<double>(results) * (beta_nonzero ? 2 : 1));
    p.dram_bytes = a_bytes + xy_bytes;
    p.dram_bytes_cached = coalesced_bytes + xy_bytes;
    p.efficiency = p.useful_bytes / p.dram_bytes;

    // Little's law. Resident threads keep loads_in_flight elements outstanding each, so elements
    // arrive at most at inflight / latency per ns whatever each load moves: the latency-bound time
    // is the same with or without sector reuse, while the DRAM time grows with the bytes moved.
    const double resident_threads = static_cast<double>(std::min(p.grid.active_threads, threads_total));
    const double inflight = resident_threads * design.loads_in_flight;  // elements
    const double elements = p.useful_bytes / e;
    const double latency_ms =
        dev.latency_ns > 0 && inflight > 0 ? elements / inflight * dev.latency_ns * 1e-6
                                           : (inflight > 0 ? 0.0 : std::numeric_limits<double>::infinity());
    p.latency_bound_gbs = dev.latency_ns > 0
                              ? std::min(dev.bandwidth_gbs, inflight * per_load_bytes / dev.latency_ns)
                              : dev.bandwidth_gbs;
    const auto time_ms = [&](double bytes) {
        const double bw_ms = dev.bandwidth_gbs > 0 ? bytes / (dev.bandwidth_gbs * 1e6)
                                                   : std::numeric_limits<double>::infinity();
        return std::max(bw_ms, latency_ms) + overhead_ms;
    };
    const bool latency_bound = latency_ms > p.dram_bytes / (dev.bandwidth_gbs * 1e6);
    p.predicted_ms = time_ms(p.dram_bytes);
    p.predicted_ms_cached = time_ms(p.dram_bytes_cached);
    p.predicted_gbs = p.useful_bytes / (p.predicted_ms * 1e6);
    p.predicted_gbs_cached = p.useful_bytes / (p.predicted_ms_cached * 1e6);

    std::string note;
    if (p.occ.blocks_per_sm == 0) {
        note = "does not fit on an SM (" + std::string(limiter_name(p.occ.limiter)) + ")";
    } else {
        note = latency_bound
                   ? "latency-bound: " + fmt("%.0f", resident_threads) + " resident threads keep " +
                         fmt("%.0f", inflight * per_load_bytes / 1024.0) + " KB in flight of the " +
                         fmt("%.0f", bytes_in_flight_needed(dev) / 1024.0) + " KB needed"
                   : "bandwidth-bound";
        note += "; occupancy " + fmt("%.0f%%", 100.0 * p.occ.occupancy) + " (" +
                limiter_name(p.occ.limiter) + "), " + fmt("%.2f", p.grid.waves) + " waves";
        if (p.grid.total_blocks < dev.sm_count)
            note += "; only " + std::to_string(p.grid.total_blocks) + " of " + std::to_string(dev.sm_count) +
                    " SMs get a block";
        if (strided)
            note += "; naive T: each warp load touches " + std::to_string(p.transactions / std::max(1LL, m) /
                                                                            std::max(1LL, ceil_div(n, warp))) +
                    " segments for " + std::to_string(warp) + " elements (efficiency " +
                    fmt("%.3f", p.efficiency) + ") unless L1/L2 keep the sectors; cached case " +
                    fmt("%.0f", p.predicted_gbs_cached) + " GB/s";
    }
    p.note = note;
    return p;
}

// ---------------------------------------------------------------------------------------------
// White's closed forms and launch derivations (T10)
// ---------------------------------------------------------------------------------------------

namespace {
void check_white_args(const std::string& fn, long long n, int dblk_x) {
    if (n < 1) invalid(fn, "n", n, "must be >= 1");
    if (dblk_x < 1 || dblk_x > 512 || !is_pow2(dblk_x))
        invalid(fn, "dblk_x", dblk_x, "must be a power of two in 1..512 (White §3.3)");
}
}  // namespace

long long white_mv_gld32(long long n, int dblk_x) {
    check_white_args("white_mv_gld32", n, dblk_x);
    if (dblk_x <= 8) return (dblk_x + 1) * n * n / dblk_x;  // Eq. 3.2, dBlk.x <= 8
    return 17 * n * n / 16;                                   // Eq. 3.2, dBlk.x >= 16
}

long long white_mm_gld32(long long n, int dblk_x) {
    check_white_args("white_mm_gld32", n, dblk_x);
    const long long n3 = n * n * n;
    return dblk_x <= 8 ? n3 / dblk_x + n3 / 16 : n3 / 16;  // Eq. 3.3
}

long long white_mm_gld64(long long n, int dblk_x) {
    check_white_args("white_mm_gld64", n, dblk_x);
    return dblk_x >= 16 ? n * n * n / 16 : 0;  // Eq. 3.4
}

long long white_mv_shared_gld(long long n, int dblk_x) {
    check_white_args("white_mv_shared_gld", n, dblk_x);
    return dblk_x <= 8 ? n * n / dblk_x : n * n / 16;  // Eq. 4.6 / 4.7
}

namespace {
/// Thds_GPU^active (Eq. 3.8-3.9) of a White launch with Eq. 3.7's block count.
long long white_active_threads(const DeviceProfile& dev, int bx, int by, long long grid_blocks, int regs,
                               int smem) {
    const long long per_sm = white_active_blocks_per_sm(dev, bx * by, regs, smem);
    return std::min(dev.sm_count * per_sm, grid_blocks) * bx * by;
}
}  // namespace

WhiteLaunch derive_mv_launch_t10(long long n, const DeviceProfile& dev) {
    check_pow2_n("derive_mv_launch_t10", n);
    // White §4.5.1: 10-15 registers per thread, "assuming the maximum is used".
    constexpr int regs = 15;
    // Step 1 with White's relaxation: the smallest Mv (n = 512, dBlk = 32 x 16) reaches 8192
    // active threads, so Mv asks for 8192 rather than the 12800 of Eq. 4.14.
    constexpr long long min_active = 8192;
    const int min_x = std::max(1, dev.segment_bytes / 4);  // Eq. 4.13: one 32-byte segment of floats
    // Step 2: the widest tile that fits (largest dBlk.x), then the smallest dBlk.y that saturates.
    for (int x = dev.max_threads_per_block; x >= min_x; x /= 2) {
        const int smem = (x * x + x) * 4;  // Eq. 4.11
        if (smem > dev.smem_per_block_bytes || n % x != 0) continue;
        const int y_max = std::min(dev.max_threads_per_block / x, x);  // Eq. 4.16a
        for (int y = 1; y <= y_max; y *= 2)
            if (white_active_threads(dev, x, y, n / x, regs, smem) >= min_active)
                return {x, y, n / x, 1};  // Eq. 4.16b
    }
    throw std::invalid_argument("derive_mv_launch_t10: n (" + std::to_string(n) + ") admits no launch on " +
                                dev.name + " that keeps 8192 threads active");
}

WhiteLaunch white_mv_launch_eq424(long long n) {
    check_pow2_n("white_mv_launch_eq424", n);
    return {32, static_cast<int>(std::max<long long>(8192 / n, 4)), n / 32, 1};
}

WhiteLaunch derive_mm_launch_t10(long long n, const DeviceProfile& dev, int regs_per_thread) {
    check_pow2_n("derive_mm_launch_t10", n);
    if (regs_per_thread < 1) invalid("derive_mm_launch_t10", "regs_per_thread", regs_per_thread, "must be >= 1");
    constexpr int n_ele = 16;  // Step 2: most reuse, 1 <= n_ele <= 16 (§4.5.2)
    const int min_x = std::max(1, dev.segment_bytes / 4);  // Eq. 4.13
    // Step 3: the least shared memory, SMemPerBlk = n_ele dBlk.x 4 (Eq. 4.8): smallest feasible dBlk.x.
    for (int x = min_x; x <= dev.max_threads_per_block; x *= 2) {
        const int smem = n_ele * x * 4;
        if (smem > dev.smem_per_block_bytes) break;
        bool found = false;
        WhiteLaunch best;
        double best_parts = -1;
        long long best_frag = 0;
        for (int y = 1; y <= dev.max_threads_per_block / x; y *= 2) {
            if (n % (static_cast<long long>(x) * y) != 0) continue;
            const long long gx = n / (static_cast<long long>(x) * y);  // Eq. 4.25c
            const long long gy = n / n_ele;                             // Eq. 4.29
            const int per_sm = white_active_blocks_per_sm(dev, x * y, regs_per_thread, smem);
            const GridMetrics g = grid_metrics(dev, gx * gy, x * y, per_sm);
            if (g.active_threads < kWhiteMinActiveThreadsT10) continue;  // Step 1, Eq. 4.14
            // Step 4: most partitions (Eq. 3.12-3.13); Step 5: fewest fragmented blocks (Eq. 3.10).
            const double parts = white_parts_per_gpu(dev, g.active_blocks, gx, white_parts_per_block(dev, x));
            if (!found || parts > best_parts + 1e-12 ||
                (std::abs(parts - best_parts) <= 1e-12 && g.fragmented_blocks < best_frag)) {
                found = true;
                best = {x, y, gx, gy};
                best_parts = parts;
                best_frag = g.fragmented_blocks;
            }
        }
        if (found) return best;
    }
    throw std::invalid_argument("derive_mm_launch_t10: n (" + std::to_string(n) + ") admits no launch on " +
                                dev.name + " with " + std::to_string(kWhiteMinActiveThreadsT10) +
                                " active threads");
}

WhiteLaunch white_mm_launch_eq441(long long n) {
    check_pow2_n("white_mm_launch_eq441", n);
    const long long y = std::min<long long>(16, n / (64 * std::min<long long>(n / 512, 8)));
    return {8, static_cast<int>(y), n / (8 * y), n / 16};
}

WhiteLaunch derive_conv_launch_t10(long long n, int fs, const DeviceProfile& dev) {
    check_pow2_n("derive_conv_launch_t10", n);
    if (fs < 1) invalid("derive_conv_launch_t10", "fs", fs, "must be >= 1");
    constexpr int regs = 10;  // §5.1.5: from compilation, constant
    // Step 2 (Eq. 5.8-5.11): a half-warp along x coalesces (dBlk.x >= 16) and one pass covers the
    // filter row (dBlk.x >= FS, a power of two), capped by the block size (Eq. 5.12a).
    int x = std::max(dev.transaction_threads, 1);
    while (x < fs && x < dev.max_threads_per_block) x *= 2;
    x = std::min(x, dev.max_threads_per_block);
    // Steps 1 and 3: the least shared memory (smallest dBlk.y) that keeps 12800 threads active.
    for (int y = 1; y <= dev.max_threads_per_block / x; y *= 2) {
        const int smem = (2 * x * y + x) * 4;  // Eq. 5.7
        if (smem > dev.smem_per_block_bytes) break;
        const long long blocks = (n / x) * (n / y);  // Eq. 5.12c-d
        if (white_active_threads(dev, x, y, blocks, regs, smem) >= kWhiteMinActiveThreadsT10)
            return {x, y, n / x, n / y};
    }
    throw std::invalid_argument("derive_conv_launch_t10: fs (" + std::to_string(fs) + ") admits no launch on " +
                                dev.name + " with " + std::to_string(kWhiteMinActiveThreadsT10) +
                                " active threads");
}

WhiteLaunch white_conv_launch_eq519(long long n, int fs) {
    check_pow2_n("white_conv_launch_eq519", n);
    if (fs < 1) invalid("white_conv_launch_eq519", "fs", fs, "must be >= 1");
    int p2 = 1;
    while (p2 < fs && p2 < 512) p2 *= 2;  // 2^ceil(log2 FS), capped below
    const int x = std::min(std::max(16, p2), 512);
    const int y = std::max(64 / x, 1);
    return {x, y, n / x, n / y};
}

}  // namespace wb::model
