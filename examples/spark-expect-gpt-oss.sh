#!/usr/bin/env bash
# What 4 DGX Sparks will give gpt-oss-120b with nothing measured: every
# layout's memory fit, TTFT at an 8K prompt and decode tokens/s at 1, 8, 32
# and 64 requests, from the rates public Spark runs achieved
# (models/nodes/dgx-spark.yaml `expected`; docs/prediction.md s.5). One
# request decodes fastest on TP4; four TP1 replicas serve 64 requests within
# a sixth of it, and expert parallelism over the four (TP1xEP4, vLLM's
# --enable-expert-parallel --data-parallel-size 4; not validated on Spark)
# serves them fastest. --wide adds each value's range, --format json everything.
# Usage: examples/spark-expect-gpt-oss.sh [path/to/tpnet]
# expect: best for one request's latency +TP4
# expect: 4 x TP1 +yes +2\.20 +50\.0 +278 +462 +573
# expect: TP4 +yes +0\.88 +90\.2 +326 +557 +667 +latency
# expect: TP1xEP4 +yes +2\.66 +53\.7 +318 +584 +750 +throughput
# expect: 131072 +[0-9.]+
set -euo pipefail
tpnet=${1:-tpnet}
# The paths below are the repository's: the script runs from any folder.
if [[ $tpnet == */* ]]; then tpnet="$(cd "$(dirname "$tpnet")" && pwd)/$(basename "$tpnet")"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
"$tpnet" expect --model gpt-oss-120b --nodes 4 --prompt 8k --output 512
