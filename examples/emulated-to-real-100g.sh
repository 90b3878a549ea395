#!/usr/bin/env bash
# Measured on an emulated 100G link (one PCIe half, 109 Gb/s) with RDMA
# counters showing 3.57 MB per prompt token: how much more could a real 100G
# cable add? (docs/background.md s.4, "Real cable from emulated measurement")
# expect: bytes per token from +measured
# expect: 32k +32768 +\+0\.77
set -euo pipefail
tpnet=${1:-tpnet}
# The paths below are the repository's: the script runs from any folder.
if [[ $tpnet == */* ]]; then tpnet="$(cd "$(dirname "$tpnet")" && pwd)/$(basename "$tpnet")"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
"$tpnet" penalty --model glm-5.3 --tp 8 --from emulated-100G --to 100G \
  --bytes-per-token 3.57MB --prompt 8k,32k,4x16k
