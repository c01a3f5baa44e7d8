/// \file derived_shapes.cpp
/// \brief Chapter 6's cases per op (derived_shapes.hpp). The wave boundaries named below are the
///        h200 preset's (132 SMs) for chapter 5's launches at those shapes.
#include "derived_shapes.hpp"

#include <algorithm>

namespace wb::ch06 {

std::vector<GemvCase> gemv_cases_of(const CaseSelection& cs) {
    std::vector<GemvCase> v;
    if (cs.wave_tail) {
        // N: 32-row tiles of 512 threads, one per SM: 132 tiles at n = 4224 (k = 66); T: 4-column
        // tiles, 3 blocks per SM: 1188 tiles, three waves, at n = 4752 (k = 74.25).
        for (int k = 56; k <= 80; ++k)
            for (bool t : {false, true}) v.push_back({t, 64 * k, 64 * k, 64 * k});
    } else if (cs.shapes) {
        v = {
            {false, 3000, 3000, 3000},    {true, 3000, 3000, 3000},      // not powers of two
            {false, 100000, 96, 100000},  {true, 100000, 96, 100000},    // tall: N long output, T 96 outputs
            {false, 96, 100000, 96},      {true, 96, 100000, 96},        // wide: N 96 outputs, T long output
            {false, 5000, 5000, 5001},    {true, 5000, 5000, 5001},      // odd leading dimension
            {false, 4224, 4096, 4224},    {false, 4256, 4096, 4256},     // N: 132 tiles of 32 rows, and 133
            {true, 8192, 1584, 8192},     {true, 8192, 1588, 8192},      // T: 396 tiles of 4 columns, and 397
            {false, 1000, 30000, 1003},   {true, 30000, 1000, 30000},    // short output, long reduction
        };
    } else if (!cs.sizes.empty()) {
        for (long long n : cs.sizes)
            for (bool t : {false, true}) v.push_back({t, static_cast<int>(n), static_cast<int>(n), static_cast<int>(n)});
    } else {
        v = {{false, 4096, 4096, 4096}, {true, 4096, 4096, 4096}, {false, 579, 57900, 579}};
    }
    v.erase(std::remove_if(v.begin(), v.end(), [&](const GemvCase& c) { return c.trans ? !cs.op_t : !cs.op_n; }),
            v.end());
    return v;
}

std::vector<GemmCase> gemm_cases_of(const CaseSelection& cs) {
    if (cs.shapes)
        return {
            {1000, 1000, 1000, 0},   {3000, 3000, 1000, 0},  {2000, 2000, 2000, 1},  // odd ld: element copies or a copy
            {1536, 1536, 6000, 0},   {8192, 16, 4096, 0},    {16, 8192, 4096, 0},    // skinny both ways
            {8192, 64, 2048, 0},     {64, 8192, 2048, 0},    {777, 1234, 3333, 0},   // odd sizes
            {3072, 1408, 2048, 0},   {3072, 1409, 2048, 0},  // 132 tiles of 256 x 128 (one wave), and 144
            {4000, 300, 4000, 0},    {300, 300, 20000, 0},   // a short C: the split decides
            // op(A) = A^T: read transposed, or packed first (and copied aligned, ld+1)
            {1000, 1000, 1000, 0, Op::T}, {3000, 3000, 1000, 0, Op::T}, {2000, 2000, 2000, 1, Op::T},
            {8192, 64, 2048, 0, Op::T},   {777, 1234, 3333, 0, Op::T},  {5000, 5000, 3000, 0, Op::T},
        };
    std::vector<GemmCase> v;
    for (long long n : cs.sizes) v.push_back({static_cast<int>(n), static_cast<int>(n), static_cast<int>(n), 0});
    if (cs.sizes.empty()) v = {{1024, 1024, 1024, 0}, {4096, 4096, 4096, 0}, {1024, 1024, 16384, 0}};
    return v;
}

std::vector<Conv2dCase> conv2d_cases_of(const CaseSelection& cs) {
    if (cs.shapes)
        return {
            {1920, 1080, 3, 0},  {1080, 1920, 5, 0},  {4000, 3000, 7, 0},   {3001, 2999, 9, 0},
            {2500, 2500, 11, 0}, {100, 20000, 7, 0},  {20000, 100, 7, 0},   {1500, 1500, 15, 0},
            {2000, 2000, 21, 0}, {1234, 4321, 31, 0}, {777, 777, 45, 0},    {800, 800, 63, 0},
            {2000, 2000, 7, 1},  // odd pitch: rows not 16-byte aligned
        };
    std::vector<Conv2dCase> v;
    for (long long n : cs.sizes.empty() ? std::vector<long long>{4096} : cs.sizes)
        for (int fs : {3, 7, 17, 63}) v.push_back({static_cast<int>(n), static_cast<int>(n), fs, 0});
    return v;
}

std::vector<SquareCase> symv_cases_of(const CaseSelection& cs) {
    std::vector<SquareCase> v;
    if (cs.wave_tail) {
        // 64-wide tiles: nt = k; KBLAS's Y halves where 2 x 396 slots / (nt + 1) passes a power of
        // two (nt = 49 and 98 on the h200): k = 40 ... 104 crosses both.
        for (int k = 40; k <= 104; ++k) v.push_back({64 * k, 64 * k});
        return v;
    }
    if (cs.shapes)
        return {{1000, 1000}, {2500, 2500}, {3000, 3001},   {4100, 4100},   {5000, 5000},   {6208, 6208},
                {6336, 6336}, {7777, 7777}, {9000, 9003},   {10000, 10000}, {12345, 12345}, {20000, 20000}};
    for (long long n : cs.sizes.empty() ? std::vector<long long>{4096, 16384} : cs.sizes)
        v.push_back({static_cast<int>(n), static_cast<int>(n)});
    return v;
}

std::vector<SquareCase> cg_cases_of(const CaseSelection& cs) {
    if (cs.shapes)
        return {{1000, 1000}, {1500, 1500}, {2000, 2001}, {3000, 3000}, {4160, 4160}, {5000, 5000},
                {6000, 6003}, {7777, 7777}, {9000, 9000}, {10000, 10000}, {12000, 12000}, {15000, 15000}};
    std::vector<SquareCase> v;
    for (long long n : cs.sizes.empty() ? std::vector<long long>{2048, 16384} : cs.sizes)
        v.push_back({static_cast<int>(n), static_cast<int>(n)});
    return v;
}

}  // namespace wb::ch06
