#!/usr/bin/env bash
# A stand-in for grade.sh's one-submission path (WB_GRADE_ONE in scripts/grade-class.sh), so the
# class test runs without nvcc or a GPU. It acts on a line "// class-test: <what>" in the
# submission's transpose.cu: nocompile | hang | exit | crash | nogpu | solved | race.
#   fake_grade_one.sh CHAPTER --submission DIR --out DIR [ignored options]
set -uo pipefail
ch=$1 sub=$3 out=$5
data=$(cd "$(dirname "${BASH_SOURCE[0]}")/../data" && pwd)
src=$sub/transpose.cu
[ -f "$src" ] || src=$sub/$ch/transpose.cu
what=$(sed -n 's#^// class-test: ##p' "$src")
echo "fake grade of $src: $what"
case "$what" in
  nocompile)
    echo "transpose.cu(4): error: identifier \"tile\" is undefined" > "$out/build.log"
    "$WB_GRADE_SCORE" build-failed --chapter "$ch" --log "$out/build.log" --out "$out"; exit 1 ;;
  hang) sleep 987; exit 0 ;;           # a child that never finishes: the limit must kill it
  exit) kill -TERM $$; sleep 5 ;;      # dies mid-run, as a submission calling exit would leave it
  crash) kill -SEGV $$ ;;
  nogpu) echo "no CUDA device"; exit 77 ;;
  solved) exec "$WB_GRADE_SCORE" score --record "$data/record_solution_ch03.txt" --out "$out" ;;
  race) exec "$WB_GRADE_SCORE" score --record "$data/record_race_ch03.txt" --out "$out" ;;
  *) echo "no class-test line in $src" >&2; exit 2 ;;
esac
