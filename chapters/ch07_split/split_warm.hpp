/// \file split_warm.hpp
/// \brief Host-to-device copies of data the host's threads have just read, beside the same copies
///        of lines the copy engine left: chapter 7's GEMM hybrid copies all of A while its CPU share
///        reads A. On the H200 machine's host a copy of a buffer the cores hold moves at about half
///        the link's rate up to a few tens of MiB (scripts/probes/copy_dirty_probe.cu,
///        docs/notes/split.md, session 37). Measured at the start of a run like the link itself;
///        the model prices A's copy at that rate where a CPU share runs (Machines::warm_gemm_a).
#pragma once

#include "model/cpu.hpp"

#include <string>
#include <vector>

namespace wb::ch07 {

/// The two rates by copy size (GB/s, 1e9 B/s; WsPoint::ws_bytes is the copy's size).
struct WarmCopies {
    std::vector<model::WsPoint> warm_gbs;  ///< right after `threads` threads read the buffer once
    std::vector<model::WsPoint> cold_gbs;  ///< the same copy again, the lines as the copy engine left them
    bool measured() const { return !warm_gbs.empty() && warm_gbs.size() == cold_gbs.size(); }
};

/// The sizes measured: 4, 16, 64 and 256 MiB.
std::vector<double> warm_copy_sizes();

/// For each size, in turn over `rounds` rounds: `threads` threads read a page-locked buffer once
/// (model::read_gbs), then one copy of it to the device (CUDA events), then the same copy again;
/// the median of each. Needs a CUDA device. Throws std::invalid_argument on threads < 1 or
/// rounds < 1.
WarmCopies measure_warm_copies(int threads, int rounds = 7);

/// The run's line ("host-to-device copies of data the host's threads just read: 4 MiB 31.2 GB/s
/// (as the copy engine left it 51.1), ..."): the replay reads it (warm_copies_of_line).
std::string warm_copies_line(const WarmCopies& w);
/// The line back; not measured() where `line` is not one.
WarmCopies warm_copies_of_line(const std::string& line);

/// What a copy of `bytes` costs beyond its cold rate when its lines were just read (ms): bytes x
/// (1 / warm - 1 / cold), each rate linear in log(size) between the measured sizes (the nearest
/// outside them), never below 0; 0 where nothing was measured or bytes <= 0.
double warm_copy_extra_ms(const WarmCopies& w, double bytes);

}  // namespace wb::ch07
