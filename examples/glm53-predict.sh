#!/usr/bin/env bash
# Predict the GLM-5.3 study's six tests at 200G and at an emulated 100G link
# (docs/prediction.md): vLLM's scheduler step by step, prefill compute fitted
# to the four single-request rows, decode to P1's speed, each link priced on
# the DGX Spark fabric profile of its preset. P4 and P6 (four requests at
# once) are predicted, not fitted: measured 23.00 s and 45.82 s.
# Usage: examples/glm53-predict.sh [path/to/tpnet]
# expect: P4 +24\.00 +17\.88 +9\.1
# expect: P6 +48\.49 +36\.21 +8\.6
# expect: P6 +4 +16384 +\+8\.17 +\+7\.60\.\.\+8\.76 +\+16\.9 +\+7\.39
set -euo pipefail
tpnet=${1:-tpnet}
# The paths below are the repository's: the script runs from any folder.
if [[ $tpnet == */* ]]; then tpnet="$(cd "$(dirname "$tpnet")" && pwd)/$(basename "$tpnet")"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
"$tpnet" predict --model glm-5.3 --tp 8 \
  --links 200G,emulated-100G --spec-tokens 4 --accepted-tokens 2.5 \
  --long-prefill-token-threshold 2048 --max-num-seqs 8 \
  --baseline examples/data/glm53_tp8_200g.csv
