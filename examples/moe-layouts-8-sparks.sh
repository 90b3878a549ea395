#!/usr/bin/env bash
# Eight DGX Sparks for MiniMax-M2 (FP8, 230B): TP, pipeline stages, expert
# parallelism with data-parallel attention and prefill/decode disaggregation
# side by side, each bought (switch, cables) and priced by what public Spark
# runs give, ranked by expected tokens/s per dollar at 32 requests
# (docs/formulas.md s.30.5). TP4 inside two DP ranks with the experts over
# all eight (vLLM's --tensor-parallel-size 4 --data-parallel-size 2
# --enable-expert-parallel) edges out one TP8 at 32 requests, at a slower
# first token; one TP8 keeps the fastest TTFT. EP and xPyD are not validated
# on a Spark. The same question in compare, with the nodes' cost only:
#   tpnet compare --model minimax-m2 --tp 4,8 --ep 1,8 --nodes 8 --disaggregate 1P1D
# Usage: examples/moe-layouts-8-sparks.sh [path/to/tpnet]
# expect: Buy 1 x crs804 and run 1 x TP4xEP8 at 200G per node\.
# expect: Expected from public runs on the node: TTFT 2\.03 s, 35\.6 tok/s a request alone, 259 tok/s at 32
# expect: ranked by +tokens-per-dollar
# expect: 1 +1 x TP4xEP8 +200G +1 x crs804 +2\.03 s +35\.6 +259 +41847 USD +6\.20
# expect: 3 +1 x TP8 +200G +1 x crs804 +1\.19 s +46\.0 +256 +41847 USD +6\.13
# expect: 1 x TP4xPP2 +200G +1 x crs804 +1\.67 s
# expect: 1 x 1P1D TP4 +200G +1 x crs804 +1\.74 s
set -euo pipefail
tpnet=${1:-tpnet}
# The paths below are the repository's: the script runs from any folder.
if [[ $tpnet == */* ]]; then tpnet="$(cd "$(dirname "$tpnet")" && pwd)/$(basename "$tpnet")"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
"$tpnet" plan --model minimax-m2 --nodes 8 --layouts all --as-of 2026-12-06
