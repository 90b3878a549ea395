#!/usr/bin/env bash
# DeepSeek-V4.1-Flash on 4 DGX Sparks, as the report's TP4 rows ran it
# (docs/background.md s.8): it fits only with the Engram tables on disk. TP1
# and TP2 are refused on the weights alone; the smallest TP that fits is 4
# (docs/formulas.md s.12.11).
# Usage: examples/deepseek-v41-memory-tp4.sh [path/to/tpnet]
# expect: the smallest TP that fits deepseek-v4\.1-flash is 4
# expect: TP1 +297\.82 .* +no
# expect: note TP1: weights
# expect: TP2 +149\.35 .* +no
# expect: note TP2: weights
# expect: TP4 +75\.12 .* +yes
# expect: note TP4: none
# expect: left for the KV cache +10\.35 GB
# expect: the weights alone \(149\.35 GB per node at TP2\) exceed the 108\.90 GB budget
set -euo pipefail
tpnet=${1:-tpnet}
# The paths below are the repository's: the script runs from any folder.
if [[ $tpnet == */* ]]; then tpnet="$(cd "$(dirname "$tpnet")" && pwd)/$(basename "$tpnet")"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
deployment=(--model deepseek-v4.1-flash --nccl-tuned --chunk 8192 --max-num-seqs 8
  --cuda-graph-memory 1.5GB --max-model-len 300000 --engram-tables disk --autotune-spike 10GB)
"$tpnet" memory "${deployment[@]}" --min-tp
# TP2 says why it does not fit: the weights alone exceed the budget.
"$tpnet" memory "${deployment[@]}" --tp 2 2>&1
