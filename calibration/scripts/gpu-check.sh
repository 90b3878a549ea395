#!/usr/bin/env bash
# gpu-check.sh: builds tpnet-calibrate and checks it on one GPU in under five
# minutes (a few seconds of GPU work after a one- to two-minute build):
#   1. the GEMM correctness test: tpnet-calibrate gemm --check-only (every
#      precision the GPU runs against a CPU reference, one GEMM and the grouped
#      fused-MoE case; exit 4 on a mismatch);
#   2. a GEMM timing at GLM-5.3 TP8 shapes, chunk 4096, few repeats, each MoE
#      layer's experts as one grouped GEMM (uniform routing, a skewed case beside);
#   3. a one-rank NCCL all-reduce sweep, 8 B to 64 MiB;
# and prints a short summary table last.
#
# Usage: calibration/scripts/gpu-check.sh [BUILD_DIR]   (default: build-gpu-check in the repo)
#   CUDA_HOME    CUDA toolkit with cuBLASLt and NCCL (default /usr/local/cuda); NCCL_HOME if
#                NCCL lives elsewhere.
#   GPU_CHECK_DEVICE  CUDA device index (default 0)
#
# Needs: cmake >= 3.25, g++ with C++20, the CUDA toolkit (runtime + cuBLASLt) and NCCL. No nvcc.
# Limitation: the repo's CMake requires fmt, yaml-cpp, CLI11 and Eigen (find_package REQUIRED,
# no vendored copies, no downloads). On a bare machine without apt they must be provided some
# other way (e.g. CMAKE_PREFIX_PATH pointing at installed copies); the script checks for them
# first and names what is missing. Catch2 is not needed: tests are not built here.
# Exit: 0 when every step passed, 1 when a step failed (the table says which), 2 when the
# machine lacks a prerequisite.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$repo/build-gpu-check}
cuda_home=${CUDA_HOME:-/usr/local/cuda}
device=${GPU_CHECK_DEVICE:-0}
logs=$build/gpu-check
started=$(date +%s)

say() { printf 'gpu-check: %s\n' "$*" >&2; }

# ---- prerequisites -----------------------------------------------------------
missing=()
command -v cmake >/dev/null 2>&1 || missing+=("cmake (>= 3.25)")
command -v g++ >/dev/null 2>&1 || missing+=("g++")
[[ -f $cuda_home/include/cuda_runtime.h ]] || missing+=("CUDA toolkit ($cuda_home/include/cuda_runtime.h)")
[[ -f $cuda_home/include/cublasLt.h ]] || missing+=("cuBLASLt ($cuda_home/include/cublasLt.h)")
if [[ ! -f $cuda_home/include/nccl.h && ! -f ${NCCL_HOME:-/nonexistent}/include/nccl.h &&
      ! -f /usr/include/nccl.h ]]; then
  missing+=("NCCL (nccl.h under $cuda_home/include, \$NCCL_HOME/include or /usr/include)")
