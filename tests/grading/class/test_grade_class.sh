#!/usr/bin/env bash
# CPU test of `grade --class` (scripts/grade-class.sh): a class of seven students, one folder or
# file each, graded through a stand-in for the one-submission path (fake_grade_one.sh); checks
# that a hang is cut at the time limit (its child included), that a run that dies or crashes
# stops only itself, and that class.csv has one row per student saying what happened.
#   test_grade_class.sh <wb_grade_score>
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
export WB_GRADE_SCORE=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
check() { if ! eval "$1"; then echo "FAILED: $2" >&2; fail=1; fi; }

class=$work/class
mkdir -p "$class/alice/ch03_pattern" "$class/bob" "$class/carol" "$class/dave" "$class/erin" "$class/notes"  # notes: an empty folder
sub() { printf '// class-test: %s\n__global__ void k() {}\n' "$1"; }
sub solved > "$class/alice/ch03_pattern/transpose.cu"  # a copy of exercises/
sub race > "$class/bob/transpose.cu"                   # a flat transpose.cu
sub nocompile > "$class/carol/transpose.cu"
sub hang > "$class/dave/transpose.cu"
sub exit > "$class/erin/transpose.cu"
sub crash > "$class/frank.cu"                          # one file per student
sub nogpu > "$class/gus.cu"
echo "not a submission" > "$class/README.txt"          # skipped

start=$SECONDS
WB_GRADE_TIMEOUT=3 WB_GRADE_ONE="bash $here/fake_grade_one.sh" \
  bash "$root/scripts/grade-class.sh" ch03_pattern "$class" "$work/out" > "$work/class.log" 2>&1
rc=$?
took=$((SECONDS - start))
cat "$work/class.log"
check "[ $rc -eq 0 ]" "grade-class.sh exit $rc"
check "[ $took -lt 30 ]" "the class took $took s: the hang was not cut at 3 s"
if command -v pgrep >/dev/null; then
  # A killed group's last process may take a moment to be reaped on a loaded machine: up to 5 s.
  for _ in 1 2 3 4 5 6 7 8 9 10; do pgrep -f 'sleep 987' >/dev/null || break; sleep 0.5; done
  check "! pgrep -f 'sleep 987' >/dev/null" "the hanging run's child outlived the time limit (by 5 s)"
fi
csv=$work/out/class.csv
check "[ -f '$csv' ]" "no class.csv"
cat "$csv"
row() { grep "^$1," "$csv"; }
check "[ \$(wc -l < '$csv') -eq 9 ]" "class.csv: a header and 8 rows (alice bob carol dave erin frank gus notes)"
check "head -1 '$csv' | grep -q '^student,status,correctness: small,.*,total,max,findings$'" "header"
check "row alice | grep -q '^alice,graded,10.0,10.0,10.0,10.0,5.0,5.0,5.0,5.0,'" "alice: graded, full correctness"
check "row bob | grep -q 'sanitizer: racecheck: '" "bob: the racecheck finding"
check "row carol | grep -q '^carol,did not compile,0.0,.*build: transpose.cu(4): error'" "carol: did not compile, with the error"
check "row dave | grep -q '^dave,timed out after 3 s,.*,0.0,,timed out after 3 s$'" "dave: timed out"
check "row erin | grep -q '^erin,crashed (signal 15),'" "erin: stopped mid-run"
check "row frank | grep -q '^frank,crashed (signal 11),'" "frank: crashed"
check "row gus | grep -q '^gus,no GPU: not graded,.*,,,no GPU: not graded$'" "gus: no GPU, total left empty"
check "row notes | grep -q '^notes,did not compile,0.0,.*error: no transpose.cu'" "notes: an empty folder scores 0 and says why"
check "! grep -q README '$csv'" "README.txt is no student"
check "[ -f '$work/out/alice/results.json' ] && [ -f '$work/out/dave/grade.log' ]" "per-student results and logs"
check "[ ! -e '$work/out/.staging' ]" "the staging folder of single-file students is removed"
exit $fail
