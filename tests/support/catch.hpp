/// \file catch.hpp
/// \brief Includes Catch2 2.x (Debian's `catch2`) or 3.x, whichever the build found.
#pragma once
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif
