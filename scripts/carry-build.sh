#!/usr/bin/env bash
# Builds, on a machine without a GPU, the binaries a device call runs, so that no device time goes
# to building (architecture §8): the gpu and perf test programs and the chapter binaries, copied
# to build-carry/bin, stripped, and packed into build-pack/bin.tgz (about 24 MB for the default
# targets: the binaries themselves, ~18 MB each, do not fit a call's 64 MiB beside the tree).
# Carry the archive (`carry: ["build-pack"]`); scripts/gpu-carried.sh unpacks it and runs them on
# the device.
#
# NPP: the device image has it, a build machine's CUDA install may not. Where CMake finds no
# CUDA::nppif, NVIDIA's `nvidia-npp` wheel (PyPI, matching the toolkit's major version) supplies
# headers and libraries for this build only; at run time the loader takes the device's own NPP of
# the same major version (libnppif.so.<major>). cuDNN likewise comes from the device's Python
# `nvidia/cudnn` package at run time (gpu-carried.sh sets LD_LIBRARY_PATH).
#
# Usage: bash scripts/carry-build.sh [target ...]
#   (default targets: wb_gpu_tests wb_perf_tests ch00_memory ch05_unrolled; ch05_unrolled --ladder
#   runs every step; name ch01_global ... ch04_access explicitly, a few at a time, for the chapter
#   tables: each adds about 6 MB to the archive; a probe of scripts/probes by its name, e.g.
#   cg_schedule_probe, lands in build-carry/bin too)
#   WB_CARRY_BUILD   the build folder (default build-carry-obj: reused, so later calls rebuild only
#                    what changed)
#   CUDA_ARCH        the CUDA architecture (default 90: H100 and H200)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${WB_CARRY_BUILD:-build-carry-obj}
arch=${CUDA_ARCH:-90}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(wb_gpu_tests wb_perf_tests ch00_memory ch05_unrolled)

nvcc_dir=$(dirname "$(command -v nvcc)")
cuda_root=$(cd "$nvcc_dir/.." && pwd)
major=$(nvcc --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
npp=()
if ! ls "$cuda_root"/lib*/libnppif.so* >/dev/null 2>&1 && ! ls "$cuda_root"/targets/*/lib/libnppif.so* >/dev/null 2>&1; then
  # No NPP in the toolkit: the wheel, unpacked once under .whl/ (git ignores it).
  wheel_dir=$root/.whl/npp
  if [ ! -d "$wheel_dir/nvidia" ]; then
    mkdir -p "$wheel_dir"
    python3 -m pip download --quiet --no-deps "nvidia-npp>=${major},<$((major + 1))" -d "$root/.whl"
    python3 -m zipfile -e "$(ls "$root"/.whl/nvidia_npp-*.whl | head -1)" "$wheel_dir"
  fi
  inc=$(dirname "$(find "$wheel_dir" -name npp.h | head -1)")
  lib=$(dirname "$(find "$wheel_dir" -name "libnppif.so.*" | head -1)")
  echo "carry-build: NPP from the nvidia-npp wheel ($lib)"
  npp=(-DCUDA_nppif_LIBRARY="$(ls "$lib"/libnppif.so.* | head -1)" -DCUDA_nppc_LIBRARY="$(ls "$lib"/libnppc.so.* | head -1)"
       -DCMAKE_CXX_FLAGS="-isystem $inc" -DCMAKE_CUDA_FLAGS="-isystem $inc")
fi

prefix=()
[ -d .deps/usr ] && prefix=(-DCMAKE_PREFIX_PATH="$root/.deps/usr")
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" \
      -DWB_BUILD_EXERCISES=OFF "${prefix[@]}" "${npp[@]}" >/dev/null
grep -q "WB_HAVE_NPP" "$build"/build.ninja || echo "carry-build: note: this build has no NPP peer"
cmake --build "$build" --target "${targets[@]}"
rm -rf build-carry/bin
mkdir -p build-carry/bin build-pack
for t in "${targets[@]}"; do [ -f "$build/bin/$t" ] && cp "$build/bin/$t" build-carry/bin/; done
strip build-carry/bin/*  # host symbols only: the device code and its line info stay
tar czf build-pack/bin.tgz -C build-carry bin
du -sh build-pack/bin.tgz | sed 's/^/carry-build: /'
echo "carry-build: commit $(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- . ':!docs' || echo ' (uncommitted changes)')"
