#!/usr/bin/env bash
# The DeepSeek-V4.1-Flash study (docs/background.md s.7) under its planner's default
# SLOs, TTFT <= 1000 ms and TPS >= 20 tokens/s. Its TP4 rows report no
# latency, so TP4's users cannot be computed by Little's law: the answer says
# so instead of guessing.
# Usage: examples/deepseek-v41-capacity.sh [path/to/tpnet]
# expect: TP4 +4 +4 +2 +tps +4 +n/a +n/a +no
# expect: TP8-300K +8 +4 +4 +tps +8 +6\.49 +31 +yes
# expect: TP8-1M +8 +4 +2 +tps +4 +4\.86 +20 +[a-z]
# expect: latency not reported at C=2: users by Little's law cannot be computed
set -euo pipefail
tpnet=${1:-tpnet}
# The paths below are the repository's: the script runs from any folder.
if [[ $tpnet == */* ]]; then tpnet="$(cd "$(dirname "$tpnet")" && pwd)/$(basename "$tpnet")"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
"$tpnet" capacity --sweep examples/data/deepseek_v41_flash_sweep.csv --ttft-slo 1000ms --tps-slo 20
