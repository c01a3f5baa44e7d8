#!/usr/bin/env bash
# The reliability checks on the GPU machine, from binaries built elsewhere (scripts/carry-build.sh;
# carry build-pack, as for scripts/gpu-carried.sh): each check prints its command, its exit code,
# the seconds it took and the lines that show the outcome; logs and CSVs go to $OUT (default ./out).
# About 3 minutes of GPU time in all (estimated: not yet run on a GPU).
#   1. sizes that do not fit: five oversized runs answered at once (exit 3), a run of a size that
#      fits beside one that does not (exit 3, the small one's table), the launchers' workspace and
#      buffer allocation failures (gpu tests "[allocation]")
#   2. an unwritable --csv: exit 2 before anything runs
#   3. a run stopped by SIGINT, then one by SIGTERM: exit 130 / 143, the CSV ends with its
#      "(incomplete)" row, the GPU idle afterwards
#   4. misaligned bases: correctness (gpu tests "[misaligned]") and speed (perf tests "[misaligned]",
#      the ratio per op printed)
#   6. determinism (gpu tests "[determinism]")
# Usage: bash scripts/reliability-check.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin=$root/build-carry/bin
OUT=${OUT:-$root/out}
mkdir -p "$OUT"
[ -f build-pack/bin.tgz ] && { mkdir -p build-carry && tar xzf build-pack/bin.tgz -C build-carry; }
for exe in ch05_unrolled wb_gpu_tests wb_perf_tests; do
  [ -x "$bin/$exe" ] || { echo "reliability-check: no $bin/$exe: run scripts/carry-build.sh first and carry build-pack"; exit 2; }
done
cudnn=$(python3 -c 'import nvidia.cudnn as m; print(list(m.__path__)[0])' 2>/dev/null || true)
[ -n "$cudnn" ] && export LD_LIBRARY_PATH=$cudnn/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export WB_PROGRESS=0
summary=$OUT/reliability.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
say "reliability-check on $(nvidia-smi --query-gpu=name,memory.total,memory.free --format=csv,noheader 2>/dev/null | head -1); host $(awk '/MemAvailable/ {printf "%.1f GiB available", $2 / 1048576}' /proc/meminfo)"

# check NAME LIMIT_SECONDS PATTERN COMMAND...: runs the command, prints rc, seconds, the lines
# matching PATTERN (and the last lines where none match).
check() {
  local name=$1 limit=$2 pattern=$3; shift 3
  local log=$OUT/$name.log t0 t1 rc
  t0=$(date +%s.%N)
  timeout "$limit" "$@" >"$log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  say ""
  say "\$ $*"
  say "  rc=$rc in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s"
  { grep -E "$pattern" "$log" || tail -5 "$log"; } | head -12 | sed 's/^/  | /' | tee -a "$summary"
}

# 1. Sizes that do not fit: the answer and the time to it.
ch5=$bin/ch05_unrolled
check gemv-140000 60 "skipped" "$ch5" --op gemv --sizes 140000 --precision double
check symv-140000 60 "skipped" "$ch5" --op symv --sizes 140000 --precision double
check cg-140000 60 "skipped" "$ch5" --op cg --sizes 140000 --precision double
check conv2d-200000 60 "skipped" "$ch5" --op conv2d --sizes 200000 --precision double
check gemm-100000 60 "skipped" "$ch5" --op gemm --sizes 100000 --precision double
check gemv-mixed 120 "skipped|double +N +4096" "$ch5" --op gemv --sizes 4096,140000 --precision double --trans N --quick
check allocation 120 "test cases|All tests|FAILED|cannot allocate" "$bin/wb_gpu_tests" "[allocation]"

# 2. An unwritable --csv.
check csv-nonexistent 30 "csv" "$ch5" --op gemv --csv /nonexistent/x.csv

# 3. Stopped runs keep their table: SIGINT after 15 s, SIGTERM after 15 s (a long GEMM run: the
#    ceilings first, then float cases from 1024 on).
stopped() {  # name signal
  local name=$1 sig=$2 csv=$OUT/$1.csv t0 rc
  t0=$(date +%s)
  "$ch5" --op gemm --precision both --csv "$csv" >"$OUT/$name.log" 2>&1 &
  local pid=$!
  sleep 15
  kill -s "$sig" "$pid" 2>/dev/null || say "  (the run had ended before the signal)"
  wait "$pid"
  rc=$?
  say ""
  say "\$ ch05_unrolled --op gemm --precision both --csv $csv   (kill -s $sig after 15 s)"
  say "  rc=$rc after $(( $(date +%s) - t0 )) s; $(grep -c . "$csv" 2>/dev/null) CSV lines, the last:"
  tail -1 "$csv" 2>/dev/null | cut -c1-200 | sed 's/^/  | /' | tee -a "$summary"
  grep -E "stopped by" "$OUT/$name.log" | sed 's/^/  | /' | tee -a "$summary"
  say "  GPU after: $(nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader 2>/dev/null | head -1)"
}
stopped sigint INT
stopped sigterm TERM

# 4 and 6. Misaligned bases (correct, then fast) and determinism.
check misaligned-gpu 240 "test cases|All tests|FAILED" "$bin/wb_gpu_tests" "[misaligned]"
check determinism-gpu 240 "test cases|All tests|FAILED" "$bin/wb_gpu_tests" "[determinism]"
check misaligned-perf 240 "misaligned .*x$|test cases|All tests|FAILED" "$bin/wb_perf_tests" "[misaligned]"

say ""
say "reliability-check: logs and CSVs in $OUT"
