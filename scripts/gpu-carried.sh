#!/usr/bin/env bash
# One GPU round from binaries built elsewhere (scripts/carry-build.sh), run on the device machine
# from the repository root with `carry: ["build-pack"]` (the archive is unpacked into build-carry/;
# `carry: ["build-carry"]` works too while the binaries fit): no configure, no build, so the device's
# time goes to the GPU. Logs and CSVs land in $OUT (default ./out), and all of them in $OUT/results.tgz
# (a device call returns at most 8 files); a short summary is printed
# last. Stages run in the order given:
#   gpu[=FILTER]       the gpu tests (Catch2 filter, e.g. gpu="[symv],[conv2d]"; default: all)
#   perf[=FILTER]      the perf tests, verbose (every measured ratio lands in the log)
#   sanitize[=FILTER]  compute-sanitizer memcheck, initcheck and synccheck over the gpu tests at
#                      the small sizes (WB_TEST_SMALL=1); racecheck, about five times memcheck's
#                      time, only when asked (WB_SANITIZERS="racecheck", or a list of tools;
#                      WB_TEST_SMALL=2 there, fewer shapes where a test reads it, and
#                      WB_GEMM_RATES=preset: the tuned GEMM's rates from the H200's table)
#   ladder=OP[,OP]     ch05_unrolled --ladder per op (WB_LADDER_ARGS adds options, e.g. --precision float;
#                      --full: every size the pages' tables used)
#   sweep=OP[,OP]      ch05_unrolled --sweep per op
#   shapes=OP[,OP]     ch05_unrolled --shapes per op
#   derived=OP[,OP]    ch06_derived --sweep --quick per op, every swept launch's predicted and
#                      measured time in $OUT/<op>-launches.csv (--launches-csv: scripts/launch_ranks.py
#                      reads it); WB_DERIVED_ARGS adds options, e.g. --shapes for the held-out set
#   chapters           every chapter binary with --csv
#   chapter=chNN:OP[,OP]  one chapter binary for some ops (e.g. chapter=ch05:cg: issue 13's benchmark)
#   only-on=TEXT       end the round here unless the GPU's name contains TEXT (e.g. only-on=H200:
#                      a call that asked for an H200 and got another card spends no more time)
# Each stage has its own time limit (WB_STAGE_SECONDS, default 240) so that one slow stage cannot
# take the whole call (a device call ends at 10 minutes). The gpu and sanitize stages deal their
# cases round robin over WB_SHARDS processes (default: one per GPU, each on its own; more than the
# GPUs share them): on one H200 the whole gpu suite at full sizes takes longer than one stage's
# limit, and racecheck over it longer than a call (docs/notes/gemm.md, session 41).
# Example: bash scripts/gpu-carried.sh gpu="[cg]" perf="[cg]" ladder=cg
#          bash scripts/gpu-carried.sh only-on=H200 chapter=ch05:cg perf="[cg]"
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin=$root/build-carry/bin
OUT=${OUT:-$root/out}
mkdir -p "$OUT"
limit=${WB_STAGE_SECONDS:-240}
summary=$OUT/summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
[ -f build-pack/bin.tgz ] && { mkdir -p build-carry && tar xzf build-pack/bin.tgz -C build-carry; }
[ -x "$bin/wb_gpu_tests" ] || { echo "gpu-carried: no $bin/wb_gpu_tests: run scripts/carry-build.sh first and carry build-pack"; exit 2; }
# cuDNN from the Python environment's nvidia/cudnn package, where the device image keeps it.
cudnn=$(python3 -c 'import nvidia.cudnn as m; print(list(m.__path__)[0])' 2>/dev/null || true)
[ -n "$cudnn" ] && export LD_LIBRARY_PATH=$cudnn/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
note "gpu-carried: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"

run_stage() {  # name, log, command...
  local name=$1 log=$2; shift 2
  local t0; t0=$(date +%s)
  timeout "$limit" "$@" >"$log" 2>&1
  local rc=$?
  note "$name: rc=$rc in $(( $(date +%s) - t0 )) s$([ $rc -eq 124 ] && echo " (stopped at its $limit s limit)")"
  grep -hE "^(test cases|assertions|All tests passed)" "$log" | tail -2 | sed 's/^/  /' | tee -a "$summary"
}

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$gpus" -ge 1 ] 2>/dev/null || gpus=1
shards=${WB_SHARDS:-$gpus}

