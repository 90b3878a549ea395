#!/usr/bin/env bash
# device-bundle.sh: builds, on this (CPU) machine, what device-check.sh runs on
# a lent GPU machine that has CUDA, cuBLASLt and NCCL but none of the Debian
# packages tpnet builds with (fmt, yaml-cpp, CLI11, Eigen, Catch2) and no
# network. The bundle holds the three binaries and the small shared libraries
# the GPU machine lacks; cuBLASLt (540 MB) and NCCL (220 MB) are too large to
# carry and are taken from the GPU machine by device-check.sh.
#
# Usage: calibration/scripts/device-bundle.sh [BUILD_DIR]   (default: build-device in the repo)
#   Writes BUILD_DIR/bundle/{bin,lib,MANIFEST}; carry BUILD_DIR/bundle to the device.
#   CUDA_HOME  CUDA toolkit with cuBLASLt and NCCL (default /usr/local/cuda)
#
# Built Release with CUDA on and MPI off (one process is one rank: the GPU
# machine has no MPI), libstdc++ and libgcc linked statically (the GPU
# machine's may be older or newer than Debian 12's), the CUDA runtime carried
# (the version the code was compiled against).
# Exit: 0 built, 1 the build failed, 2 a prerequisite is missing.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$repo/build-device}
cuda_home=${CUDA_HOME:-/usr/local/cuda}
bundle=$build/bundle
say() { printf 'device-bundle: %s\n' "$*" >&2; }

for tool in cmake g++ strip ldd; do
  command -v "$tool" >/dev/null 2>&1 || { say "missing $tool"; exit 2; }
done
[[ -f $cuda_home/include/cublasLt.h ]] || { say "no cuBLASLt under $cuda_home (set CUDA_HOME)"; exit 2; }

mkdir -p "$build"
say "configuring $build (Release, CUDA on, MPI off, static libstdc++)"
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTPNET_WITH_CUDA=ON -DTPNET_WITH_MPI=OFF \
  -DCUDAToolkit_ROOT="$cuda_home" -DTPNET_BUILD_TESTS=ON -DTPNET_BUILD_BENCHMARKS=OFF \
  -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" >"$build/bundle-configure.log" 2>&1 ||
  { tail -20 "$build/bundle-configure.log" >&2; say "configure failed ($build/bundle-configure.log)"; exit 1; }
jobs=${BUNDLE_JOBS:-2}
say "building tpnet, tpnet-calibrate and tpnet_calibrate_tests with $jobs jobs"
cmake --build "$build" -j"$jobs" --target tpnet tpnet-calibrate tpnet_calibrate_tests \
  >"$build/bundle-build.log" 2>&1 ||
  { tail -30 "$build/bundle-build.log" >&2; say "build failed ($build/bundle-build.log)"; exit 1; }

rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/lib"
cp "$build/cli/tpnet" "$build/calibration/tpnet-calibrate" \
  "$build/calibration/tests/tpnet_calibrate_tests" "$bundle/bin/"
strip "$bundle"/bin/*

# Every shared library the binaries need but the GPU machine's base system,
# CUDA and NCCL provide: what ldd resolves outside /lib and /usr/lib's glibc
# set, i.e. the Debian packages (fmt, yaml-cpp) and the CUDA runtime.
# libstdc++ (which the shared fmt and yaml-cpp need) goes to fallback/:
# device-check.sh uses it only when the GPU machine's own is older, since a
# newer system one serves Debian 12's programs and ours would shadow it.
provided_there='^(linux-vdso|ld-linux|libc|libm|libdl|librt|libpthread|libgcc_s|libcublasLt|libcublas|libnccl)\.'
mkdir -p "$bundle/fallback"
while read -r name path; do
  if [[ $name =~ $provided_there ]]; then continue; fi
  if [[ $name == libstdc++.so.* ]]; then
    cp -L "$path" "$bundle/fallback/$name"
  else
    cp -L "$path" "$bundle/lib/$name"
  fi
done < <(ldd "$bundle"/bin/* | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u)

{
  echo "# device bundle: carry this folder to the GPU machine; run calibration/scripts/device-check.sh"
  echo "commit: $(git -C "$repo" rev-parse HEAD)$(git -C "$repo" diff --quiet HEAD || echo ' (with uncommitted changes)')"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -m), $(g++ --version | head -1)"
  echo "cuda: $cuda_home ($(readlink -f "$cuda_home"))"
  echo "cmake: TPNET_WITH_CUDA=ON TPNET_WITH_MPI=OFF CMAKE_BUILD_TYPE=Release"
  echo "files:"
  (cd "$bundle" && find bin lib fallback -type f -printf '  %p %s B\n' | sort)
  echo "needs from the GPU machine: libcuda.so.1 (the driver), libcublasLt.so.13, libnccl.so.2"
  echo "ldd here:"
  ldd "$bundle"/bin/* | sed 's/^/  /'
} >"$bundle/MANIFEST"

total=$(du -sb "$bundle" | cut -f1)
say "bundle $bundle: $(( total / 1000000 )) MB: $(cd "$bundle" && find bin lib fallback -type f | sort | paste -sd' ' -)"
# The device tool carries at most 64 MiB together with the working tree.
if (( total > 48 * 1024 * 1024 )); then
  say "the bundle is over 48 MiB; the device tool carries at most 64 MiB with the working tree"
  exit 1
fi
