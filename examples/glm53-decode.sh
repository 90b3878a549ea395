#!/usr/bin/env bash
# Why decode barely changes at 100G: one request with 4 MTP draft tokens
# sends ~108 KB per all-reduce, latency-bound; the weight-read floor dominates.
# expect: regime +latency-bound
# expect: sent per node per forward +18\.0 MB
# expect: most the slower link adds per forward +\+0\.72 ms
set -euo pipefail
tpnet=${1:-tpnet}
# The paths below are the repository's: the script runs from any folder.
if [[ $tpnet == */* ]]; then tpnet="$(cd "$(dirname "$tpnet")" && pwd)/$(basename "$tpnet")"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
"$tpnet" decode --model glm-5.3 --tp 8 --from 200G --to 100G --spec-tokens 4
