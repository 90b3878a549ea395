#!/usr/bin/env bash
# command-speed.sh: wall time of one tpnet run per command on the built-in
# models, process start included, against `tpnet --version` (what starting
# the binary costs). Each command runs RUNS times (default 50) after one
# untimed run; the table gives milliseconds per run and the ratio to
# --version. The README's "Performance" section quotes it.
#   scripts/command-speed.sh [TPNET] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
tpnet=${1:-build/cli/tpnet}
runs=${2:-50}
[[ -x $tpnet ]] || { echo "command-speed: no $tpnet; build first (make build)" >&2; exit 2; }
out=$(mktemp -d "${TMPDIR:-/tmp}/tpnet-speed.XXXXXX")
trap 'rm -rf "$out"' EXIT

commands=(
  "--version"
  "bytes --model glm-5.3 --tp 8"
  "penalty --model glm-5.3 --tp 8"
  "decode --model glm-5.3 --tp 8"
  "predict --model glm-5.3 --tp 8 --links 200G,100G"
  "expect --model glm-5.3 --nodes 8"
  "compare --model glm-5.3 --tp 2,4,8"
  "memory --model glm-5.3 --tp 8"
  "switch --nodes 16 --speed 200G"
  "plan --model glm-5.3 --nodes 16"
  "report --model glm-5.3 --nodes 16 --out $out/report.html"
  "models show glm-5.3"
)

milliseconds() {
  local start end
  # shellcheck disable=SC2086 # each command is its words
  "$tpnet" $1 >/dev/null 2>&1 || true
  start=$(date +%s%N)
  for ((i = 0; i < runs; i++)); do
    # shellcheck disable=SC2086
    "$tpnet" $1 >/dev/null 2>&1 || true
  done
  end=$(date +%s%N)
  echo $(((end - start) / runs / 1000))
}

printf '%-56s %10s %10s\n' "command" "ms a run" "x version"
base=$(milliseconds "--version")
for c in "${commands[@]}"; do
  us=$([[ $c == "--version" ]] && echo "$base" || milliseconds "$c")
  printf '%-56s %10s %10s\n' "tpnet ${c/$out\//}" "$(awk -v u="$us" 'BEGIN{printf "%.1f", u/1000}')" \
    "$(awk -v u="$us" -v b="$base" 'BEGIN{printf "%.2f", u/b}')"
done
