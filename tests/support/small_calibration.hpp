/// \file small_calibration.hpp
/// \brief The CPU peers' calibration at test size (test_split_peer_rates.cpp, test_ch07_replay.cpp):
///        grids up to 4 MiB, CG's vector calls up to n = 4096, and every grid point timed whatever
///        a busy build machine's speed, so that a test calibrates every class in seconds.
#pragma once

#include "peer_rates.hpp"

namespace wb::test {

inline cpu::CalibrationSizes small_calibration_sizes() {
    cpu::CalibrationSizes s;
    s.ws_dram = 4.0 * 1024 * 1024;
    s.vec_max_n = 4096;
    s.max_call_s = 1;  // every grid point, whatever this busy machine's speed
    s.disturbed_retries = 0;  // the lines and arrays counted as one pass makes them
    return s;
}

}  // namespace wb::test
