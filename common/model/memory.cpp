// memory.cpp — warp requests, partitions, banks and Little's law (declared in model/memory.hpp,
// architecture §6). Plain host arithmetic on a DeviceProfile; every formula names the equation it
// generalizes.
#include "model/memory.hpp"

#include "model/model_internal.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

namespace wb::model {

using detail::check_profile_partitions;
using detail::invalid;

namespace {

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

}  // namespace

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

}  // namespace wb::model
