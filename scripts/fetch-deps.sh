#!/usr/bin/env bash
# Downloads the Debian packages that the GPU machine's image lacks (header-only: Catch2, CLI11;
# OpenBLAS's CBLAS header and link library for chapter 7's CPU peers, with its runtime library so
# the link finds what the symlink names) and unpacks them into .deps/ (git-ignored). Run once here, then carry .deps to the device:
#   bash scripts/fetch-deps.sh          -> .deps/usr/{include,lib,share}
# Configure with -DCMAKE_PREFIX_PATH=$PWD/.deps/usr (scripts/gpu-check.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=(catch2 libcli11-dev libopenblas-dev libopenblas-pthread-dev libopenblas0-pthread)
mkdir -p .deps/debs
have_all=1
for p in "${pkgs[@]}"; do ls .deps/debs/"${p}"_*.deb >/dev/null 2>&1 || have_all=0; done
if [ "$have_all" = 0 ]; then
  command -v apt-get >/dev/null || { echo "fetch-deps: apt-get not found" >&2; exit 1; }
  (cd .deps/debs && apt-get download "${pkgs[@]}") || {
    echo "fetch-deps: apt-get download failed; run 'apt-get update' first" >&2; exit 1; }
fi
for d in .deps/debs/*.deb; do dpkg -x "$d" .deps; done
echo "fetch-deps: unpacked ${pkgs[*]} into .deps (use -DCMAKE_PREFIX_PATH=$PWD/.deps/usr)"
