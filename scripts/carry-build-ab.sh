#!/usr/bin/env bash
# Builds one target at two commits for an A/B on the device (a lead's branch against main, an old
# kernel against a new one): scripts/carry-build.sh at each commit in turn, in the same build
# folder (only what differs rebuilds), the binaries kept as build-carry/bin/<target>_A and
# <target>_B and packed, xz-compressed with one window over both (they share most of their
# bytes), into build-pack/ab.txz: about 26 MB for two chapter binaries, room beside them in a
# call's 64 MiB; build-pack/ is emptied first (a call carries the folder whole). Returns to the
# commit it started from. Refuses a working tree with changes.
#
# Usage: bash scripts/carry-build-ab.sh REF_A REF_B TARGET
#   e.g. bash scripts/carry-build-ab.sh main lead/symv-columns-shape ch07_split
# On the device (carry: ["build-pack"]):
#   mkdir -p build-carry && tar xJf build-pack/ab.txz -C build-carry
#   for r in 1 2; do for v in A B; do build-carry/bin/ch07_split_$v --full --csv $OUT/$v$r.csv > $OUT/$v$r.txt; done; done
set -euo pipefail
if [ -z "${CARRY_AB_ROOT:-}" ]; then
  # bash reads a script as it runs, and a checkout below may change or remove this file: run a copy.
  copy=$(mktemp)
  cp "$0" "$copy"
  CARRY_AB_ROOT=$(cd "$(dirname "$0")/.." && pwd) exec bash "$copy" "$@"
fi
root=$CARRY_AB_ROOT
cd "$root"
[ $# -eq 3 ] || { sed -n '2,14p' "$0"; exit 2; }
a=$1 b=$2 target=$3
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "carry-build-ab: the working tree has changes; commit or stash them first" >&2
  exit 2
fi
start=$(git symbolic-ref -q --short HEAD || git rev-parse HEAD)
trap 'git checkout -q "$start"' EXIT
mkdir -p build-pack
tmp=$(mktemp -d)
for side in A B; do
  ref=$a
  [ "$side" = B ] && ref=$b
  git checkout -q "$ref"
  bash scripts/carry-build.sh "$target" > "$tmp/build-$side.log" 2>&1 || { tail -20 "$tmp/build-$side.log" >&2; exit 1; }
  cp build-carry/bin/"$target" "$tmp/${target}_$side"
  echo "carry-build-ab: $side = $ref ($(git rev-parse --short=12 HEAD))"
done
rm -rf build-carry/bin && mkdir -p build-carry/bin
mv "$tmp/${target}_A" "$tmp/${target}_B" build-carry/bin/
rm -f build-pack/*
(cd build-carry && tar cf - bin | xz -T2 --lzma2=preset=6,dict=192MiB > ../build-pack/ab.txz)
rm -rf "$tmp"
echo "carry-build-ab: $(du -h build-pack/ab.txz | cut -f1) build-pack/ab.txz"
