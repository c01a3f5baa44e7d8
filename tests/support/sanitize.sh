#!/usr/bin/env bash
# Runs one compute-sanitizer tool over a GPU test program. Exit 77 (skipped) where there is no
# GPU or no compute-sanitizer; otherwise the sanitizer's verdict (non-zero on any finding).
# Usage: sanitize.sh <memcheck|racecheck|initcheck|synccheck> <test program> [catch args]
set -u
tool=$1; shift
exe=$1; shift
san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null) || exit 77
[ -n "$san" ] || exit 77
nvidia-smi -L >/dev/null 2>&1 || exit 77
# The sanitizers slow kernels 10-100x: run the correctness cases on small sizes only; racecheck,
# which instruments every shared-memory access, on fewer of them where a test reads the level, and
# with the tuned GEMM's rates from the H200's table (timing them took longer than 545 s there).
if [ "$tool" = racecheck ]; then export WB_TEST_SMALL=2 WB_GEMM_RATES=preset; else export WB_TEST_SMALL=1; fi
exec "$san" --tool "$tool" --error-exitcode 1 --print-limit 20 "$exe" "$@"
