#!/usr/bin/env bash
# Point estimates beside the bounds (docs/calibration.md): a calibration file
# made by `tpnet calibration` from an all-reduce sweep and timed prefill GEMMs
# prices the GLM-5.3 study's P1-P6 at 200G and 100G from the measured curve,
# and gives the network share from measured compute.
# SYNTHETIC inputs: the sweep (2.7 us per ring step, 196 Gb/s) and the GEMM
# timings (0.60 ms per prompt token per node) are made up; replace them with
# your runs (tpnet-calibrate allreduce / gemm).
# Usage: examples/penalty-calibration.sh [path/to/tpnet]
# expect: P2 +8192 +\+1\.11 +\+1\.13 +\+1\.13 +\+1\.13\.\.\+1\.13 +6\.36
# expect: compute per prompt token per node +0\.6000 ms
# expect: latency per ring step +2\.70 us
# expect: measured curve at each link and assume no
set -euo pipefail
tpnet=${1:-tpnet}
# The paths below are the repository's: the script runs from any folder.
if [[ $tpnet == */* ]]; then tpnet="$(cd "$(dirname "$tpnet")" && pwd)/$(basename "$tpnet")"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
calibration=examples/calibration/calibration_glm53_tp8_200g_synthetic.yaml
# 1. Fit the measurements into calibration.yaml (here: check that the shipped
#    copy is what this command writes).
"$tpnet" calibration --nccl-tests examples/nccl-tests/all_reduce_perf_8ranks_synthetic.txt \
  --link 200G --gemm examples/calibration/gemm_glm53_tp8_synthetic.csv \
  --date 2026-11-29T15:04:05Z \
  --note "SYNTHETIC: made from the synthetic sweep and GEMM timings in examples/; not a measurement" |
  diff "$calibration" - >&2
# 2. Bounds and point estimates per scenario.
"$tpnet" penalty --model glm-5.3 --tp 8 --from 200G --to 100G \
  --baseline examples/data/glm53_tp8_200g.csv --calibration "$calibration"
