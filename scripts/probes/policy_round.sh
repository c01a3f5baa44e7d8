#!/usr/bin/env bash
# policy_round.sh — one device round for the load-policy question (scripts/probes/load_policy.cu):
# builds, runs the load-policy probe and the chapter 5 launch sweep (every cache policy), and
# leaves everything in $OUT/policy-round.tgz. Run from the repository root, carrying .deps.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
OUT=${OUT:-$root/out}
res=/tmp/policy-round
rm -rf "$res"; mkdir -p "$res"
build=${WB_BUILD_DIR:-$root/build-gpu}
bash scripts/gpu-check.sh build >"$res/gpu-check-build.txt" 2>&1 || { tail -20 "$res/gpu-check-build.txt"; exit 1; }
nvcc -O3 -std=c++17 -arch=native scripts/probes/load_policy.cu -o "$build/load_policy" && "$build/load_policy" >"$res/load-policy.txt" 2>&1
echo "load policy probe: rc=$?"
WB_PROGRESS=0 "$build"/bin/ch05_unrolled --sweep --sizes 1024,2048,4096,8192,16384 --csv "$res/sweep-ch05_unrolled.csv" \
  >"$res/sweep-ch05_unrolled.txt" 2>&1
echo "sweep: rc=$?"
tar -C /tmp -czf "$OUT/policy-round.tgz" policy-round
cat "$res/load-policy.txt"
grep -E "^(float|double)" "$res/sweep-ch05_unrolled.txt" | cut -c1-170
