// The tuned GEMM's default rule (kernels/tuned/gemm_default_rule.cpp, gemm_default: chapter 6's
// derivation of the configuration and split k for the call the main loop sees, packing op(A) = A^T
// and copying unaligned operands where the derived time with the copies is less), checked on the
// host: without a GPU the rule counts 132 SMs (an H100's or an H200's), each configuration's blocks
// per SM on those cards (GemmConfig::sm90_blocks) and the H200's measured kernel rates.
// The expectations are measured outcomes (H100, 2026-11-25, docs/results/h100/gemm-bench-618e685.txt
// and gemm-bench-eb48aad.txt; H200, docs/results/h200/ch06-shapes-gemm.txt).
// Run: ctest -R "gemm default rule" (or build-*/bin/wb_cpu_tests "[gemm]")
#include "catch.hpp"

#include "gemm.hpp"
#include "gemm_rule_args.hpp"

#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

using wb::Op;

wb::GemmArgs<float> args(int m, int n, int k, Op oa = Op::N, Op ob = Op::N, int ld_extra = 0) {
    return wb::test::gemm_rule_args(m, n, k, oa, ob, ld_extra);
}

wb::GemmLaunch tuned_default(const wb::GemmArgs<float>& a) { return wb::ladder<wb::GemmArgs<float>>()[4].default_launch(a); }

/// True when launch `l` of an NN or TN call with both operands unaligned runs its main loop on
/// aligned copies: each operand copied to aligned columns (align = 2) or transposed into an aligned
/// workspace (op(A) = A^T with pack_a = 2, op(B) = B with pack_b = 2).
bool reads_aligned(const wb::GemmLaunch& l, wb::Op oa) {
    const bool a = l.align == 2 || (oa == wb::Op::T && l.pack_a == 2);
    const bool b = l.align == 2 || l.pack_b == 2;
    return a && b;
}

}  // namespace

TEST_CASE("gemm default rule: large C runs the 256 x 128 tile unsplit", "[cpu][gemm]") {
    // 6000^3 (1128 tiles of 256 x 128: 9 on the busiest SM against 8.5 on average) is not here:
    // chapter 6's derivation, which the default runs, counts 8 warps of the 16 x 8 thread tile
    // against 12 of 128 x 64's 8 x 8 and that tile's fuller last wave, and derives 128 x 64 there
    // (an H200 sweep of 6000^3 decides it; the H100 bench above predates the derivation).
    for (int s : {4096, 8192})
        for (Op oa : {Op::N, Op::T}) {
            const auto l = tuned_default(args(s, s, s, oa));
            INFO(s << " " << wb::op_char(oa) << "N: " << l.str());
            CHECK(l.tile_m == 256);
            CHECK(l.tile_n == 128);
            CHECK(l.split_k == 0);
        }
    // Short k on a large C: the tiles fill the GPU, nothing to gain from a split.
    CHECK(tuned_default(args(4096, 4096, 256)).split_k == 0);
    CHECK(tuned_default(args(16384, 256, 4096)).split_k == 0);
}

TEST_CASE("gemm default rule: a small C with a long k is split", "[cpu][gemm]") {
    // 1024^2 is 32 tiles of 256 x 128 for 132 SMs: unsplit 0.69x cuBLAS, split 0.94x (1024^3);
    // 1024 x 1024 x 16384 unsplit 0.48x, split 0.85x.
    for (int k : {1024, 16384, 5003})
        for (Op oa : {Op::N, Op::T}) {
            const auto a = args(1024, 1024, k, oa);
            const auto l = tuned_default(a);
            INFO("1024 x 1024 x " << k << " " << wb::op_char(oa) << "N: " << l.str());
            CHECK(l.split_k >= 2);
            CHECK(l.split_k <= 1024);
            // The workspace the rule may ask for: at most 512 MB of partials.
            CHECK(static_cast<double>(l.split_k) * a.m * a.n * sizeof(float) <= 512.0 * 1024 * 1024);
        }
    CHECK(tuned_default(args(256, 192, 8192)).split_k >= 2);
    // A short k leaves nothing to split: each slice must hold at least one BK = 16 step.
    CHECK(tuned_default(args(64, 64, 16)).split_k == 0);
    CHECK(tuned_default(args(1024, 1024, 32)).split_k <= 2);
}

