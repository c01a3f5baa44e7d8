// The tuned SYMV's aligned origin and workspace size, host-side (kernels/tuned/symv.cu):
// - symv_origin_shift: the offset of A(0, 0) in its 256-byte granule (or 128-byte line) when lda
//   keeps every column at that offset, 0 otherwise (no device memory: the pointers are never dereferenced);
// - symv_workspace_elems: at least n x (nt + Y) for every shift the origin can take (nt counted
//   from the shifted origin), so the kernel never writes past the workspace.
#include "catch.hpp"

#include "symv.hpp"

#include <cstdint>

namespace {

template <class T>
const T* at_line(std::uintptr_t line, int k) {  // element k past the 128-byte line at address line * 128
    return reinterpret_cast<const T*>(line * 128) + k;
}

}  // namespace

TEST_CASE("symv_origin_shift: the offset of A(0, 0) in its granule where lda keeps it for every column",
          "[cpu][symv]") {
    for (int k = 0; k < 140; ++k) {
        INFO("k = " << k);
        // A(k:, k:) of a matrix whose A(0, 0) is at a line: offset k + k * lda elements. Line 1000
        // is also on a 256-byte boundary, line 7 is 128 bytes past one.
        // float, nb = 64: 256-byte granules (64 floats) where lda is a multiple of 64 ...
        CHECK(wb::tuned::symv_origin_shift(at_line<float>(1000, k + k * 1024), 1024, 64) == k % 64);
        CHECK(wb::tuned::symv_origin_shift(at_line<float>(7, k + k * 16384), 16384, 64) == (32 + k) % 64);
        // ... one line (32 floats) where lda is only a multiple of 32, or where the tile is one line tall.
        CHECK(wb::tuned::symv_origin_shift(at_line<float>(1000, k + k * 16352), 16352, 64) == k % 32);
        CHECK(wb::tuned::symv_origin_shift(at_line<float>(7, k + k * 16384), 16384, 32) == k % 32);
        // double: 32-element granules for both tiles where lda allows, else 16-element lines.
        CHECK(wb::tuned::symv_origin_shift(at_line<double>(1000, k + k * 1024), 1024, 64) == k % 32);
        CHECK(wb::tuned::symv_origin_shift(at_line<double>(7, k + k * 1024), 1024, 32) == (16 + k) % 32);
        CHECK(wb::tuned::symv_origin_shift(at_line<double>(3, k + k * 48), 48, 64) == k % 16);
        // lda that is not a multiple of a line: columns start at different offsets, no common origin.
        for (int nb : {32, 64}) {
            CHECK(wb::tuned::symv_origin_shift(at_line<float>(1000, k), 1000, nb) == 0);
            CHECK(wb::tuned::symv_origin_shift(at_line<float>(1000, k), 1025, nb) == 0);
            CHECK(wb::tuned::symv_origin_shift(at_line<double>(1000, k), 1000, nb) == 0);  // 1000 % 16 != 0
        }
        // Always below nb: the origin adds at most one tile.
        for (int nb : {32, 64}) {
            CHECK(wb::tuned::symv_origin_shift(at_line<float>(7, k + k * 1024), 1024, nb) < nb);
            CHECK(wb::tuned::symv_origin_shift(at_line<double>(7, k + k * 1024), 1024, nb) < nb);
        }
    }
    CHECK(wb::tuned::symv_origin_shift(at_line<float>(1000, 0), 32, 64) == 0);
    CHECK(wb::tuned::symv_origin_shift(at_line<double>(1000, 5), 16, 64) == 5);
}

TEST_CASE("symv_workspace_elems covers the tiles of every shifted origin", "[cpu][symv]") {
    for (int nb : {32, 64})
        for (int y : {1, 2, 4, 8})
            for (int n = 1; n <= 700; n += (n < 140 ? 1 : 37))
                for (int d = 0; d < nb; ++d) {
                    const long long nt = (static_cast<long long>(n) + d + nb - 1) / nb;  // tiles from the shifted origin
                    INFO("n = " << n << " nb = " << nb << " Y = " << y << " d = " << d);
                    CHECK(static_cast<long long>(n) * (nt + y) <=
                          static_cast<long long>(wb::tuned::symv_workspace_elems(n, nb, y)));
                }
}
