#!/usr/bin/env bash
# flush_compare.sh — does the L2 flush's own write-back land in the timed call?
#
# The harness flushes the L2 before every timed call by writing a buffer of twice its size
# (architecture §5). That leaves the L2 full of dirty lines, and the timed kernel's first misses must
# write them back: up to one L2 (60 MB on an H200) of DRAM writes charged to a kernel that only
# reads. This probe times the same binaries with the write-only flush (WB_L2_FLUSH=write, the
# default) and with the write-then-read flush (WB_L2_FLUSH=write_read: clean lines; common/bench.cu),
# and the plain read stream of scripts/probes/read_floor.cu under both.
#
# Run on the device machine from the repository root (after scripts/fetch-deps.sh, carrying .deps):
#   bash scripts/probes/flush_compare.sh          -> $OUT/flush-compare/*.{txt,csv}
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
OUT=${OUT:-$root/out}
res=$OUT/flush-compare
mkdir -p "$res"
build=${WB_BUILD_DIR:-$root/build-gpu}
bash scripts/gpu-check.sh build >"$res/gpu-check-build.txt" 2>&1 || { tail -20 "$res/gpu-check-build.txt"; exit 1; }
nvcc -O3 -std=c++17 -arch=native scripts/probes/read_floor.cu -o "$build/read_floor" && "$build/read_floor" >"$res/read-floor.txt" 2>&1
for mode in write write_read; do
  WB_PROGRESS=0 WB_L2_FLUSH=$mode "$build"/bin/ch05_unrolled --csv "$res/ch05-$mode.csv" >"$res/ch05-$mode.txt" 2>&1
  echo "ch05 with flush $mode: rc=$?"
done
WB_PROGRESS=0 "$build"/bin/ch05_unrolled --sweep --precision double --trans N --sizes 1024,2048,4096,8192,16384 \
  --csv "$res/sweep-double-N-write_read.csv" >"$res/sweep-double-N-write_read.txt" 2>&1
echo "sweep double N (write_read): rc=$?"
echo "===== read floor ====="
cat "$res/read-floor.txt"
echo "===== tuned and cuBLAS, both flushes ====="
for mode in write write_read; do
  echo "-- flush $mode"
  grep -E "ch05 tuned|cuBLAS" "$res/ch05-$mode.txt" | awk '{print $1,$2,$3,$4,$5,$6,$7,$8,$NF}' | head -40
done
echo "===== sweep best ====="
grep -E "^(float|double)" "$res/sweep-double-N-write_read.txt" | cut -c1-160