TEST_CASE("gemm default rule: unaligned operands are copied to aligned columns where that pays", "[cpu][gemm]") {
    // 4097 (lda 4097: element copies): 256 x 128 measured 0.62x cuBLAS there, 128 x 128 0.76x;
    // copied to aligned columns (2 x 67 MB at 2.5 TB/s, 54 us) a large tile's 16-byte path runs:
    // 128 x 64 with aligned copies was the fastest launch of the sweep there (H100, 3.37 ms, 0.93x
    // cuBLAS; docs/results/h100/gemm-rule-sweep-21208ec.txt), 256 x 128 3.7 ms.
    // A transposed copy (pack_a, pack_b = 2) is aligned too: the main loop then reads no
    // unaligned operand, whether the rule copies or transposes it.
    for (Op oa : {Op::N, Op::T}) {
        const auto l = tuned_default(args(4097, 4097, 4097, oa));
        INFO(l.str());
        CHECK(reads_aligned(l, oa));
        CHECK(l.align + l.pack_a + l.pack_b >= 2);  // something copied
        CHECK(l.tile_m * l.tile_n >= 128 * 64);     // a large tile's 16-byte path
        // The same product with aligned columns (ld 4100): nothing to copy for alignment.
        const auto al = tuned_default(args(4097, 4097, 4097, oa, Op::N, 3));
        INFO(al.str());
        CHECK(al.align == 0);
        CHECK(al.tile_m * al.tile_n >= 128 * 64);
    }
    // k = 1 (B 1 x n, ldb = 1: unaligned): C's bytes are the time, a copy only adds to it (the
    // aligned copy ran 8192^2 x 1 at 0.79x cuBLAS on the H200, the element path at 1.11x).
    for (Op oa : {Op::N, Op::T}) {
        const auto k1 = tuned_default(args(8192, 8192, 1, oa));
        INFO(k1.str());
        CHECK(k1.align == 1);
    }
    // Small: the copy's launch costs more than the element path loses; the element-copy rates
    // still choose the tile (128 x 128 before 256 x 128, whose element path is the slowest).
    const auto small = tuned_default(args(200, 200, 200, Op::N, Op::N, 1));
    INFO(small.str());
    CHECK(small.align == 1);
}

TEST_CASE("gemm default rule: op(A) = A^T packs A where the transpose costs less than the main loop's penalty",
          "[cpu][gemm]") {
    // The direct kernels read op(A) = A^T at their measured rate (the H200's without a GPU: 256 x
    // 128 0.965 of its op(A) = A rate, 128 x 64 0.80; tuned::gemm_kernel_rates_h200); the transpose
    // moves 2 m k elements once at the copy ceiling. Large m, n, k: pack; n of a few dozen: the
    // transpose costs more. (At 2048^3 and 6000^3 the two lie within a few us: either.)
    CHECK(tuned_default(args(5000, 5000, 3000, Op::T)).pack_a == 2);  // the 128 x 64 tile's 0.80
    for (int s : {4096, 8192}) {
        const auto l = tuned_default(args(s, s, s, Op::T));
        INFO(s << " TN: " << l.str());
        CHECK(l.pack_a == 2);
        CHECK(l.str().find("pack A") != std::string::npos);
        CHECK(tuned_default(args(s, s, s, Op::N)).pack_a == 0);  // nothing to pack
    }
    CHECK(tuned_default(args(8192, 8192, 8192, Op::T, Op::T)).pack_a == 2);
    CHECK(tuned_default(args(4096, 32, 4096, Op::T)).pack_a == 1);   // n = 32: 2 m k bytes against a short main loop
    CHECK(tuned_default(args(64, 64, 64, Op::T)).pack_a == 1);       // the launch alone costs more than the penalty
    // The workspace: m x k at most 512 MB (ldt x k x 4 bytes).
    CHECK(tuned_default(args(16384, 16384, 16384, Op::T)).pack_a == 1);  // 1 GiB of A
}

