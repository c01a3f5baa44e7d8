#!/usr/bin/env bash
# CPU test of op_rubric_check.sh (the grading-label check of the op exercises' variants) with a
# stand-in runner that writes a recorded op record: each verdict is accepted when the record
# bears it out and refused when it does not, and a runner without a GPU (77) is a skip.
# Usage: test_op_rubric_check.sh SCORER DATA_DIR
set -u
scorer=$1 data=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
fake="$tmp/runner"
# The stand-in: `run --exercise E --variant V --record FILE` copies $data/<V>.txt; variant nogpu exits 77.
cat > "$fake" <<'FAKE'
#!/usr/bin/env bash
variant="" record=""
while [ $# -gt 0 ]; do case "$1" in --variant) variant=$2; shift ;; --record) record=$2; shift ;; esac; shift; done
[ "$variant" = nogpu ] && exit 77
cp "$WB_FAKE_DATA/$variant.txt" "$record"
FAKE
chmod +x "$fake"
export WB_FAKE_DATA=$data
failures=0
expect_rc() {  # expect_rc RC VARIANT VERDICT [EXPECT]
  local want=$1; shift
  bash "$here/op_rubric_check.sh" "$fake" "$scorer" /nonexistent-thresholds "$tmp/out" gemv_batched "$@" > "$tmp/log" 2>&1
  local rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL: op_rubric_check.sh $* exited $rc, expected $want"; cat "$tmp/log"; failures=$((failures + 1))
  else
    echo "ok: $* -> $rc"
  fi
}
expect_rc 0 op_record_gemv_solution passes
expect_rc 1 op_record_gemv_solution fails "wrong values"
expect_rc 0 op_record_gemv_missing_beta fails "wrong values: y[0] = nan"
expect_rc 1 op_record_gemv_missing_beta fails "outside y"
expect_rc 1 op_record_gemv_missing_beta passes
expect_rc 0 op_record_gemv_slow slower
expect_rc 1 op_record_gemv_missing_beta slower
expect_rc 77 nogpu fails "wrong values"
[ "$failures" = 0 ] && echo "all verdicts checked" || exit 1
