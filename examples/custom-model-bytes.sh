#!/usr/bin/env bash
# Bytes per prompt token for a model described in your own YAML file:
# (2 x 80 + 1) x 8192 x 2 x 1.5 at TP4 = 3,956,736 bytes.
# expect: "per_token_bytes": 3956736
# expect: "allreduces_per_forward": 161
set -euo pipefail
tpnet=${1:-tpnet}
# The paths below are the repository's: the script runs from any folder.
if [[ $tpnet == */* ]]; then tpnet="$(cd "$(dirname "$tpnet")" && pwd)/$(basename "$tpnet")"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
"$tpnet" bytes --model examples/my-model.yaml --tp 4 --format json
