#!/usr/bin/env bash
# Compute per prompt token from GEMMs timed on a real GPU: the device check's
# FP8 and BF16 runs of GLM-5.3's TP8 prefill shapes (chunk 4096) on one NVIDIA
# H200 (compute capability 9.0), 2026-12-04, examples/calibration/h200_*.
# MEASURED on an H200, NOT a DGX Spark: Hopper has no NVFP4 tensor cores, so
# these figures show the calibration path works end to end on a GPU; they are
# not a Spark's compute rate (docs/calibration.md, "Results on a GPU").
# Usage: examples/h200-gemm-calibration.sh [path/to/tpnet]
# expect: precision: "fp8"
# expect: device: "NVIDIA H200"
# expect: per_prompt_token_s: 8\.5414[0-9]*e-05
# expect: precision: "bf16"
# expect: per_prompt_token_s: 9\.13[0-9]*e-05
set -euo pipefail
tpnet=${1:-tpnet}
# The paths below are the repository's: the script runs from any folder.
if [[ $tpnet == */* ]]; then tpnet="$(cd "$(dirname "$tpnet")" && pwd)/$(basename "$tpnet")"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
for precision in fp8 bf16; do
  "$tpnet" calibration --gemm "examples/calibration/h200_gemm_glm53_tp8_${precision}.csv" \
    --date 2026-12-04T12:40:12Z --note "H200 device check, not a DGX Spark"
done
