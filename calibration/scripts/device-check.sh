#!/usr/bin/env bash
# device-check.sh: runs every GPU path of tpnet-calibrate once on a lent GPU
# machine, from a bundle device-bundle.sh built elsewhere, in a few minutes:
#   1. the GPU tests (tpnet_calibrate_tests "[gpu]": gemm --check-only, a
#      GLM-5.3 TP8 timing with grouped experts that writes the CSV and reads it
#      back with tpnet, the same with --experts separate, one-GPU NCCL
#      all-reduce and all-to-all sweeps); on a GPU machine a skip is a failure;
#   2. gemm --check-only: every precision the GPU runs against the CPU
#      reference, one GEMM and the grouped (fused-MoE) case of 6 experts;
#   3. gemm at GLM-5.3 TP8 prefill shapes, chunk 4096, precision auto (FP8 on
#      Hopper, with the reason NVFP4 did not run), each MoE layer's experts as
#      one grouped GEMM under uniform and skewed routing; the same with
#      --experts separate (one GEMM per expert, as the first run timed them);
#      then BF16, then NVFP4 asked for explicitly (on a GPU without FP4 it must
#      be refused, exit 2; on Blackwell it is timed, grouped path included);
#   4. a one-rank NCCL all-reduce sweep, 8 B to 512 MiB, NCCL_ALGO=Ring; a
#      one-rank NCCL all-to-all sweep, 8 B to 512 MiB (one rank sends its one
#      block to itself: the GPU path and its check run, no fabric is timed);
#   5. tpnet calibration on the FP8 GEMM CSV (the compute section) and on the
#      one-rank sweep (a sweep of one rank has no network to fit: it must be
#      refused or warned about, never fitted silently; the one-rank
#      all-to-all is not fitted: one rank sends nothing over a fabric);
# and prints a summary table last (also summary.txt).
#
# Usage: calibration/scripts/device-check.sh [BUNDLE] [OUTPUT_DIR]
#   BUNDLE      default build-device/bundle (device-bundle.sh's output)
#   OUTPUT_DIR  default $OUT when set (the device tool's), else BUNDLE/../device-check
#   CUDA_HOME, NCCL_HOME  where to look first for libcublasLt.so.13 and libnccl.so.2
#   DEVICE_CHECK_BUDGET_S  seconds for all steps together (default 480): a step
#                          gets at most what is left, one with under 15 s is not run
# The device tool's call (from the repo root, carry ["build-device/bundle"]):
#   calibration/scripts/device-check.sh build-device/bundle "$OUT"
# At most 8 files come back from $OUT: summary.txt, device-check.log, the three
# gemm CSVs, the all-reduce sweep, the calibration YAML, logs.tar.gz (every
# step's output, the all-to-all sweep too).
# Exit: 0 every step passed, 1 a step failed (the table says which), 2 the
# machine lacks a prerequisite (no GPU driver, a library not found).
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bundle=$(cd "${1:-$repo/build-device/bundle}" 2>/dev/null && pwd) ||
  { echo "device-check: no bundle at ${1:-$repo/build-device/bundle}; run device-bundle.sh" >&2; exit 2; }
out=${2:-${OUT:-$bundle/../device-check}}
mkdir -p "$out"
out=$(cd "$out" && pwd)
logs=$(mktemp -d "${TMPDIR:-/tmp}/device-check.XXXXXX")
started=$(date +%s)
budget=${DEVICE_CHECK_BUDGET_S:-480}

