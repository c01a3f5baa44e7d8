#!/usr/bin/env bash
# gemm_variants.sh — probe builds of the tuned GEMM's largest float configuration (kFloat256x128
# in kernels/tuned/gemm_config.hpp), timed against the unchanged kernel in one device call.
#
# Build (here, no GPU needed; after the CMake build in build, or WB_BUILD_DIR, whose libraries gemm_bench links):
#   bash scripts/probes/gemm_variants.sh build NAME="BM, BN, BK, WM, WN, TM, TN, STAGES, MIN_BLOCKS" ...
#   e.g. bash scripts/probes/gemm_variants.sh build bk8s3="256, 128, 8, 64, 64, 16, 8, 3, 1" \
#          bk8s5="256, 128, 8, 64, 64, 16, 8, 5, 1"
# Each variant compiles the tuned GEMM's sources (kernels/tuned/gemm*.cu and
# gemm_default_rule.cpp: all read the configuration table) with WB_GEMM_PROBE_F256 pre-included
# (gemm_config.hpp's probe hook; the table's own shape otherwise) and links
# scripts/probes/gemm_bench.cu against them, before the libraries; `main` is the unchanged kernel. Binaries are stripped into build-pack/gemm-variants.tgz (carry: ["build-pack"]).
# Run (on the device machine, from the repository root):
#   bash scripts/probes/gemm_variants.sh run [ROUNDS]     (default 2)
# runs `gemm_bench --large` (4096 and 8192, NN and TN, cuBLAS in the same run) for main and every
# variant in turn, ROUNDS times, and prints one line per shape: GFLOP/s and x cuBLAS of the default
# launch. Logs: $OUT/gemm-<name>-run<i>.txt.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
mode=${1:-}
shift || true
case $mode in
  build)
    build=${WB_BUILD_DIR:-build}
    work=$(mktemp -d)
    names=(main)
    for spec in "$@"; do
      name=${spec%%=*}
      echo "#define WB_GEMM_PROBE_F256 ${spec#*=}" >"$work/$name.h"
      names+=("$name")
    done
    for name in "${names[@]}"; do
      inc=()
      [ "$name" != main ] && inc=(-include "$work/$name.h")
      objs=()
      for src in kernels/tuned/gemm*.cu kernels/tuned/gemm_default_rule.cpp; do
        obj="$work/$name-$(basename "$src").o"
        nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Ikernels -Icommon -I. "${inc[@]}" \
          -c "$src" -o "$obj"
        objs+=("$obj")
      done
      nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Ikernels -Icommon -I. scripts/probes/gemm_bench.cu \
        "${objs[@]}" "$build"/kernels/libwb_{ladder_ch05,stage_tuned,stage_access,stage_pattern,stage_shared,stage_naive,kernels_common}.a "$build/common/libwb_common.a" -lcublas -lcuda \
        -o "$work/gemm_bench_$name" 2>&1 | grep -v -i warning || true
      strip "$work/gemm_bench_$name"
      echo "gemm_variants: built $name"
    done
    mkdir -p build-pack
    printf '%s\n' "${names[@]}" >"$work/names.txt"
    tar czf build-pack/gemm-variants.tgz -C "$work" names.txt $(printf 'gemm_bench_%s ' "${names[@]}")
    rm -rf "$work"
    echo "gemm_variants: build-pack/gemm-variants.tgz ($(du -h build-pack/gemm-variants.tgz | cut -f1))" ;;
  run)
    rounds=${1:-2}
    OUT=${OUT:-$root/out}
    mkdir -p "$OUT" /tmp/gemm-variants
    tar xzf build-pack/gemm-variants.tgz -C /tmp/gemm-variants
    nvidia-smi --query-gpu=name --format=csv,noheader
    for i in $(seq "$rounds"); do
      while read -r name; do
        timeout 90 "/tmp/gemm-variants/gemm_bench_$name" --large >"$OUT/gemm-$name-run$i.txt" 2>&1 || echo "$name: rc $?"
        # shape, op, tuned GFLOP/s (x cuBLAS), cuBLAS GFLOP/s
        grep -E "^(4096|8192) " "$OUT/gemm-$name-run$i.txt" | awk -v n="$name" -v r="$i" '{print n, "run" r, $1, $2, $7, $8, $9}'
      done </tmp/gemm-variants/names.txt
    done ;;
  *) echo "usage: $0 build NAME=\"BM, BN, BK, WM, WN, TM, TN, STAGES, MIN_BLOCKS\" ... | run [ROUNDS]"; exit 2 ;;
esac
