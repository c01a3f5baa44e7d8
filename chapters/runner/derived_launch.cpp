/// \file derived_launch.cpp
/// \brief Chapter 6's derivations as the tuned steps' launches (derived_launch.hpp).
#include "derived_launch.hpp"

#include "tuned/gemm_kernel_rates.hpp"

#include "tuned/conv2d_rules.hpp"
#include "tuned/dgemm_tensor_core.hpp"
#include "tuned/gemm_default_rule.hpp"
#include "tuned/gemm_kernel_rates.hpp"
#include "tuned/symv_layout.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace wb::ch06 {

namespace {
int as_int(const derive::Derivation& d, const std::string& p) { return static_cast<int>(d.value(p)); }
}  // namespace

derive::Derivation derive_gemv_call(const DeviceProfile& dev, const GemvShape& s) { return gemv_derivation(dev, s); }

GemvLaunch gemv_launch_of(const derive::Derivation& d, bool trans) { return wb::gemv_launch_of(d, trans); }

std::string gemm_kernel_rates_text(int elem_bytes, bool live) {
    const char* name = elem_bytes == 8 ? "double" : "float";
    const std::vector<tuned::GemmKernelRates>& r =
        elem_bytes == 8 ? tuned::gemm_kernel_rates<double>(live) : tuned::gemm_kernel_rates<float>(live);
    const std::vector<GemmLaunch> configs =
        elem_bytes == 8 ? tuned::gemm_rate_launches<double>() : tuned::gemm_rate_launches<float>();
    std::string out = std::string("gemm kernel rates, ") + name +
                      (live ? " (measured on this device" : " (an H200's, measured by this chapter") +
                      ": each configuration's main loop with op(A) = A^T and with element copies, over op(A) = A "
                      "with 16-byte copies, and with op(B) = B^T (NT, TT) and each of TN, NT, TT with element copies "
                      "over NN; the derivation multiplies its rate by them; and the bytes of C its "
                      "epilogue moves per second where it is the kernel, the bandwidth the derivation moves each "
                      "tile of C at where it is less than the DRAM's; and the op(A) = A call's own time, over "
                      "which the model sets the tensor cores' main loop)\n";
    for (std::size_t i = 0; i < r.size() && i < configs.size(); ++i) {
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "  op(A) = A^T x%.3f  element copies x%.3f  epilogue %.0f GB/s  main loop %.4f ms  NT x%.3f  TT x%.3f"
                      "  TN element x%.3f  NT element x%.3f  TT element x%.3f",
                      r[i].transposed_a, r[i].element, r[i].epilogue_gbs, r[i].main_ms, r[i].op_nt, r[i].op_tt,
                      r[i].tn_element, r[i].nt_element, r[i].tt_element);
        out += std::string("  ") + name + " " + configs[i].str() + buf + "\n";
    }
    return out;
}

template <class T>
GemmDerived derive_gemm_call(const DeviceProfile& dev, const GemmArgs<T>& a, bool live) {
    GemmDerived g;
    const std::vector<GemmLaunch> configs = tuned::gemm_configs<T>();
    try {
        g.derivation = tuned::gemm_derivation(a, dev, live, true);  // the GEMV or the tensor cores, if either
        const GemmLaunch l = tuned::gemm_launch_of(g.derivation, configs);
        if (l.gemv != 2 && l.math != 2) {  // the tiles: the call the main loop runs
            // With the tensor cores among the candidates (they lost to the tiles on `a`, and the
            // copies only speed the tiles up), so that the `math` line says by how much; then the
            // copies' choices, each with the alternatives' derived times.
            std::vector<derive::Derived> copies;
            g.derivation = tuned::gemm_derivation(tuned::gemm_copies_view(a, dev, live, &copies), dev, live, true);
            g.derivation.params.insert(g.derivation.params.end(), copies.begin(), copies.end());
        }
        g.launch = tuned::gemm_derived_launch(a, dev, live);
        g.runs = true;
        if constexpr (std::is_same_v<T, double>) {  // the tensor cores' copies, with both derived times
            derive::Derived align;
            if (g.launch.math == 2 && tuned::gemm_tc_align_line(a, dev, live, &align)) g.derivation.params.push_back(align);
        }
        // The tensor cores' tile and split come from their kernel's own rule (tuned/dgemm_tc_rule.hpp:
        // waves of the resident blocks, the occupancy calculator's on a GPU, the kernel's sm_90
        // count for a profile; Little's law for the bytes in flight), which chapter 5 runs too; say
        // so where it differs from the lines above.
        if (g.launch.math == 2) {
            const auto v = [&](const char* p) {
                for (const derive::Derived& x : g.derivation.params)
                    if (x.parameter == p) return x.value;
                return 0LL;
            };
            const long long split = std::max(1, g.launch.split_k);
            const long long tm = g.launch.tile_m > 0 ? g.launch.tile_m : tuned::kDgemmTcTile.tile_m;
            const long long tn = g.launch.tile_n > 0 ? g.launch.tile_n : tuned::kDgemmTcTile.tile_n;
            if (split != std::max(1LL, v("split_k")) || tm != v("tile_m") || tn != v("tile_n"))
                g.derivation.params.push_back(
                    {"tensor-core launch", split, "the tensor-core kernel's own rule (dgemm_tc_rule)",
                     "tile " + std::to_string(tm) + " x " + std::to_string(tn) + ", split " + std::to_string(split) +
                         ": what chapter 5 and this chapter run; the lines above are the derivation's estimate",
                     false});
        }
    } catch (const std::invalid_argument&) {
        // None of the configurations fits `dev` (the T10's 16 KB): White's procedure, or the
        // rules over the powers of two.
        g.derivation = derive::derive_gemm(dev, a.m, a.n, a.k, sizeof(T));
    }
    return g;
}
template GemmDerived derive_gemm_call<float>(const DeviceProfile&, const GemmArgs<float>&, bool);
template GemmDerived derive_gemm_call<double>(const DeviceProfile&, const GemmArgs<double>&, bool);

derive::Derivation derive_symv_call(const DeviceProfile& dev, long long n, long long lda, int elem_bytes) {
    return derive::derive_symv(dev, n, elem_bytes, lda % (16 / elem_bytes) == 0, lda * elem_bytes);
}

SymvLaunch symv_launch_of(const derive::Derivation& d, const char* prefix) { return tuned::symv_launch_of(d, prefix); }

Conv2dLaunch conv2d_launch_of(const derive::Derivation& d) { return tuned::conv2d_launch_of(d); }

derive::Derivation derive_conv2d_call(const DeviceProfile& dev, long long rows, long long cols, int fs, int elem_bytes,
                                      bool vector_rows) {
    const auto configs = elem_bytes == 4 ? tuned::conv2d_configs<float>(fs) : tuned::conv2d_configs<double>(fs);
    return derive::derive_conv2d(dev, rows, cols, fs, elem_bytes, tuned::conv2d_derive_tiles(configs), vector_rows);
}

CgLaunch cg_launch_of(const derive::Derivation& d, const CgLaunch& deflt) {
    CgLaunch l = deflt;
    l.block = as_int(d, "vec.block");
    l.check_every = as_int(d, "check");
    l.schedule = as_int(d, "schedule");
    return l;
}

}  // namespace wb::ch06
