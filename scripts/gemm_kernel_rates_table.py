#!/usr/bin/env python3
"""Writes kernels/tuned/gemm_kernel_rates_h200.cpp from a chapter 6 output that ran on an H200.

Chapter 6 prints, before its GEMM cases, the tuned GEMM kernels' rates measured on the device
(tuned::measure_gemm_kernel_rates): per configuration its main loop with op(A) = A^T and with
element copies, over op(A) = A with 16-byte copies, and with op(B) = B^T (NT, TT) and TN, NT, TT with element copies. Those lines become the table the default
rule reads without a GPU.

Run (repository root):
  python3 scripts/gemm_kernel_rates_table.py docs/results/h200/ch06-shapes-gemm.txt \
      > kernels/tuned/gemm_kernel_rates_h200.cpp
"""
import re
import sys

LINE = re.compile(r'^  (float|double) (tile=.*?)  op\(A\) = A\^T x([\d.]+)  element copies x([\d.]+)'
                  r'(?:  epilogue ([\d.]+) GB/s)?(?:  main loop ([\d.]+) ms)?(?:  NT x([\d.]+)  TT x([\d.]+))?(?:  TN element x([\d.]+))?(?:  NT element x([\d.]+)  TT element x([\d.]+))?$', re.M)


def table(text):
    rates = {'float': [], 'double': []}
    for m in LINE.finditer(text):
        rates[m.group(1)].append((m.group(2), m.group(3), m.group(4), m.group(5) or '0', m.group(6) or '0',
                                  m.group(7) or '0', m.group(8) or '0', m.group(9) or '0', m.group(10) or '0', m.group(11) or '0'))
    if not rates['float'] or not rates['double']:
        sys.exit('gemm_kernel_rates_table.py: no "gemm kernel rates" lines for both precisions in the input')
    return rates


def source(rates, device):
    def body(p):
        return '\n'.join(f'        {{{t}, {e}, {g}, {ms}, {nt}, {tt}, {tne}, {nte}, {tte}}},  // {tile}'
                         for tile, t, e, g, ms, nt, tt, tne, nte, tte in rates[p])
    return f'''/// \\file tuned/gemm_kernel_rates_h200.cpp
/// \\brief The kernels' rates tuned::measure_gemm_kernel_rates gave on an {device} (chapter 6 prints
///        them before its GEMM cases; \\ref notes_gemm): the default rule's without a GPU, as the
///        `h200` profile preset is the profile's. Generated from that output by
///        scripts/gemm_kernel_rates_table.py; each entry {{op(A) = A^T, element copies, epilogue GB/s,
///        the op(A) = A call's ms, NT, TT, and TN, NT, TT with element copies}} (0: not measured in that run).
#include "tuned/gemm_kernel_rates.hpp"

namespace wb::tuned {{

template <>
std::vector<GemmKernelRates> gemm_kernel_rates_h200<float>() {{
    return {{
{body('float')}
    }};
}}

template <>
std::vector<GemmKernelRates> gemm_kernel_rates_h200<double>() {{
    return {{
{body('double')}
    }};
}}

}}  // namespace wb::tuned
'''


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    text = open(sys.argv[1]).read()
    m = re.search(r'^device: (NVIDIA )?(\S+)', text, re.M)
    device = m.group(2) if m else 'H200'
    if device != 'H200':
        sys.exit(f'gemm_kernel_rates_table.py: the input ran on {device}, the table is the H200\'s')
    sys.stdout.write(source(table(text), device))


if __name__ == '__main__':
    main()
