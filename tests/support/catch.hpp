/// \file catch.hpp
/// \brief Includes the Catch2 that CMake found: 2.x (Debian's `catch2`, one header) or 3.x.
///        tests/CMakeLists.txt defines WB_CATCH2_V3 for 3.x; a header check alone is not enough
///        because a machine may have 3.x headers installed next to the 2.x package we link.
#pragma once
#ifdef WB_CATCH2_V3
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif
