// The tuned SYMV's aligned origin and workspace size, host-side (kernels/tuned/symv.cu):
// - symv_origin_shift: the offset of A(0, 0) in its 128-byte line when lda keeps every column at
//   that offset, 0 otherwise (no device memory: the pointers are never dereferenced);
// - symv_workspace_elems: at least n x (nt + Y) for every shift the origin can take (nt counted
//   from the shifted origin), so the kernel never writes past the workspace.
#include "catch.hpp"

#include "symv.hpp"

#include <cstdint>

namespace {

template <class T>
const T* at_line(std::uintptr_t line, int k) {  // element k of a 128-byte line at address line * 128
    return reinterpret_cast<const T*>(line * 128) + k;
}

}  // namespace

TEST_CASE("symv_origin_shift: the misalignment of A(0, 0) in its line where lda keeps it for every column",
          "[cpu][symv]") {
    for (int k = 0; k < 80; ++k) {
        INFO("k = " << k);
        // A(k:, k:) of a matrix whose A(0, 0) is line-aligned: offset k + k * lda elements.
        CHECK(wb::tuned::symv_origin_shift(at_line<float>(1000, k + k * 1024), 1024) == k % 32);
        CHECK(wb::tuned::symv_origin_shift(at_line<float>(7, k + k * 16384), 16384) == k % 32);
        CHECK(wb::tuned::symv_origin_shift(at_line<double>(1000, k + k * 1024), 1024) == k % 16);
        CHECK(wb::tuned::symv_origin_shift(at_line<double>(3, k + k * 48), 48) == k % 16);
        // lda that is not a multiple of a line: columns start at different offsets, no common origin.
        CHECK(wb::tuned::symv_origin_shift(at_line<float>(1000, k), 1000) == 0);
        CHECK(wb::tuned::symv_origin_shift(at_line<float>(1000, k), 1025) == 0);
        CHECK(wb::tuned::symv_origin_shift(at_line<double>(1000, k), 1000) == 0);  // 1000 % 16 != 0
    }
    CHECK(wb::tuned::symv_origin_shift(at_line<float>(1000, 0), 32) == 0);
    CHECK(wb::tuned::symv_origin_shift(at_line<double>(1000, 5), 16) == 5);
}

TEST_CASE("symv_workspace_elems covers the tiles of every shifted origin", "[cpu][symv]") {
    for (int nb : {32, 64})
        for (int y : {1, 2, 4, 8})
            for (int n = 1; n <= 700; n += (n < 140 ? 1 : 37))
                for (int d = 0; d < 32; ++d) {
                    const long long nt = (static_cast<long long>(n) + d + nb - 1) / nb;  // tiles from the shifted origin
                    INFO("n = " << n << " nb = " << nb << " Y = " << y << " d = " << d);
                    CHECK(static_cast<long long>(n) * (nt + y) <=
                          static_cast<long long>(wb::tuned::symv_workspace_elems(n, nb, y)));
                }
}