# A test stage over the cases `filter` selects: one process when shards = 1, else one process per
# shard on GPU (shard mod GPUs), each given its share of the case names (Catch's -f; a comma in a
# name escaped). Each case's time is logged (-d yes). Logs: STEM.log, or STEM-shardN.log.
run_tests() {  # name, log stem, filter, command... (the test program last)
  local name=$1 stem=$2 filter=$3; shift 3
  if [ "$shards" -le 1 ]; then run_stage "$name" "$stem.log" "$@" ${filter:+"$filter"} -d yes; return; fi
  local exe=${*: -1} i lists
  lists=$(mktemp -d)  # not under $OUT: a device call returns few files, and the logs name the cases
  "$exe" ${filter:+"$filter"} --list-test-names-only 2>/dev/null | grep -v '^$' | sed 's/,/\\,/g' |
    awk -v n="$shards" -v d="$lists" '{ print > (d "/shard" (NR - 1) % n ".txt") }'
  for ((i = 0; i < shards; i++)); do
    [ -s "$lists/shard$i.txt" ] || continue
    run_stage "$name (shard $i of $shards, GPU $((i % gpus)))" "$stem-shard$i.log" \
      env CUDA_VISIBLE_DEVICES=$((i % gpus)) "$@" -f "$lists/shard$i.txt" -d yes &
  done
  wait
  rm -rf "$lists"
}

for stage in "$@"; do
  key=${stage%%=*}
  arg=$([ "$key" != "$stage" ] && echo "${stage#*=}")
  tag=$(echo "${arg:-all}" | tr -c 'A-Za-z0-9\n' '_')  # letters, digits, '_': names the device tool returns
  case $key in
    gpu) run_tests "gpu $arg" "$OUT/gpu-$tag" "$arg" "$bin/wb_gpu_tests" ;;
    perf)
      run_stage "perf $arg" "$OUT/perf-$tag.log" "$bin/wb_perf_tests" ${arg:+"$arg"} -s -d yes
      grep -hE " is [0-9.]+x|: [0-9.]+x" "$OUT/perf-$tag.log" | head -40 >>"$summary" ;;
    sanitize)
      for tool in ${WB_SANITIZERS:-memcheck initcheck synccheck}; do
        run_tests "sanitize $tool $arg" "$OUT/sanitize-$tool-$tag" "$arg" \
          env WB_TEST_SMALL=$([ "$tool" = racecheck ] && echo 2 || echo 1) \
          $([ "$tool" = racecheck ] && echo WB_GEMM_RATES=preset) compute-sanitizer --tool "$tool" --error-exitcode 1 --print-limit 20 "$bin/wb_gpu_tests"
        grep -hE "(ERROR|RACECHECK) SUMMARY" "$OUT/sanitize-$tool-$tag"*.log | sed 's/^/  /' | tee -a "$summary"
      done ;;
    ladder|sweep|shapes)
      for op in ${arg//,/ }; do
        # shellcheck disable=SC2086
        run_stage "$key $op" "$OUT/$op-$key.txt" env WB_PROGRESS=0 "$bin/ch05_unrolled" --"$key" --op "$op" \
          --csv "$OUT/$op-$key.csv" ${WB_LADDER_ARGS:-}
        grep -hE "vs |best" "$OUT/$op-$key.txt" | tail -12 >>"$summary"
      done ;;
    derived)
      for op in ${arg//,/ }; do
        # shellcheck disable=SC2086
        run_stage "derived $op" "$OUT/$op-derived.txt" env WB_PROGRESS=0 "$bin/ch06_derived" --sweep --quick --op "$op" \
          --csv "$OUT/$op-derived.csv" --launches-csv "$OUT/$op-launches.csv" ${WB_DERIVED_ARGS:-}
        grep -hE "derived / the sweep" "$OUT/$op-derived.txt" | tail -2 >>"$summary"
      done ;;
    chapters)
      for exe in "$bin"/ch0[0-9]_*; do
        name=$(basename "$exe")
        run_stage "$name" "$OUT/$name.txt" env WB_PROGRESS=0 "$exe" --csv "$OUT/$name.csv"
      done ;;
    chapter)
      ch=${arg%%:*} ops=${arg#*:}
      exe=$(ls "$bin"/"$ch"_* 2>/dev/null | head -1)
      [ -n "$exe" ] && [ "$ops" != "$arg" ] || { note "gpu-carried: chapter=$arg: want chNN:OP[,OP] with $bin/chNN_* present"; exit 2; }
      name=$(basename "$exe")-$(echo "$ops" | tr -c 'A-Za-z0-9\n' '_')
      run_stage "$name" "$OUT/$name.txt" env WB_PROGRESS=0 "$exe" --op "$ops" --csv "$OUT/$name.csv" ;;
    only-on)
      gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
      if [[ "$gpu_name" != *"$arg"* ]]; then
        note "gpu-carried: only-on=$arg: this card is '${gpu_name:-none}'; the stages after it not run"
        break
      fi ;;
    *) note "gpu-carried: unknown stage '$stage' (gpu, perf, sanitize, ladder, sweep, shapes, derived, chapters, chapter, only-on)"; exit 2 ;;
  esac
done
# A device call returns at most 8 files from $OUT: every log and CSV also travels in one archive.
tar czf "$OUT/results.tgz" -C "$OUT" --exclude results.tgz . 2>/dev/null
echo "===== summary ====="
cat "$summary"
