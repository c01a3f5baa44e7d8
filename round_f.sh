#!/usr/bin/env bash
set -uo pipefail
OUT=${OUT:-out}; rm -rf "$OUT/r"; mkdir -p "$OUT/r"; R=$OUT/r
mkdir -p build-carry && tar xzf build-pack/bin.tgz -C build-carry; B=build-carry/bin
mkdir -p old && gunzip -c build-pack/old/ch05_unrolled.gz > old/ch05_unrolled && chmod +x old/ch05_unrolled
cudnn=$(python3 -c 'import nvidia.cudnn as m; print(list(m.__path__)[0])' 2>/dev/null || true)
[ -n "$cudnn" ] && export LD_LIBRARY_PATH=$cudnn/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
echo "card: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) $(date -u +%FT%TZ)" | tee $R/summary.txt
T0=$(date +%s); left() { echo $(( 575 - ($(date +%s) - T0) )); }
st() { local lim=$1 log=$2; shift 2; local l=$(left); [ $l -lt 15 ] && { echo "skip $log" | tee -a $R/summary.txt; return; }
  [ $lim -gt $l ] && lim=$l; local t=$(date +%s); timeout $lim "$@" >$R/$log 2>&1; echo "$log rc=$? $(( $(date +%s)-t ))s" | tee -a $R/summary.txt; }
st 100 gpu-symv-cg-streams.log $B/wb_gpu_tests "[symv],[cg],[streams]" -d yes
S=1024,2048,4096,8192,16384
st 40 symv-new-run1.txt $B/ch05_unrolled --op symv --sizes $S --csv $R/symv-new-run1.csv
st 40 symv-old-run1.txt old/ch05_unrolled --op symv --sizes $S --csv $R/symv-old-run1.csv
st 140 cg-new.txt $B/ch05_unrolled --op cg --csv $R/cg-new.csv
st 140 cg-old.txt old/ch05_unrolled --op cg --csv $R/cg-old.csv
st 60 sanitize-memcheck-symv.log env WB_TEST_SMALL=1 compute-sanitizer --tool memcheck --error-exitcode 1 $B/wb_gpu_tests "[symv],[cg]"
st 60 sanitize-racecheck-symv.log env WB_TEST_SMALL=2 compute-sanitizer --tool racecheck --error-exitcode 1 $B/wb_gpu_tests "[symv]"
st 120 perf-symv-cg.log $B/wb_perf_tests "[symv],[cg]" -s -d yes
grep -E "passed|failed" $R/gpu-*.log | tail -1; grep "ERROR SUMMARY" $R/sanitize-*.log
for f in $R/symv-*-run1.txt $R/cg-*.txt; do echo "== $f"; grep -A12 "summary" $f | grep -E "vs|x " | head -14; done
tar -C $OUT -czf $OUT/all.tgz r