fi
# The Debian packages the repo's CMake finds; look where Debian puts them, then in CMAKE_PREFIX_PATH.
has_header() {
  local header=$1 prefix
  [[ -f /usr/include/$header || -f /usr/local/include/$header ]] && return 0
  for prefix in ${CMAKE_PREFIX_PATH//:/ }; do
    [[ -f $prefix/include/$header ]] && return 0
  done
  return 1
}
has_header fmt/format.h || missing+=("fmt (libfmt-dev: /usr/include/fmt/format.h)")
has_header yaml-cpp/yaml.h || missing+=("yaml-cpp (libyaml-cpp-dev: /usr/include/yaml-cpp/yaml.h)")
has_header CLI/CLI.hpp || missing+=("CLI11 (libcli11-dev: /usr/include/CLI/CLI.hpp)")
has_header eigen3/Eigen/Core || missing+=("Eigen (libeigen3-dev: /usr/include/eigen3/Eigen/Core)")
if [[ ${#missing[@]} -gt 0 ]]; then
  say "cannot build tpnet-calibrate here; missing:"
  for m in "${missing[@]}"; do say "  - $m"; done
  say "the repo's CMake needs fmt, yaml-cpp, CLI11 and Eigen even for tpnet-calibrate;"
  say "install them (scripts/install-deps.sh on Debian/Ubuntu) or point CMAKE_PREFIX_PATH at copies"
  exit 2
fi

# ---- build ---------------------------------------------------------------------
mkdir -p "$logs"
say "configuring $build (Release, CUDA on)"
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTPNET_WITH_CUDA=ON \
  -DCUDAToolkit_ROOT="$cuda_home" -DTPNET_BUILD_TESTS=OFF -DTPNET_BUILD_BENCHMARKS=OFF \
  >"$logs/configure.log" 2>&1 || { say "configure failed; see $logs/configure.log"; tail -20 "$logs/configure.log" >&2; exit 1; }
say "building tpnet-calibrate with $(nproc) jobs"
cmake --build "$build" -j"$(nproc)" --target tpnet-calibrate >"$logs/build.log" 2>&1 ||
  { say "build failed; see $logs/build.log"; tail -30 "$logs/build.log" >&2; exit 1; }
calibrate=$build/calibration/tpnet-calibrate
say "built in $(( $(date +%s) - started )) s"

# ---- the three runs; each failure is recorded, the others still run -------------
declare -A status=([check]=FAILED [timing]=FAILED [nccl]=FAILED)

say "1/3 GEMM correctness: tpnet-calibrate gemm --check-only"
if timeout 120 "$calibrate" gemm --check-only --device "$device" >"$logs/check.txt" 2>"$logs/check.err"; then
  status[check]=passed
fi
cat "$logs/check.txt" "$logs/check.err" >&2

say "2/3 GEMM timing at GLM-5.3 TP8 shapes, chunk 4096"
if timeout 180 "$calibrate" gemm --model glm-5.3 --tp 8 \
     --chunk 4096 --warmup 3 --repeats 10 --device "$device" --out "$logs/gemm-glm53-tp8.csv" \
     >"$logs/timing.txt" 2>"$logs/timing.err"; then
  status[timing]=passed
fi
cat "$logs/timing.txt" "$logs/timing.err" >&2

say "3/3 one-rank NCCL all-reduce sweep, 8 B to 64 MiB"
if CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-$device} timeout 120 "$calibrate" allreduce \
     --backend nccl -b 8 -e 64M --out "$logs/allreduce.txt" >"$logs/nccl.txt" 2>"$logs/nccl.err"; then
  status[nccl]=passed
fi
tail -n 5 "$logs/nccl.txt" "$logs/nccl.err" >&2 || true

# ---- summary ---------------------------------------------------------------------
field() {  # field FILE PATTERN SED-EXPR: the first matching line, transformed; "-" if none
  local line
  line=$(grep -m1 -- "$2" "$1" 2>/dev/null || true)
  [[ -n $line ]] && sed -E "$3" <<<"$line" || echo "-"
}
gpu=$(field "$logs/check.txt" '^device ' 's/^device [0-9]+: (.*) \(compute capability .*/\1/')
cc=$(field "$logs/check.txt" '^device ' 's/.*compute capability ([0-9.]+)\).*/\1/')
checks=$(grep '^check ' "$logs/check.txt" 2>/dev/null | sed -E 's/^check ([a-z0-9]+) (grouped )?.*: (passed|FAILED).*/\1 \2\3/' | paste -sd, - | sed "s/,/, /g" || true)
precision=$(field "$logs/timing.txt" '^precision: ' 's/^precision: ([a-z0-9]+).*/\1/')
per_token=$(field "$logs/timing.txt" '^compute per prompt token per node' 's/.*: //')
per_chunk=$(field "$logs/timing.txt" '^compute per chunk' 's/.*: //')
rate=$(field "$logs/timing.txt" '^overall: ' 's/^overall: //')
skewed=$(field "$logs/timing.txt" '^with skewed routing' 's/^with skewed routing \(([^)]*)\): compute per prompt token per node: /\1: /')
# The largest size's row (the last data row); one rank: busbw = algbw x 2(N-1)/N = 0.
nccl_row=$(grep -v '^#' "$logs/allreduce.txt" 2>/dev/null | awk 'NF >= 9' | tail -1 || true)
if [[ -n $nccl_row ]]; then
  nccl=$(awk '{printf "%s B: %s us, algbw %s GB/s, busbw %s GB/s", $1, $6, $7, $8}' <<<"$nccl_row")
else
  nccl="-"
fi

{
  echo
  echo "tpnet-calibrate GPU check ($(( $(date +%s) - started )) s, logs in $logs)"
  printf '%-34s %s\n' "GPU" "$gpu"
  printf '%-34s %s\n' "compute capability" "$cc"
  printf '%-34s %s\n' "GEMM correctness (${status[check]})" "${checks:--}"
  printf '%-34s %s\n' "GEMM timing (${status[timing]})" "GLM-5.3 TP8 chunk 4096, precision $precision"
  printf '%-34s %s\n' "  compute per chunk" "$per_chunk"
  printf '%-34s %s\n' "  compute per prompt token" "$per_token"
  printf '%-34s %s\n' "  rate" "$rate"
  printf '%-34s %s\n' "  skewed experts, per prompt token" "$skewed"
  printf '%-34s %s\n' "NCCL 1-rank sweep (${status[nccl]})" "$nccl"
  printf '%-34s %s\n' "  (one rank)" "busbw = algbw x 2(N-1)/N is 0 by definition at N = 1"
  for step in check timing nccl; do  # why a step failed: the first line it printed to stderr
    if [[ ${status[$step]} != passed && -s $logs/$step.err ]]; then
      printf '%-34s %s\n' "  $step error" "$(head -n 1 "$logs/$step.err")"
    fi
  done
}

[[ ${status[check]} == passed && ${status[timing]} == passed && ${status[nccl]} == passed ]] || exit 1
