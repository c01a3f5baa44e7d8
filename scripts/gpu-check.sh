#!/usr/bin/env bash
# One GPU round (architecture §8), run on the device machine from the repository root:
#   bash scripts/gpu-check.sh [stage ...]      stages: build tests perf chapters ladder shapes sweep profile sanitize grade wrong plots
#                                               (default: all but profile, in that order;
#                                               profile runs Nsight Compute on ch05 and cuBLAS)
# Configures for the visible GPU, builds with every core, runs every test label (gpu tests, perf
# ratios in their own stage, graded exercises from solutions/, cpu), the chapters with --csv, the launch sweep, the
# sanitizers and the grader, and leaves logs, CSVs and plots in $OUT (default ./out):
# results-<stages>.tgz (everything) and summary.txt. Prints a short summary last.
# Carry .deps (scripts/fetch-deps.sh) so that Catch2 and CLI11 are found.
# All stages together take longer than one device call may (10 minutes): run them in several
# calls, each rebuilding only what changed ($OUT collects each call's tarball); WB_CHECK_OPS
# limits the ladder, sweep and shapes stages to some ops; WB_LADDER_ARGS adds options to the ladder
# stage (--full: every size the pages' tables used). Estimated from the H200 runs of 2026-11-22/23:
# build ~3 min on 16 cores; tests (gpu label 4 at a time) ~3 min; perf ~1-3 min (SYMV's generates
# 16384-32768 matrices on the host); the chapters and ladders with each op's default set about a
# minute per op or less (estimated); with --full, ladders: GEMM ~4 min (naive TN at 8192 takes seconds per
# call), SYMV ~2 min, conv2d more than 3.5 min (the float half alone; naive at FS = 63 and 513 takes
# seconds per call), CG ~1.5 min at two sizes. E.g. "build tests perf", then "build ladder plots", then "build chapters plots",
# then "build sanitize grade wrong".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
OUT=${OUT:-$root/out}
mkdir -p "$OUT"
work=${WB_GPU_WORK:-/tmp/wb-gpu-check}
res=$work/results
mkdir -p "$res"
build=${WB_BUILD_DIR:-$root/build-gpu}
jobs=$(nproc)
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(build tests perf chapters ladder sweep sanitize grade wrong plots)
summary=$res/summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
has() { local s; for s in "${stages[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr ' ' '-')
gpu=${gpu:-no-gpu}
# The device copy of the tree may carry a stale .git (its HEAD is not what was copied): the
# caller passes WB_COMMIT, which the build embeds too (cmake/version.cmake).
export WB_COMMIT=${WB_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
note "gpu-check: $(date -u +%Y-%m-%dT%H:%M:%SZ) commit ${WB_COMMIT} on ${gpu}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >"$res/nvidia-smi.csv" 2>&1

# The ops the ladder, sweep and shapes stages cover: WB_CHECK_OPS ("symv conv2d") or every
# registered one. One device call may not hold every op's ladder (10 minutes): split them.
ops_to_run() { if [ -n "${WB_CHECK_OPS:-}" ]; then echo "$WB_CHECK_OPS"; else "$build"/bin/ch05_unrolled --list-ops; fi; }

if has build; then
  t0=$(date +%s)
  prefix=()
  [ -d .deps/usr ] && prefix=(-DCMAKE_PREFIX_PATH="$root/.deps/usr")
  # The exercise label grades the solutions here (the stubs fail by design; grade.sh shows them).
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWB_EXERCISES_FROM=solutions "${prefix[@]}" \
    >"$res/configure.log" 2>&1 \
    && cmake --build "$build" -j "$jobs" -- -k 0 >"$res/build.log" 2>&1
  rc=$?
  note "build: rc=$rc in $(( $(date +%s) - t0 )) s (warnings: $(grep -c 'warning' "$res/build.log" 2>/dev/null))"
  [ $rc -eq 0 ] || { tail -30 "$res/build.log"; }
fi

if has tests; then
  t0=$(date +%s)
  (cd "$build" && ctest -LE "sanitize|perf" -j"${WB_CTEST_JOBS:-4}" --output-on-failure --output-junit "$res/ctest-gpu.xml" \
     >"$res/ctest-gpu.log" 2>&1)
  note "tests (every label but sanitize and perf, ${WB_CTEST_JOBS:-4} at a time): $(grep -E 'tests passed|tests failed' "$res/ctest-gpu.log" | tail -1) in $(( $(date +%s) - t0 )) s"
  grep -E "Failed|\*\*\*" "$res/ctest-gpu.log" | head -20 | tee -a "$summary"
  grep -hE "^(float|double) [NT] n=" "$res/ctest-gpu.log" | tee -a "$summary"
  sed -n '/Label Time Summary/,/^$/p' "$res/ctest-gpu.log" | tee -a "$summary"
fi

if has perf; then
  # The perf tests alone, verbose: every measured ratio lands in the log (the thresholds cite them).
  t0=$(date +%s)
  (cd "$build" && ctest -L perf -V >"$res/ctest-perf.log" 2>&1)
  note "perf: $(grep -E 'tests passed|tests failed' "$res/ctest-perf.log" | tail -1) in $(( $(date +%s) - t0 )) s"
  grep -hE ": (float|double) [NT] n=" "$res/ctest-perf.log" | sed 's/^[0-9]*: /  /' >>"$summary"
fi

if has chapters; then
  for exe in "$build"/bin/ch0[0-9]_*; do
    name=$(basename "$exe")
    t0=$(date +%s)
    WB_PROGRESS=0 "$exe" --csv "$res/$name.csv" >"$res/$name.txt" 2>&1
    note "$name: rc=$? in $(( $(date +%s) - t0 )) s"
  done
fi

if has ladder; then
  # Every registered op's whole ladder (ch05 --ladder), one CSV per op: <op>-ladder.csv.
  for op in $(ops_to_run); do
    t0=$(date +%s)
    # shellcheck disable=SC2086
    "$build"/bin/ch05_unrolled --ladder --op "$op" --csv "$res/$op-ladder.csv" ${WB_LADDER_ARGS:-} >"$res/$op-ladder.txt" 2>&1
    note "$op ladder: rc=$? in $(( $(date +%s) - t0 )) s"
    grep -E "vs " "$res/$op-ladder.txt" | tail -12 >>"$summary"
  done
fi

if has shapes; then
  # Chapter 5's step against the peer on each op's shape set (ops that have one): <op>-shapes.csv.
  for op in $(ops_to_run); do
    t0=$(date +%s)
    "$build"/bin/ch05_unrolled --shapes --op "$op" --csv "$res/$op-shapes.csv" >"$res/$op-shapes.txt" 2>&1
    note "$op shapes: rc=$? in $(( $(date +%s) - t0 )) s"
    grep -E "vs " "$res/$op-shapes.txt" | tail -12 >>"$summary"
  done
fi

if has sweep; then
  # The launch sweep of chapter 5's step, per op, at the op's default shapes.
  t0=$(date +%s)
  for op in $(ops_to_run); do
    c=ch05_unrolled
    "$build"/bin/$c --sweep --op "$op" --csv "$res/sweep-$c-$op.csv" >"$res/sweep-$c-$op.txt" 2>&1
    note "sweep $op: rc=$?"
    grep -hE "^(float|double)" "$res/sweep-$c-$op.txt" | awk -v op="$op" '{print "  sweep", op, $0}' | cut -c1-150 >>"$summary"
  done
  note "sweeps: in $(( $(date +%s) - t0 )) s"
fi

if has profile; then
  # Nsight Compute on the tuned GEMV kernel and cuBLAS at small sizes, with the harness's own L2 flush
  # (ncu's cache control off, so the kernels meet the dirty L2 the timed calls meet) and the
  # clocks as they are. Kernel time without launch overhead, DRAM bytes read and written.
  t0=$(date +%s)
  for n in ${WB_PROFILE_SIZES:-1024 2048 4096}; do
    for p in float double; do
      for t in N T; do
        ncu --cache-control none --clock-control none --kernel-name-base demangled \
            -k 'regex:wb::tuned|^(?!.*wb::)' \
            --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
            --csv --page raw --log-file "$res/ncu-gemv-$p-$t-$n.csv" \
            "$build"/bin/ch05_unrolled --op gemv --quick --precision $p --trans $t --sizes $n >"$res/ncu-gemv-$p-$t-$n.txt" 2>&1
      done
    done
  done
  python3 scripts/ncu_summary.py "$res" >"$res/ncu-gemv-summary.txt" 2>&1
  note "profile: rc=$? in $(( $(date +%s) - t0 )) s"
  cat "$res/ncu-gemv-summary.txt" >>"$summary"
fi

if has sanitize; then
  t0=$(date +%s)
  (cd "$build" && ctest -L sanitize -j4 --output-on-failure >"$res/ctest-sanitize.log" 2>&1)
  note "sanitize: $(grep -E 'tests passed|tests failed' "$res/ctest-sanitize.log" | tail -1) in $(( $(date +%s) - t0 )) s"
fi

if has grade && [ -f scripts/grade.sh ]; then
  t0=$(date +%s)
  [ -d .deps/usr ] && export CMAKE_PREFIX_PATH="$root/.deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
  bash scripts/grade.sh --calibrate >"$res/grade-calibrate.txt" 2>&1
  note "grade --calibrate: rc=$?"
  cp exercises/grader/thresholds.txt "$res/thresholds.txt" 2>/dev/null
  for ch in ch01 ch02 ch03 ch04 ch05; do
    for mode in solutions stub; do
      flag=(); [ $mode = solutions ] && flag=(--solutions)
      t1=$(date +%s)
      bash scripts/grade.sh "$ch" "${flag[@]}" --out "$res/grade-$ch-$mode" >"$res/grade-$ch-$mode.txt" 2>&1
      note "grade $ch $mode: rc=$? in $(( $(date +%s) - t1 )) s $(grep -iE '^ *total' "$res/grade-$ch-$mode.txt" | tail -1)"
    done
  done
  note "grading took $(( $(date +%s) - t0 )) s"
fi

if has wrong; then
  # Every known-wrong submission of tests/grading/wrong/*.cu, graded like a student's (no perf;
  # the sanitizer classes included; logs in grade-wrong-<name>/).
  t0=$(date +%s)
  for f in tests/grading/wrong/*.cu; do
    w=$(basename "$f" .cu)
    d=$res/grade-wrong-$w
    mkdir -p "$d"
    t1=$(date +%s)
    "$build"/bin/wb_grading_variants run --variant "wrong_$w" --record "$d/record.txt" --no-perf >"$d/run.log" 2>&1
    "$build"/bin/wb_grade_score score --record "$d/record.txt" --out "$d" >"$res/grade-wrong-$w.txt" 2>&1
    note "grade wrong $w ($(( $(date +%s) - t1 )) s): $(grep -iE '^ *total' "$res/grade-wrong-$w.txt" | tail -1 | tr -s ' ')" \
         "[$(grep -E '^  (correctness|sanitizer): ' "$res/grade-wrong-$w.txt" | awk '{printf "%s%s=%s", (NR>1?" ":""), $2, $3}')]"
  done
  note "grading the wrong variants took $(( $(date +%s) - t0 )) s"
fi

if has plots && [ -f scripts/plot.py ]; then
  python3 scripts/plot.py "$res" >"$res/plot.log" 2>&1
  [ -f scripts/plot_ch00.py ] && python3 scripts/plot_ch00.py "$res" >>"$res/plot.log" 2>&1
  note "plots: rc=$? $(ls "$res"/*.png 2>/dev/null | wc -l) png"
fi

tar -C "$work" -czf "$OUT/results-$(printf '%s' "${stages[*]}" | tr ' ' '-').tgz" results
cp "$summary" "$OUT/summary.txt"
echo "===== summary ====="
cat "$summary"
