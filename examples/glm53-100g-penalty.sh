#!/usr/bin/env bash
# The GLM-5.3 study (docs/background.md s.4): 8 DGX Sparks at TP8 move from 200G to
# 100G links. Bounds per test, the share of the TTFT measured at 200G, and the
# extra time predicted on the DGX Spark fabric profiles of both presets
# (docs/prediction.md; 100G, never measured between Sparks, at its nominal rate).
# Usage: examples/glm53-100g-penalty.sh [path/to/tpnet]
# expect: 100G vs 200G: longest prompt \(P5, 65536 tokens\) \+8\.40 s TTFT predicted
# expect: Bounds on the longest prompt's cost: \+8\.85 s at the nominal 100 and 200 Gb/s
# expect: Decode does not change
# expect: P1 +1024 +\+0\.14 +\+0\.04 +\+0\.03\.\.\+0\.04 +1\.00 +0\.96
# expect: P6 +65536 +\+8\.85 +\+8\.40 +\+8\.31\.\.\+8\.49 +54\.22 +45\.82
# expect: extra time per 1,000 prompt tokens +\+0\.135 s
set -euo pipefail
tpnet=${1:-tpnet}
# The paths below are the repository's: the script runs from any folder.
if [[ $tpnet == */* ]]; then tpnet="$(cd "$(dirname "$tpnet")" && pwd)/$(basename "$tpnet")"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
"$tpnet" penalty --model glm-5.3 --tp 8 --from 200G --to 100G \
  --baseline examples/data/glm53_tp8_200g.csv
