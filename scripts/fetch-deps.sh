#!/usr/bin/env bash
# Downloads the Debian packages that the GPU machine's image lacks (header-only: Catch2, CLI11)
# and unpacks them into .deps/ (git-ignored). Run once here, then carry .deps to the device:
#   bash scripts/fetch-deps.sh          -> .deps/usr/{include,lib,share}
# Configure with -DCMAKE_PREFIX_PATH=$PWD/.deps/usr (scripts/gpu-check.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=(catch2 libcli11-dev)
mkdir -p .deps/debs
if ! ls .deps/debs/catch2_*.deb >/dev/null 2>&1 || ! ls .deps/debs/libcli11-dev_*.deb >/dev/null 2>&1; then
  command -v apt-get >/dev/null || { echo "fetch-deps: apt-get not found" >&2; exit 1; }
  (cd .deps/debs && apt-get download "${pkgs[@]}") || {
    echo "fetch-deps: apt-get download failed; run 'apt-get update' first" >&2; exit 1; }
fi
for d in .deps/debs/*.deb; do dpkg -x "$d" .deps; done
echo "fetch-deps: unpacked ${pkgs[*]} into .deps (use -DCMAKE_PREFIX_PATH=$PWD/.deps/usr)"
