#!/usr/bin/env bash
# DeepSeek-V4.1-Flash on 8 DGX Sparks as its report's TP8-1M ran it
# (docs/background.md s.8): Engram tables on NVMe, counted nowhere, and the
# ~10 GB DeepGEMM/CUTLASS autotune spike during vLLM's profiling, which
# VLLM_FLASHINFER_AUTOTUNE=0 does not turn off; --gpu-memory-utilization 0.75.
# The report: 38 GB of model on the GPU, ~30 GB of KV cache. tpnet: 38.00 GB
# and 28.84 GB, with room for a 1M-token sequence (docs/formulas.md s.12.11).
# Usage: examples/deepseek-v41-memory-tp8-1m.sh [path/to/tpnet]
# expect: Engram tables \(--engram-tables\) +disk
# expect: model on the GPU \(weights \+ Engram in GPU memory\) +38\.00 GB
# expect: on disk \(not counted\) +35\.15 GB
# expect: autotune spike \(--autotune-spike\) +10\.00 GB
# expect: budget \(memory x utilization\) +90\.75 GB
# expect: left for the KV cache +28\.84 GB
# expect: one max-model-len sequence fits +yes
# expect: fits +yes
# expect: are on disk and count nothing
set -euo pipefail
tpnet=${1:-tpnet}
# The paths below are the repository's: the script runs from any folder.
if [[ $tpnet == */* ]]; then tpnet="$(cd "$(dirname "$tpnet")" && pwd)/$(basename "$tpnet")"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
"$tpnet" memory --model deepseek-v4.1-flash --tp 8 --gpu-memory-utilization 0.75 --nccl-tuned \
  --chunk 8192 --max-num-seqs 8 --cuda-graph-memory 1.5GB --max-model-len 1M \
  --engram-tables disk --autotune-spike 10GB