TEST_CASE("gemm default rule: op(B) = B packs a B that is small beside the product", "[cpu][gemm]") {
    // The kernels read op(B) = B through registers; NT and TT take B straight into place (the
    // H200's rates without a GPU: 128 x 64 TT 0.958 of NN against TN 0.917). The transpose moves
    // 2 k n elements once. Run 73 (H200) measured the rule's pack of B at 8192 x 33 x 8192 TN
    // 0.89x -> 0.95x cuBLAS, 8192 x 64 x 8192 TN 0.91x -> 0.93x; where B is the large operand its
    // transpose costs more than the loop gains (the probe: 64 x 8192 x 8192 0.98x -> 0.58x). In NN
    // the prefetching 128 x 64 runs NT at NN's rate (1.007): 20000 x 300 x 3000 NN reads B in place
    // (0.93x cuBLAS in place in session 19, 0.94x-0.97x packed in earlier runs: docs/notes/gemm.md),
    // its TN packs B.
    for (const auto& a : {args(8192, 33, 8192, Op::T), args(8192, 64, 8192, Op::T), args(20000, 300, 3000, Op::T)}) {
        const auto l = tuned_default(a);
        INFO(a.m << " x " << a.n << " x " << a.k << ": " << l.str());
        CHECK(l.pack_b == 2);
        CHECK(l.str().find("pack B") != std::string::npos);
    }
    CHECK(tuned_default(args(64, 8192, 8192)).pack_b == 1);
    CHECK(tuned_default(args(64, 8192, 8192, Op::T)).pack_b == 1);
    CHECK(tuned_default(args(64, 64, 64)).pack_b == 1);  // the launch alone costs more than the path
    CHECK(tuned_default(args(8192, 64, 8192, Op::T, Op::T)).pack_b == 0);  // op(B) = B^T: nothing to pack
    // The workspace: n x k at most 512 MB.
    CHECK(tuned_default(args(16384, 16384, 16384)).pack_b == 1);  // 1 GiB of B
}

TEST_CASE("gemm default rule: a small C with a very long k is split into hundreds of slices", "[cpu][gemm]") {
    // 64 x 64 x 2^20 is one 64 x 64 tile: 16 slices left 116 of 132 SMs idle (0.10x cuBLAS on the
    // H100, docs/results/h100/gemm-shapes-float-base.txt).
    for (Op oa : {Op::N, Op::T}) {
        const auto l = tuned_default(args(64, 64, 1 << 20, oa));
        INFO("64 x 64 x 2^20 " << wb::op_char(oa) << "N: " << l.str());
        CHECK(l.split_k >= 128);
    }
}

TEST_CASE("gemm default rule: one column or one row of C with contiguous vectors runs as a GEMV", "[cpu][gemm]") {
    for (Op oa : {Op::N, Op::T}) {
        CHECK(tuned_default(args(8192, 1, 8192, oa)).gemv == 2);
        CHECK(tuned_default(args(37, 1, 5, oa)).gemv == 2);
        CHECK(tuned_default(args(8192, 1, 8192, oa, Op::N, 3)).gemv == 2);  // lda, ldb padded: x is still B's column
        auto bt = args(8192, 1, 8192, oa, Op::T);
        CHECK(tuned_default(bt).gemv == 2);  // op(B) = B^T, B 1 x k with ldb = 1
        bt.ldb = 4;
        CHECK(tuned_default(bt).gemv == 0);  // x would be 4 elements apart: the tiles
        CHECK(tuned_default(args(8192, 2, 8192, oa)).gemv == 0);
    }
    for (Op ob : {Op::N, Op::T}) {
        auto row = args(1, 8192, 8192, Op::T, ob);
        CHECK(tuned_default(row).gemv == 2);  // A k x 1: x is A's column; C 1 x n with ldc = 1
        row.ldc = 2;
        CHECK(tuned_default(row).gemv == 0);  // C's row 2 elements apart
        auto rn = args(1, 8192, 8192, Op::N, ob);
        CHECK(tuned_default(rn).gemv == 2);  // A 1 x k with lda = 1
        rn.lda = 3;
        CHECK(tuned_default(rn).gemv == 0);
    }
    CHECK(tuned_default(args(64, 64, 64)).gemv == 0);
}

TEST_CASE("gemm default rule: a C of 2 ... 16 columns or rows runs the 16-wide tiles", "[cpu][gemm]") {
    // A 64 x 64 tile does n / 64 of its FMAs useful there (8192 x 16 x 8192: 0.44x cuBLAS on the
    // H100 with it, docs/results/h100/gemm-shapes-float-base.txt).
    for (Op oa : {Op::N, Op::T})
        for (int s : {2, 8, 16}) {
            const auto n16 = tuned_default(args(8192, s, 8192, oa));
            INFO("8192 x " << s << " x 8192 " << wb::op_char(oa) << "N: " << n16.str());
            CHECK(n16.tile_n == 16);
            const auto m16 = tuned_default(args(s, 8192, 8192, oa));
            INFO(s << " x 8192 x 8192 " << wb::op_char(oa) << "N: " << m16.str());
            CHECK(m16.tile_m == 16);
        }
    CHECK(tuned_default(args(8192, 64, 8192)).tile_n == 64);
    CHECK(tuned_default(args(4096, 4096, 4096)).tile_n == 128);
}

