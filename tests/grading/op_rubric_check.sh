#!/usr/bin/env bash
# One variant of an op exercise through the whole rubric (CTest labels gpu and grading): the op
# runner grades it into a record, the scorer writes the rubric, and this checks the verdict:
#   passes  the total reaches the pass mark (the solution)
#   fails   the total is below the pass mark and the rubric names the expected finding
#   slower  below the pass mark with no performance points ("speed ... the reference")
# Usage: op_rubric_check.sh RUNNER SCORER THRESHOLDS OUT EXERCISE VARIANT VERDICT [EXPECT]
# Exit 77 (skipped) without a GPU, as the runner does.
set -u
runner=$1 scorer=$2 thresholds=$3 out=$4 exercise=$5 variant=$6 verdict=$7 expect=${8:-}
pass_mark=70  # kPassMark, grading_op.hpp
rm -rf "$out" && mkdir -p "$out" || exit 1
"$runner" run --exercise "$exercise" --variant "$variant" --record "$out/record.txt"
rc=$?
[ "$rc" = 77 ] && exit 77
[ "$rc" = 0 ] || { echo "FAIL: the runner exited $rc"; exit 1; }
"$scorer" score-op --record "$out/record.txt" --thresholds "$thresholds" --out "$out" > "$out/rubric.txt" 2>&1 ||
  { cat "$out/rubric.txt"; echo "FAIL: the scorer failed"; exit 1; }
cat "$out/rubric.txt"
total=$(awk -F'\t' '!/^#/ { s += $2 } END { printf "%.1f", s }' "$out/items.tsv")
below=$(awk -v t="$total" -v m="$pass_mark" 'BEGIN { print (t < m) ? 1 : 0 }')
echo "total $total, pass mark $pass_mark"
case "$verdict" in
  passes) [ "$below" = 0 ] || { echo "FAIL: the solution scores below the pass mark"; exit 1; } ;;
  fails|slower)
    [ "$below" = 1 ] || { echo "FAIL: a known-wrong variant reaches the pass mark"; exit 1; }
    if [ "$verdict" = slower ]; then
      grep -q $'^performance vs reference\t0\\.0\t.*speed .*x the reference' "$out/items.tsv" ||
        { echo "FAIL: the rubric does not say it is slower than the reference"; exit 1; }
    elif [ -n "$expect" ]; then
      grep -qF -- "$expect" "$out/rubric.txt" || { echo "FAIL: the rubric does not name the finding '$expect'"; exit 1; }
    fi ;;
  *) echo "FAIL: unknown verdict $verdict"; exit 1 ;;
esac
echo "ok: $exercise $variant $verdict"
