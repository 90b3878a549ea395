#!/usr/bin/env bash
# command-speed.sh: the time of one tpnet run per command on the built-in
# models, process start included, against `tpnet --version` (what starting
# the binary costs). Each command runs RUNS times (default 50) after one
# untimed run; the table gives wall and CPU (user + system) milliseconds per
# run and the CPU ratio to --version (CPU time holds still on a busy machine,
# wall time does not). The README's "Performance" section quotes it.
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

# Prints "WALL_US CPU_US" per run of the command's words.
per_run() {
  local start end cpu
  # shellcheck disable=SC2086 # each command is its words
  "$tpnet" $1 >/dev/null 2>&1 || true
  start=$(date +%s%N)
  cpu=$( { TIMEFORMAT='%U %S'; time (for ((i = 0; i < runs; i++)); do
    "$tpnet" $1 >/dev/null 2>&1 || true; done); } 2>&1)
  end=$(date +%s%N)
  awk -v w=$(((end - start) / runs / 1000)) -v c="$cpu" -v n="$runs" \
    'BEGIN{split(c, t, " "); printf "%d %d\n", w, (t[1] + t[2]) * 1e6 / n}'
}

printf '%-58s %9s %9s %10s\n' "command" "wall ms" "CPU ms" "x version"
read -r base_wall base_cpu <<<"$(per_run "--version")"
for c in "${commands[@]}"; do
  if [[ $c == "--version" ]]; then wall=$base_wall cpu=$base_cpu; else read -r wall cpu <<<"$(per_run "$c")"; fi
  printf '%-58s %9s %9s %10s\n' "tpnet ${c/$out\//}" \
    "$(awk -v u="$wall" 'BEGIN{printf "%.1f", u/1000}')" \
    "$(awk -v u="$cpu" 'BEGIN{printf "%.1f", u/1000}')" \
    "$(awk -v u="$cpu" -v b="$base_cpu" 'BEGIN{printf "%.2f", u/b}')"
done
