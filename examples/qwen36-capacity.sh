#!/usr/bin/env bash
# The Qwen3.6-27B study (docs/background.md s.7): TP1, TP2 and TP4 on 1, 2 and 4 DGX
# Sparks. Under TTFT <= 1000 ms and TPS >= 15 tokens/s, TP1 serves no request,
# TP2 8 at once (C=16 misses 15 tokens/s by 14.96: on the edge) and TP4 16
# (C=32 fails TTFT 1005 ms). Users by Little's law with 45 s think time, and
# 4 nodes as one TP4 instance against two TP2 replicas.
# Usage: examples/qwen36-capacity.sh [path/to/tpnet]
# expect: TP1 +1 +7 +0 +tps +1 +n/a +0 +no
# expect: TP2 +2 +7 +8 +tps +16 +7\.25 +57 +yes
# expect: TP4 +4 +7 +16 +ttft\+tps +32 +6\.66 +124 +yes
# expect: most users +TP4 x1: 124 users, peak 508 tokens/s, a single point of failure
# expect: highly available +TP2 x2: 114 users, peak 867 tokens/s, 57 users after losing one
# expect: TP4's C=1 TTFT \(163\.59 ms\) is worse than TP2's \(148\.87 ms\)
set -euo pipefail
tpnet=${1:-tpnet}
# The paths below are the repository's: the script runs from any folder.
if [[ $tpnet == */* ]]; then tpnet="$(cd "$(dirname "$tpnet")" && pwd)/$(basename "$tpnet")"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
"$tpnet" capacity --sweep examples/data/qwen36_27b_sweep.csv --fleet 4