TEST_CASE("gemm default rule: k is split in 2^j or 3 x 2^j slices, and both kinds are picked", "[cpu][gemm]") {
    // Powers of two alone left gaps a wave wide (a49fc16: 3 x 2^j added; on an H100 over 130
    // calls no call slower by more than 3%, the H100 split3 rule checks, kept in git at f1df966: docs/notes/gemm.md).
    auto on_grid = [](int s) {
        if (s == 0) return true;  // no split
        const int p = s % 3 == 0 ? s / 3 : s;
        return s >= 2 && s <= 1024 && (p & (p - 1)) == 0;
    };
    bool three = false, two = false;
    for (int m : {1000, 2048, 4097, 5000, 8192})
        for (int n : {16, 64, 777, 1536})
            for (int k : {1024, 3333, 8192}) {
                const auto l = tuned_default(args(m, n, k));
                INFO(m << " x " << n << " x " << k << ": " << l.str());
                CHECK(on_grid(l.split_k));
                three = three || (l.split_k > 0 && l.split_k % 3 == 0);
                two = two || (l.split_k > 1 && l.split_k % 3 != 0);
            }
    CHECK(three);
    CHECK(two);
}

TEST_CASE("gemm default rule: a pick does not depend on the calls before it (the cache's key)", "[cpu][gemm]") {
    // The rule keeps its picks per thread (gemm_default_tiled in kernels/tuned/gemm_default_rule.cpp), keyed by
    // what it reads. Were a field it reads missing from the key, a call could get the pick of an
    // earlier one that differs only there: the same calls in the opposite order, in a thread of
    // their own (an empty cache), would then pick differently.
    std::vector<wb::GemmArgs<float>> calls;
    for (const auto& mnk : std::vector<std::vector<int>>{{4097, 4097, 4097}, {1000, 777, 3333}, {8192, 16, 8192},
                                                         {64, 64, 1 << 20}, {3333, 3333, 100}})
        for (Op oa : {Op::N, Op::T})
            for (int ld_extra : {0, 3})
                for (float beta : {0.5f, 0.f}) {
                    auto a = args(mnk[0], mnk[1], mnk[2], oa, Op::N, ld_extra);
                    a.beta = beta;
                    calls.push_back(a);
                    a.A += 1;  // an offset base pointer: unaligned columns with an aligned ld
                    calls.push_back(a);
                }
    auto picks = [&](bool reverse) {
        std::vector<std::string> out(calls.size());
        std::thread t([&] {
            for (std::size_t i = 0; i < calls.size(); ++i) {
                const std::size_t j = reverse ? calls.size() - 1 - i : i;
                out[j] = tuned_default(calls[j]).str();
            }
        });
        t.join();
        return out;
    };
    const auto forward = picks(false), backward = picks(true);
    for (std::size_t i = 0; i < calls.size(); ++i) {
        INFO(i << ": " << forward[i] << " | " << backward[i]);
        CHECK(forward[i] == backward[i]);
    }
    // The calls differ in their picks (configuration, split, packing, copies), so that a key that
    // lost a field would show: at least two per shape.
    const std::set<std::string> distinct(forward.begin(), forward.end());
    INFO(distinct.size() << " distinct picks");
    CHECK(distinct.size() >= 10);
}

TEST_CASE("gemm default rule: copies weighed at the derivation's resolution, the most reuse first", "[cpu][gemm]") {
    // 4000^3 with odd leading dimensions: 128 x 128 reading its operands element by element and
    // 256 x 128 on aligned copies lie within 1/16 of each other in the derived time; the larger
    // thread tile (16 x 8: 0.75 operand elements per FMA against 1) wins, as on the H200 (256 x 128
    // with aligned copies 3.04 ms, docs/results/h200/gemm-shapes-float.txt; 128 x 128 in place
    // 3.16 ms, run 53 in docs/notes/gemm.md).
    for (Op oa : {Op::N, Op::T}) {
        const auto l = tuned_default(args(4000, 4000, 4000, oa, Op::N, 1));
        INFO(wb::op_char(oa) << "N 4000^3 ld+1: " << l.str());
        CHECK(l.tile_m == 256);
        CHECK(reads_aligned(l, oa));  // copied, or transposed (pack_a, pack_b = 2: aligned too)
    }
}
