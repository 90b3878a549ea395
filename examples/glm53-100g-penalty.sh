#!/usr/bin/env bash
# The GLM-5.3 study (docs/background.md s.4): 8 DGX Sparks at TP8 move from 200G to
# 100G links. Bounds per test, the share of the TTFT measured at 200G, and the
# extra time predicted on the DGX Spark fabric profiles of both presets
# (docs/prediction.md; 100G, never measured between Sparks, at its nominal rate).
# Usage: examples/glm53-100g-penalty.sh [path/to/tpnet]
# expect: P1 +1 +1024 +1024 +3\.5 +0\.14 +\+0\.14
# expect: P6 +4 +16384 +65536 +221\.3 +8\.85 +\+8\.85 +\+6\.49 +\+6\.49 +52\.31 +45\.82
# expect: extra time per 1,000 prompt tokens +\+0\.135 s
set -euo pipefail
tpnet=${1:-tpnet}
"$tpnet" penalty --model glm-5.3 --tp 8 --from 200G --to 100G \
  --baseline examples/data/glm53_tp8_200g.csv
