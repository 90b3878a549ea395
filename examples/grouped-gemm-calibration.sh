#!/usr/bin/env bash
# Compute per prompt token from GEMM timings whose MoE layers run their routed
# experts as one grouped (fused-MoE) GEMM each, as vLLM and SGLang do
# (docs/calibration.md, "Grouped experts"): tpnet calibration sums the forward
# from the uniform-routing rows and gives the skewed routing's figure beside it.
# SYNTHETIC: no GPU has timed the grouped rows yet. The GLM-5.3 TP8 FP8 file
# copies the H200 device check's medians for the twelve GEMMs that are not
# routed experts and makes up the grouped ones (1,200 TFLOP/s uniform, 30%
# slower skewed); a GPU run of tpnet-calibrate gemm replaces it.
# Usage: examples/grouped-gemm-calibration.sh [path/to/tpnet]
# expect: experts: "grouped"
# expect: forward_s: 0\.05092503
# expect: per_prompt_token_s: 1\.243286865234375e-05
# expect: skewed_per_prompt_token_s: 1\.384845703125e-05
set -euo pipefail
tpnet=${1:-tpnet}
# The paths below are the repository's: the script runs from any folder.
if [[ $tpnet == */* ]]; then tpnet="$(cd "$(dirname "$tpnet")" && pwd)/$(basename "$tpnet")"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
"$tpnet" calibration --gemm examples/calibration/gemm_glm53_tp8_grouped_synthetic.csv \
  --model glm-5.3 --date 2026-12-05T00:00:00Z \
  --note "SYNTHETIC: grouped expert rows made up, not measured"
