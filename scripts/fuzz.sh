#!/usr/bin/env bash
# Runs every libFuzzer target of tests/fuzz for a bounded time (docs/hardening.md).
#
#   scripts/fuzz.sh [--seconds N] [--build-dir DIR] [--fresh] [TARGET...]
#
# TARGET is a name such as quantity or fuzz_plan_yaml; default: every target
# the build lists in tests/fuzz/targets.txt. Each target reads its checked-in
# seeds (tests/fuzz/corpus/NAME, never written to) and writes what it finds
# to DIR/fuzz-work/NAME, which --fresh empties first (CI does). Crashes land
# in DIR/fuzz-artifacts/. Prints one line per target and a total; exits 1
# when any target crashed, leaked, timed out or broke the contract.
# Environment: FUZZ_SECONDS (default for --seconds, 60), FUZZ_SEED (a fixed
# libFuzzer seed; `make fuzz-ci` sets 1).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-60}
build=build-fuzz
fresh=0
names=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --fresh) fresh=1; shift ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) names+=("${1#fuzz_}"); shift ;;
  esac
done
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: --seconds (FUZZ_SECONDS) must be a whole number of seconds >= 1, not '$seconds'" >&2
  exit 2
fi

list="$build/tests/fuzz/targets.txt"
if [[ ! -f "$list" ]]; then
  echo "fuzz.sh: no $list; build first: cmake --preset fuzz && cmake --build --preset fuzz" >&2
  exit 2
fi
if [[ ${#names[@]} -eq 0 ]]; then
  mapfile -t names < <(grep -v '^$' "$list")
fi

artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"
total_runs=0
total_crashes=0
start=$SECONDS
for name in "${names[@]}"; do
  binary="$build/tests/fuzz/fuzz_$name"
  seeds="tests/fuzz/corpus/$name"
  if [[ ! -x "$binary" ]]; then
    echo "fuzz.sh: $binary is not built (targets: $(tr '\n' ' ' <"$list"))" >&2
    exit 2
  fi
  work="$build/fuzz-work/$name"
  [[ $fresh -eq 1 ]] && rm -rf "$work"
  mkdir -p "$work"
  dict=()
  [[ -f "tests/fuzz/dict/$name.dict" ]] && dict=(-dict="tests/fuzz/dict/$name.dict")
  log="$build/fuzz-work/$name.log"
  status=0
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: 2 GB is a leak
  # or an allocation sized by the input. New inputs go to $work only.
  # FUZZ_SEED (set by `make fuzz-ci`) fixes libFuzzer's random seed so CI runs repeat.
  seed_flag=()
  [[ -n "${FUZZ_SEED:-}" ]] && seed_flag=(-seed="$FUZZ_SEED")
  "$binary" "${seed_flag[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/${name}-" "${dict[@]}" "$work" "$seeds" >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  runs=${runs:-0}
  total_runs=$((total_runs + runs))
  if [[ $status -eq 0 ]]; then
    echo "fuzz_$name: $runs executions, 0 crashes"
  else
    total_crashes=$((total_crashes + 1))
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    echo "fuzz_$name: $runs executions, 1 crash (exit $status): ${artifact:-see $log}"
    grep -m 5 -E 'ERROR: |fuzz contract violated|runtime error:|Test unit written' "$log" |
      sed 's/^/    /' || true
  fi
done
echo "fuzz total: ${#names[@]} targets, $total_runs executions, $total_crashes crashes," \
  "$((SECONDS - start)) s"
[[ $total_crashes -eq 0 ]]
