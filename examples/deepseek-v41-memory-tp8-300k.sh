#!/usr/bin/env bash
# DeepSeek-V4.1-Flash on 8 DGX Sparks as its report's TP8-300K ran it
# (docs/background.md s.8): Engram tables in pinned host memory, which on a
# Spark is the GPU's own unified memory, NCCL_MAX_NCHANNELS=8 and
# NCCL_BUFFSIZE=1048576, --gpu-memory-utilization 0.80. The report: 49.55 GB
# of model on the GPU, 23.60 GB of Engram in host memory, ~8.7 GB of KV cache
# (1.46M tokens). tpnet: 49.55 GB, 23.60 GB and 9.74 GB (docs/formulas.md s.12.11).
# Usage: examples/deepseek-v41-memory-tp8-300k.sh [path/to/tpnet]
# expect: Engram tables \(--engram-tables\) +host
# expect: model on the GPU \(weights \+ Engram in GPU memory\) +49\.55 GB
# expect: in pinned host memory \(unified: counted\) +23\.60 GB
# expect: NCCL buffers +11\.00 GB
# expect: budget \(memory x utilization\) +96\.80 GB
# expect: left for the KV cache +9\.74 GB
# expect: KV cache tokens +1742826
# expect: fits +yes
set -euo pipefail
tpnet=${1:-tpnet}
# The paths below are the repository's: the script runs from any folder.
if [[ $tpnet == */* ]]; then tpnet="$(cd "$(dirname "$tpnet")" && pwd)/$(basename "$tpnet")"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
"$tpnet" memory --model deepseek-v4.1-flash --tp 8 --gpu-memory-utilization 0.80 --nccl-tuned \
  --chunk 8192 --max-num-seqs 8 --cuda-graph-memory 1.5GB --max-model-len 300000
