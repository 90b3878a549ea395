#!/usr/bin/env bash
# Bursty prefill traffic in averaging windows (docs/background.md s.6, docs/traffic.md).
# The input is SYNTHETIC (examples/traffic/counters_synthetic.csv, generated,
# not a measurement): GLM-5.3 TP8 prefill all-reduces of 88.1 MB at 200 Gb/s
# every 10 ms for 200 ms, then 100 ms of decode at 8 Gb/s, read every 1 ms
# from two RDMA devices. The same traffic peaks at 200 Gb/s in 1 ms windows,
# ~141 Gb/s in 5 ms, ~71 Gb/s in 100 ms and shows only its 49.7 Gb/s mean in a
# 1 s window: a peak rate means something only with its window.
# Usage: examples/traffic-windows.sh [path/to/tpnet]
# expect: 2 devices, 602 reads
# expect: transmitted +1862\.0 MB
# expect: 1 +transmit +1862\.0 +200\.00 +49\.65 +4\.0
# expect: 5 +transmit +1862\.0 +140\.96 +49\.65 +2\.8
# expect: 1000 +transmit +1862\.0 +49\.65 +49\.65 +1\.0
# expect: prefill +1 +transmit +1762\.1 +200\.00
# expect: chart written to +.*traffic\.svg
set -euo pipefail
tpnet=${1:-tpnet}
# The paths below are the repository's: the script runs from any folder.
if [[ $tpnet == */* ]]; then tpnet="$(cd "$(dirname "$tpnet")" && pwd)/$(basename "$tpnet")"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$tpnet" traffic --samples examples/traffic/counters_synthetic.csv
"$tpnet" traffic --samples examples/traffic/counters_synthetic.csv \
  --requests examples/traffic/requests_synthetic.csv --windows 1ms,1s --svg "$out/traffic.svg"
