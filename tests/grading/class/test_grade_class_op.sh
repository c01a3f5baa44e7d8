#!/usr/bin/env bash
# CPU test of `./workbook grade ch01 --exercise gemv_batched --class DIR` (scripts/grade.sh with
# scripts/grade-class.sh): each student's gemv_batched.cu graded through a stand-in for the
# one-submission path that scores recorded op records, one CSV row per student with the op
# rubric's columns, a student without gemv_batched.cu scored 0 saying so.
# Usage: test_grade_class_op.sh SCORER
set -uo pipefail
scorer=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
failures=0
check() { if eval "$1"; then echo "ok: $2"; else echo "FAIL: $2"; failures=$((failures + 1)); fi; }

cat > "$work/fake_one.sh" <<'FAKE'
#!/usr/bin/env bash
# fake one-student grade: CHAPTER --submission DIR --out DIR --exercise E ...: the file's
# "// op-test: <record>" line names the recorded op record to score.
ch=$1 sub=$3 out=$5 ex=$7
src=$sub/$ex.cu
[ -f "$src" ] || src=$sub/$ch/$ex.cu
rec=$(sed -n 's#^// op-test: ##p' "$src")
exec "$WB_GRADE_SCORE" score-op --record "$WB_OP_DATA/$rec.txt" --out "$out"
FAKE
class=$work/class
mkdir -p "$class/alice/ch01_global" "$class/carol"
echo "// op-test: op_record_gemv_solution" > "$class/alice/ch01_global/gemv_batched.cu"
echo "// op-test: op_record_gemv_missing_beta" > "$class/bob.cu"
echo "// a transpose, not the exercise" > "$class/carol/transpose.cu"

WB_OP_DATA="$here/../data" WB_GRADE_ONE="bash $work/fake_one.sh" WB_GRADE_SCORE="$scorer" \
  bash "$root/scripts/grade.sh" ch01 --exercise gemv_batched --class "$class" --out "$work/out" > "$work/log" 2>&1
rc=$?
cat "$work/log"
csv=$work/out/class.csv
check "[ $rc -eq 0 ]" "grade.sh --exercise --class exit $rc"
check "[ -f '$csv' ]" "no class.csv"
cat "$csv" 2>/dev/null
check "head -1 '$csv' | grep -q 'correctness: beta0_poisoned'" "the CSV has the op rubric's columns"
check "! head -1 '$csv' | grep -q 'correctness: rectangular'" "and not the transpose track's"
check "grep -q '^alice,graded,.*,100.0,100.0,' '$csv'" "alice (the solution's record) has full marks"
check "grep -q '^bob,graded,.*wrong values: y\\[0\\] = nan' '$csv'" "bob's row names his finding"
check "grep -q '^carol,did not compile,.*no gemv_batched.cu' '$csv'" "carol, without gemv_batched.cu, scores 0 saying so"
[ "$failures" = 0 ] && echo "all checks passed" || exit 1
