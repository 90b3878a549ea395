#!/usr/bin/env bash
# A switch for 16 DGX Sparks at 100G (docs/background.md s.5): a CRS804 takes all 16 on
# its four 400G QSFP56-DD ports as 4 x 100G breakouts; a CRS812 takes 12 (8 as
# usually quoted: the QSFP-DD ports alone), so 16 need two CRS812s joined by a
# 400G ISL, 2:1 oversubscribed. The breakout sub-ports must be forced to 100G.
# expect: crs804 +16 +16 +yes +1 +- +0\.00 +100
# expect: note crs804: fits one switch
# expect: crs812 +12 +8 +no +2 +1 x 400G +2\.00
# expect: note crs812: 8 is the figure usually quoted
# expect: crs804 cables: 4 x QSFP56-DD 400G to 4 x 100G breakout cable
# expect: crs804 trap: Breakout sub-ports do not auto-negotiate
# expect: crs804 check: the ConnectX-7 links at 100G
set -euo pipefail
tpnet=${1:-tpnet}
# The paths below are the repository's: the script runs from any folder.
if [[ $tpnet == */* ]]; then tpnet="$(cd "$(dirname "$tpnet")" && pwd)/$(basename "$tpnet")"; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
"$tpnet" switch --nodes 16 --speed 100G --switch crs804,crs812
