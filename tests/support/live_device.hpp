/// \file live_device.hpp
/// \brief The profile of the CUDA device the test runs on (gpu and perf tests only: they have
///        already skipped with exit code 77 when there is no device).
#pragma once

#include "catch.hpp"
#include "device_profile.hpp"

#include <cuda_runtime_api.h>

namespace wb::test {

inline DeviceProfile live_device() {
    int d = 0;
    REQUIRE(cudaGetDevice(&d) == cudaSuccess);
    return device_profile_from_device(d);
}

}  // namespace wb::test
