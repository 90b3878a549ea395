#!/usr/bin/env bash
# Predict the Qwen3.6-27B study's decode at TP2 and TP4 from its TP1 row
# (docs/background.md s.7, examples/data/qwen36_27b_sweep.csv, C=1): the TP1
# ITL of 77.97 ms fits the memory-bandwidth efficiency (formulas.md s.24),
# then each TP reads its share of the weights and adds its all-reduces on
# the 200G profile. Measured at C=1: TP2 43.48 ms (23.0 tokens/s), TP4
# 29.14 ms (34.3 tokens/s); predicted 43.7 ms and 26.5 ms (-9%: TP4's
# four-rank all-reduces cost more than the profile says). --gemm-tflops only
# prices the 128-token prompt; the sweep has no prompt lengths to fit it to,
# so the TTFT column is not a prediction.
# Usage: examples/qwen36-predict.sh [path/to/tpnet]
# expect: tensor-parallel size +2
# expect: 128 +[0-9.]+ +[0-9.]+ +[0-9.]+ +22\.9
# expect: tensor-parallel size +4
# expect: 128 +[0-9.]+ +[0-9.]+ +[0-9.]+ +37\.8
set -euo pipefail
tpnet=${1:-tpnet}
# The paths below are the repository's: the script runs from any folder.
if [[ $tpnet == */* ]]; then tpnet="$(cd "$(dirname "$tpnet")" && pwd)/$(basename "$tpnet")"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
for tp in 2 4; do
  "$tpnet" predict --model qwen3.6-27b --tp "$tp" --links 200G \
    --prompt 128 --output 128 --decode-itl 1=77.97ms --gemm-tflops 100
done
