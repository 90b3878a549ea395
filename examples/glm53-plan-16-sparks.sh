#!/usr/bin/env bash
# The purchase question behind the GLM-5.3 study (docs/background.md s.5): 16 DGX Sparks,
# 100G or 200G? Two TP8 instances on one CRS804 at 100G keep the TP8 loss;
# one TP16 instance loses about twice the share of TTFT.
# expect: recommended\*\*: 2 x TP8 on 1 x crs804 at 100G
# expect: TP16 loses 1\.8x the share of TTFT that TP8 loses
set -euo pipefail
tpnet=${1:-tpnet}
# The paths below are the repository's: the script runs from any folder.
if [[ $tpnet == */* ]]; then tpnet="$(cd "$(dirname "$tpnet")" && pwd)/$(basename "$tpnet")"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
"$tpnet" plan --model glm-5.3 --nodes 16 --speeds 100G,200G \
  --baseline-tp 8 --baseline-ttft 6.36s --baseline-prompt 8k --format markdown
