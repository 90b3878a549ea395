#!/usr/bin/env bash
# Capacity straight from `vllm bench serve --save-result` files, one per
# concurrency level. The TP2 folder names its config in the files
# (--metadata config=TP2 tp=2); the TP4 folder is named here, and its TP size
# comes from the name. CSV output: one row per config.
# Usage: examples/vllm-bench-capacity.sh [path/to/tpnet]
# expect: config,tp,levels,lowest_concurrency,highest_concurrency,c_max,binding
# expect: TP2,2,7,1,64,8,tps,16,true,7\.25,true,57,true
# expect: TP4,4,7,1,64,16,ttft\+tps,32,true,6\.66,true,124,true
set -euo pipefail
tpnet=${1:-tpnet}
# The paths below are the repository's: the script runs from any folder.
if [[ $tpnet == */* ]]; then tpnet="$(cd "$(dirname "$tpnet")" && pwd)/$(basename "$tpnet")"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
"$tpnet" capacity --sweep examples/vllm-bench/qwen36-tp2 \
  --sweep TP4=examples/vllm-bench/qwen36-tp4 --format csv