main() {
say() { printf 'device-check [%4d s]: %s\n' "$(( $(date +%s) - started ))" "$*"; }
calibrate=$bundle/bin/tpnet-calibrate
tpnet=$bundle/bin/tpnet
tests=$bundle/bin/tpnet_calibrate_tests
shapes=glm-5.3
say "bundle $bundle; outputs in $out; logs in $logs"
[[ -f $bundle/MANIFEST ]] && sed -n '2,5p' "$bundle/MANIFEST"

# ---- the libraries this machine must provide ---------------------------------
# The directory holding NAME: CUDA_HOME / NCCL_HOME, the CUDA toolkit, the
# Python wheels (nvidia-cublas, nvidia-nccl-cu13), ldconfig's cache, then a search.
find_library_dir() {
  local name=$1 dir
  shift
  for dir in "$@" /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/lib/x86_64-linux-gnu; do
    [[ -n $dir && -e $dir/$name ]] && { echo "$dir"; return 0; }
  done
  if command -v python3 >/dev/null 2>&1; then
    dir=$(python3 - "$name" <<'EOF' 2>/dev/null
import glob, os, sys
for base in sys.path:
    for hit in glob.glob(os.path.join(base, "nvidia", "*", "lib", sys.argv[1])):
        print(os.path.dirname(hit)); sys.exit(0)
EOF
)
    [[ -n $dir ]] && { echo "$dir"; return 0; }
  fi
  dir=$(ldconfig -p 2>/dev/null | awk -v n="$name" '$1 == n {print $NF; exit}')
  [[ -n $dir ]] && { dirname "$dir"; return 0; }
  dir=$(timeout 60 find /usr /opt /root -name "$name" -print -quit 2>/dev/null)
  [[ -n $dir ]] && { dirname "$dir"; return 0; }
  return 1
}

missing=()
command -v nvidia-smi >/dev/null 2>&1 || missing+=("nvidia-smi (no NVIDIA driver here)")
cublas_dir=$(find_library_dir libcublasLt.so.13 "${CUDA_HOME:+$CUDA_HOME/lib64}") ||
  missing+=("libcublasLt.so.13 (CUDA 13 cuBLASLt; set CUDA_HOME)")
nccl_dir=$(find_library_dir libnccl.so.2 "${NCCL_HOME:+$NCCL_HOME/lib}" "${CUDA_HOME:+$CUDA_HOME/lib64}") ||
  missing+=("libnccl.so.2 (NCCL; set NCCL_HOME)")
export LD_LIBRARY_PATH="$bundle/lib:${cublas_dir:-}:${nccl_dir:-}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
say "cuBLASLt from ${cublas_dir:-nowhere}; NCCL from ${nccl_dir:-nowhere}"
ldd "$calibrate" "$tpnet" "$tests" >"$logs/ldd.txt" 2>&1
# Debian 12's libstdc++ only where this machine's is missing or older.
if grep -q 'libstdc++.*not found' "$logs/ldd.txt"; then
  say "this machine's libstdc++ is missing or older than Debian 12's: using the bundle's"
  export LD_LIBRARY_PATH="$bundle/fallback:$LD_LIBRARY_PATH"
  ldd "$calibrate" "$tpnet" "$tests" >"$logs/ldd.txt" 2>&1
fi
if grep -q 'not found' "$logs/ldd.txt"; then
  missing+=("shared libraries: $(grep 'not found' "$logs/ldd.txt" | awk '{print $1}' | sort -u | paste -sd' ' -)")
fi
grep -E 'cublasLt|nccl|cudart|yaml|fmt|stdc' "$logs/ldd.txt" | sort -u
if [[ ${#missing[@]} -gt 0 ]]; then
  for m in "${missing[@]}"; do say "missing: $m"; done
  return 2
fi

nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,clocks.max.sm,power.limit \
  --format=csv >"$logs/nvidia-smi.txt" 2>&1
cat "$logs/nvidia-smi.txt"

# ---- the steps: each is recorded, a failure does not stop the others -----------
declare -A result
order=()
# step NAME TIMEOUT_S EXPECTED_EXIT COMMAND...: runs it with its output in
# logs/NAME.txt (stdout) and logs/NAME.err (stderr), echoed to the log.
step() {
  local name=$1 limit=$2 expected=$3 rc left
  shift 3
  order+=("$name")
  # Within the whole run's budget, so that a hang leaves time to bring back
  # what was written (the device tool stops a command at 600 s).
  left=$(( budget - ($(date +%s) - started) ))
  if (( left < 15 )); then
    result[$name]="FAILED (not run: the ${budget} s budget is spent)"
    say "$name: ${result[$name]}"
    return
  fi
  (( limit > left )) && limit=$left
  say "$name: $*"
  timeout "$limit" "$@" >"$logs/$name.txt" 2>"$logs/$name.err"
  rc=$?
  cat "$logs/$name.txt"
  sed 's/^/  stderr: /' "$logs/$name.err"
  if [[ $rc -eq $expected ]]; then
    result[$name]="passed (exit $rc)"
  elif [[ $rc -eq 124 ]]; then
    result[$name]="FAILED (timed out after $limit s)"
  else
    result[$name]="FAILED (exit $rc, expected $expected)"
  fi
  say "$name: ${result[$name]}"
}
# refused_for NAME TEXT: a step that had to be refused passes only when its
# error says why it was meant to be (not a missing file, say).
refused_for() {
  if [[ ${result[$1]} == passed* ]] && ! grep -qF -- "$2" "$logs/$1.err"; then
    result[$1]="FAILED (refused, but not for: $2)"
    say "$1: ${result[$1]}"
  fi
}

# 1. The GPU tests, from the bundle: the tests find the binaries and the repo's
# model files through these variables (run_process.hpp).
export TPNET_TEST_CALIBRATE=$calibrate TPNET_TEST_CLI=$tpnet TPNET_TEST_SOURCE_DIR=$repo
step gpu-tests 240 0 "$tests" "[gpu]" --durations yes
if grep -q 'SKIPPED' "$logs/gpu-tests.txt" "$logs/gpu-tests.err"; then
  result[gpu-tests]="FAILED (a GPU test skipped on a GPU machine)"
fi

# 2-3. cuBLASLt.
step gemm-check 60 0 "$calibrate" gemm --check-only
step gemm-fp8 120 0 "$calibrate" gemm --model "$shapes" --tp 8 --chunk 4096 \
  --out "$out/gemm-glm53-tp8-auto.csv"
step gemm-fp8-separate 120 0 "$calibrate" gemm --model "$shapes" --tp 8 --chunk 4096 \
  --experts separate --out "$out/gemm-glm53-tp8-auto-separate.csv"
step gemm-bf16 120 0 "$calibrate" gemm --model "$shapes" --tp 8 --chunk 4096 --precision bf16 \
  --out "$out/gemm-glm53-tp8-bf16.csv"
cc=$(awk -F', ' 'NR == 2 {print $2}' "$logs/nvidia-smi.txt")
if [[ -z $cc || ${cc%%.*} -lt 10 ]]; then  # no FP4 before Blackwell: must be refused, naming what runs
  step gemm-nvfp4-refused 60 2 "$calibrate" gemm --model "$shapes" --tp 8 --precision nvfp4
  refused_for gemm-nvfp4-refused "nvfp4 does not run on device"
else
  step gemm-nvfp4 120 0 "$calibrate" gemm --model "$shapes" --tp 8 --chunk 4096 --precision nvfp4 \
    --out "$logs/gemm-glm53-tp8-nvfp4.csv"
fi

# 4. NCCL, one rank.
step nccl-1rank 180 0 "$calibrate" allreduce --backend nccl --algo Ring -b 8 -e 512MiB \
  --out "$out/allreduce-1rank-nccl.txt"

step nccl-alltoall-1rank 120 0 "$calibrate" alltoall --backend nccl -b 8 -e 512MiB \
  --out "$logs/alltoall-1rank-nccl.txt"

# 5. tpnet calibration on what was measured.
step calibration-gemm 60 0 "$tpnet" calibration --gemm "$out/gemm-glm53-tp8-auto.csv" \
  --model glm-5.3 --tp 8 --note "H200 device check, not a DGX Spark" \
  --out "$out/calibration-h200-gemm.yaml"
step calibration-sweep 60 2 "$tpnet" calibration --nccl-tests "$out/allreduce-1rank-nccl.txt" \
  --link 200G --out "$logs/calibration-1rank.yaml"
refused_for calibration-sweep "ranks is 1; an all-reduce sweep needs at least 2"

# ---- summary -----------------------------------------------------------------
first() { grep -m1 -h -- "$2" "$logs/$1.txt" 2>/dev/null | sed -E "${3:-s/^//}" || true; }
{
  echo
  echo "tpnet-calibrate device check: $(( $(date +%s) - started )) s on $(head -2 "$logs/nvidia-smi.txt" | tail -1)"
  for name in "${order[@]}"; do printf '%-20s %s\n' "$name" "${result[$name]}"; done
  echo
  printf '%-20s %s\n' "gpu tests" "$(grep -hE '^(All tests passed|test cases:)' "$logs/gpu-tests.txt" | tail -1)"
  grep -h '^check ' "$logs/gemm-check.txt" 2>/dev/null | sed 's/^/gemm-check           /'
  for name in gemm-fp8 gemm-fp8-separate gemm-bf16; do
    printf '%-20s %s\n' "$name" "$(first "$name" '^precision: ')"
    printf '%-20s %s\n' "" "$(first "$name" '^overall: ')"
    printf '%-20s %s\n' "" "$(first "$name" '^compute per prompt token per node')"
    # The grouped experts (uniform routing) and the skewed what-if beside them.
    grep -h -E '^moe\.(gate_up|up|down) ' "$logs/$name.txt" 2>/dev/null | awk '{printf "%-20s %s\n", "", $0}'
    [[ $name == gemm-fp8-separate ]] || printf '%-20s %s\n' "" "$(first "$name" '^with skewed routing')"
  done
  printf '%-20s %s\n' "gemm-nvfp4" "$(head -1 "$logs/gemm-nvfp4-refused.err" 2>/dev/null || first gemm-nvfp4 '^overall: ')"
  row=$(grep -v '^#' "$out/allreduce-1rank-nccl.txt" 2>/dev/null | awk 'NF >= 9' | tail -1)
  printf '%-20s %s\n' "nccl-1rank" "$(grep -m1 -o 'nccl=[^ ]*' "$out/allreduce-1rank-nccl.txt" 2>/dev/null) largest: $(awk '{printf "%s B in %s us, algbw %s GB/s, #wrong %s", $1, $6, $7, $9}' <<<"$row")"
  row=$(grep -v '^#' "$logs/alltoall-1rank-nccl.txt" 2>/dev/null | awk 'NF >= 9' | tail -1)
  printf '%-20s %s\n' "nccl-alltoall-1rank" "largest: $(awk '{printf "%s B in %s us, algbw %s GB/s, #wrong %s", $1, $6, $7, $9}' <<<"$row")"
  printf '%-20s %s\n' "calibration-gemm" "$(grep -m1 'compute per prompt token per node' "$logs/calibration-gemm.txt" | sed -E 's/ +/ /g' 2>/dev/null)"
  printf '%-20s %s\n' "" "$(grep -m1 -E 'routed experts timed|experts routed skewed' "$logs/calibration-gemm.txt" | sed -E 's/ +/ /g' 2>/dev/null)"
  printf '%-20s %s\n' "calibration-sweep" "$(head -1 "$logs/calibration-sweep.err" 2>/dev/null)"
} | tee "$out/summary.txt"

tar -C "$logs" -czf "$out/logs.tar.gz" .
local name
for name in "${order[@]}"; do [[ ${result[$name]} == passed* ]] || return 1; done
return 0
}

main 2>&1 | tee "$out/device-check.log"
exit "${PIPESTATUS[0]}"
