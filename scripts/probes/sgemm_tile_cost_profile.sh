#!/usr/bin/env bash
# sgemm_tile_cost_profile.sh — where does the tuned SGEMM lose at 4096^3 what it keeps at 8192^3?
#
# cuBLAS runs both squares at one rate; the tuned kernel is about 3% slower at 4096 than at 8192
# with the same 256 x 128 tile and the same fill of its waves, so the loss is a cost per tile or
# per call (docs/notes/gemm.md, session 25). Nsight Compute at the boost clock on the default
# launch and cuBLAS at both sizes (gemm_rule_sweep's `rule` mode: the rule's launch and cuBLAS
# only): duration, SM clock, active against elapsed cycles, DRAM bytes read and written, the FMA
# pipe's share, instructions. Prints each kernel of more than 1 ms (the rates the rule measures
# first are shorter). Not chapter 5's binary: it launches every step's kernels many times, and
# two profiles of it ran past 200 s each without a line (session 26).
#
# Run on the device machine from the repository root (a build with gemm_rule_sweep,
# scripts/probes/CMakeLists.txt):
#   bash scripts/probes/sgemm_tile_cost_profile.sh [path/to/gemm_rule_sweep]
set -uo pipefail
bin=${1:-build/bin/gemm_rule_sweep}
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_active.avg,sm__cycles_elapsed.avg,dram__bytes_read.sum,dram__bytes_write.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed.sum
for n in 4096 8192; do
  echo "== $n x $n x $n NN: kernels over 1 ms"
  log=$(mktemp)
  [[ $(basename "$bin") == gemm_rule_sweep* ]] || { echo "want gemm_rule_sweep, not $bin"; exit 2; }
  args=(--shape "$n,$n,$n" N rule)
  timeout 150 ncu --profile-from-start off --clock-control none --metrics "$M" --kernel-name-base demangled --kernel-name regex:"gemm_impl|sgemm|gemm_f32|xmma" \
    --launch-count 400 "$bin" "${args[@]}" >"$log" 2>&1
  python3 - "$log" <<'PY'
import re, sys
blocks, cur = [], None
for line in open(sys.argv[1]):
    if re.match(r'^  \S', line) and ('gemm' in line or 'xmma' in line):
        cur = {'name': line.strip()[:90]}
        blocks.append(cur)
    elif cur is not None:
        f = line.split()
        if len(f) >= 3 and re.match(r'^[a-z_]+__', f[0]):
            cur[f[0]] = f[-1] + ' ' + f[-2]
for b in blocks:
    v, u = (b.get('gpu__time_duration.sum', '0 ms').split() + ['ms'])[:2]
    ms = float(v.replace(',', '')) * {'us': 1e-3, 'usecond': 1e-3, 'ns': 1e-6, 'nsecond': 1e-6}.get(u, 1)
    if ms > 1.0:
        print(b)
PY
  rm -f "$log"
done
