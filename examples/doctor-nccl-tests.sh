#!/usr/bin/env bash
# Checks the fabric from an nccl-tests all_reduce_perf run (NCCL_ALGO=Ring):
# fits the alpha-beta model and compares the bus bandwidth of the largest
# sizes with the 200G link (docs/calibration.md). The input is SYNTHETIC,
# generated from 2.7 us per ring step and 196 Gb/s: replace it with your run.
# expect: state +healthy
# expect: latency per ring step +2\.70 us
# expect: beta \(rate of bytes sent\) +196\.0 Gb/s
# expect: NCCL_IB_HCA lists both RDMA devices
set -euo pipefail
tpnet=${1:-tpnet}
# The paths below are the repository's: the script runs from any folder.
if [[ $tpnet == */* ]]; then tpnet="$(cd "$(dirname "$tpnet")" && pwd)/$(basename "$tpnet")"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
"$tpnet" doctor --nccl-tests examples/nccl-tests/all_reduce_perf_8ranks_synthetic.txt --link 200G
