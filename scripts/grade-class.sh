#!/usr/bin/env bash
# Grades a whole class (`./workbook grade chNN --class DIR`, docs/pages/instructor.md).
#
#   grade-class.sh CHAPTER CLASS_DIR OUT_DIR [options of grade.sh for one submission]
#
# Every entry of CLASS_DIR is one student: a folder (a copy of exercises/, or a flat
# transpose.cu) or a single file <student>.cu. Each student is graded by grade.sh in a process
# of its own under a time limit (WB_GRADE_TIMEOUT seconds, default 120; timeout kills the
# whole process group), so a submission that hangs, crashes its CUDA context or calls exit
# stops only its own run. Results land in OUT_DIR/<student>/ (results.json, junit.xml, the logs,
# grade.log with everything the run printed, and `exit`, its exit code); then
# OUT_DIR/class.csv gets one row per student: student, status, item scores, total, max, findings.
#
# Environment: WB_GRADE_TIMEOUT; WB_GRADE_ONE (the command grading one student, default
# "bash scripts/grade.sh"; the tests put a stand-in there); WB_GRADE_SCORE (the scorer program,
# default the grade build's bin/wb_grade_score). Exit: 0 when the CSV was written, 2 otherwise.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "grade --class: $*" >&2; exit 2; }

[ $# -ge 3 ] || die "usage: grade-class.sh CHAPTER CLASS_DIR OUT_DIR [grade.sh options]"
chapter=$1 class=$2 out=$3
shift 3
limit=${WB_GRADE_TIMEOUT:-120}
[[ "$limit" =~ ^[1-9][0-9]*$ ]] || die "WB_GRADE_TIMEOUT ($limit) must be a whole number of seconds > 0"
[ -d "$class" ] || die "--class: no folder $class"
class=$(cd "$class" && pwd)
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
case "$out/" in "$class"/*) die "--out ($out) must not lie inside the class folder ($class)";; esac
bd=${WB_GRADE_BUILD:-$root/build-grade}
if [ -n "${WB_GRADE_ONE:-}" ]; then read -r -a one <<< "$WB_GRADE_ONE"; else one=(bash "$root/scripts/grade.sh"); fi
score=${WB_GRADE_SCORE:-$bd/bin/wb_grade_score}
file=${WB_GRADE_FILE:-transpose.cu}  # the file each student hands in (grade.sh --exercise E: E.cu,
                                     # with WB_GRADE_EXERCISE=E for the op rubric's items)
staging="$out/.staging"
rm -rf "$staging"

n=0
for entry in "$class"/*; do
  [ -e "$entry" ] || continue
  name=$(basename "$entry")
  if [ -d "$entry" ]; then
    student=$name sub=$entry
  elif [ -f "$entry" ] && [ "${name%.cu}" != "$name" ]; then
    # One file per student: graded as that student's $file.
    student=${name%.cu} sub="$staging/$student"
    mkdir -p "$sub" && cp "$entry" "$sub/$file"
  else
    echo "grade --class: skipping $name (neither a folder nor a .cu file)" >&2
    continue
  fi
  sdir="$out/$student"
  rm -rf "$sdir" && mkdir -p "$sdir"
  n=$((n + 1))
  echo "grade --class: [$n] $student"
  start=$SECONDS
  if ! find "$sub" -name "$file" -print -quit 2>/dev/null | grep -q .; then
    # Nothing to compile: scored as a build failure that says so, not as a grader error.
    echo "error: no $file in $student's submission (expected $chapter/$file or $file)" > "$sdir/build.log"
    "$score" build-failed --chapter "$chapter" ${WB_GRADE_EXERCISE:+--exercise "$WB_GRADE_EXERCISE"} \
      --log "$sdir/build.log" --out "$sdir" > "$sdir/grade.log" 2>&1
    echo 1 > "$sdir/exit"
    echo "grade --class:     no $file: scored 0"
    continue
  fi
  # Its own process group under timeout (which signals the whole group); WB_GRADE_CLASS_CHILD
  # tells grade.sh to keep its runner in that group, so nothing outlives the limit.
  WB_GRADE_CLASS_CHILD=1 timeout -k 10 "$limit" "${one[@]}" "$chapter" --submission "$sub" --out "$sdir" "$@" \
    > "$sdir/grade.log" 2>&1 < /dev/null
  rc=$?
  echo "$rc" > "$sdir/exit"
  echo "grade --class:     exit $rc after $((SECONDS - start)) s (log: $sdir/grade.log)"
done
rm -rf "$staging"
[ "$n" -gt 0 ] || die "$class holds no submissions (folders or .cu files)"
"$score" class-csv --dir "$out" --csv "$out/class.csv" --timeout "$limit" || die "writing the CSV failed"
