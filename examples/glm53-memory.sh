#!/usr/bin/env bash
# GLM-5.3 (753B at 4.5 bits) on DGX Sparks, docs/background.md s.8: at TP4 the weights
# alone take ~106 GB of each node's 108.9 GB budget, so the smallest TP that
# fits is 8. At TP8, NCCL_MAX_NCHANNELS=8 and NCCL_BUFFSIZE=1048576 cut NCCL's
# buffers from 37 GB to 11 GB per node, which goes to the KV cache: room for
# three 128k-token sequences at once instead of one.
# Usage: examples/glm53-memory.sh [path/to/tpnet]
# expect: the smallest TP that fits glm-5.3 is 8
# expect: TP4 +106\.78 +21\.66 +130\.05 +108\.90 +0\.00 +0 +no
# expect: TP8 +53\.98 +37\.00 +92\.59 +108\.90 +16\.31 +162891 +yes
# expect: NCCL buffers +11\.00 GB
# expect: left for the KV cache +42\.31 GB
# expect: KV cache per token per node +100\.2 KB
# expect: max-model-len sequences at once +3
set -euo pipefail
tpnet=${1:-tpnet}
# The paths below are the repository's: the script runs from any folder.
if [[ $tpnet == */* ]]; then tpnet="$(cd "$(dirname "$tpnet")" && pwd)/$(basename "$tpnet")"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
"$tpnet" memory --model glm-5.3 --min-tp
"$tpnet" memory --model glm-5.3 --tp 8 --nccl-channels 8 --nccl-buffsize 1MiB \
  --max-model-len 128k --max-num-seqs 8
