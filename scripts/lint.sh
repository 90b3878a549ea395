#!/usr/bin/env bash
# clang-tidy (.clang-tidy: bugprone, modernize, performance, the compiler's
# warnings) over the project's own sources, as `make lint` and .ci/run run it:
#   lint.sh [PATH...] [CLANG-TIDY-ARGUMENT...]
# PATHs (folders or files; default: libtpnet cli calibration tests) choose the
# tracked .cpp files; arguments starting with - go to every clang-tidy call,
# e.g. lint.sh libtpnet -checks=clang-analyzer-* for the static analyzer.
# LINT_JOBS files at a time (default 2, as the build presets). Exit 1 when any
# file has a finding (WarningsAsErrors) or does not compile.
set -euo pipefail
cd "$(dirname "$0")/.."

paths=()
tidy_args=()
for argument in "$@"; do
  if [[ $argument == -* ]]; then tidy_args+=("$argument"); else paths+=("$argument"); fi
done
[[ ${#paths[@]} -gt 0 ]] || paths=(libtpnet cli calibration tests)
jobs=${LINT_JOBS:-2}

tidy=clang-tidy-14
if ! command -v "$tidy" >/dev/null 2>&1; then
  echo "lint.sh: no $tidy; scripts/install-deps.sh installs it (package clang-tidy-14)" >&2
  exit 1
fi

# The dev preset compiles each file alone (TPNET_UNITY_BUILD=OFF), so its
# compile_commands.json holds every source with its own flags; a unity build's
# lists unity_*.cxx batches instead, and clang-tidy would guess the flags of a
# file it does not find. Configuring is enough: no tracked file includes a
# generated one (the build generates only the catalogs' .cpp files).
scripts/configure.sh dev >/dev/null
database=build-dev/compile_commands.json

# A tracked file the configuration does not compile (tpnet-calibrate's CUDA
# or no-CUDA half, the sanitizer defaults) has no flags to check it with: it
# is named, not guessed at.
declare -A compiled=()
while IFS= read -r file; do
  compiled[$file]=1
done < <(sed -n 's/^  "file": "\(.*\)",\{0,1\}$/\1/p' "$database")
files=()
skipped=()
while IFS= read -r file; do
  if [[ -n ${compiled[$PWD/$file]:-} ]]; then files+=("$file"); else skipped+=("$file"); fi
done < <(git ls-files -- "${paths[@]}" | grep '\.cpp$')
if [[ ${#files[@]} -eq 0 ]]; then
  echo "lint.sh: no compiled .cpp file under ${paths[*]}" >&2
  exit 2
fi
if [[ ${#skipped[@]} -gt 0 ]]; then
  echo "lint.sh: not compiled in this configuration, not checked: ${skipped[*]}" >&2
fi
echo "lint.sh: $tidy on ${#files[@]} files, $jobs at a time" >&2

# Each file's findings are printed whole, one file at a time, without
# clang-tidy's "N warnings generated." count (they are the system headers').
lock=$(mktemp "${TMPDIR:-/tmp}/tpnet-lint.XXXXXX")
trap 'rm -f "$lock"' EXIT
export tidy lock
# shellcheck disable=SC2016  # expanded by the bash that xargs starts
printf '%s\0' "${files[@]}" | xargs -0 -n 1 -P "$jobs" bash -c '
  file=${!#}
  status=0
  output=$("$tidy" -p build-dev --quiet --extra-arg=-Wno-unknown-warning-option "${@:1:$#-1}" \
    "$file" 2>&1) || status=$?
  output=$(grep -Ev "^[0-9]+ warnings? generated\.$" <<<"$output" || true)
  if [[ -n $output ]]; then flock "$lock" printf "%s\n" "$output"; fi
  exit "$status"
' lint-one "${tidy_args[@]}" || {
  echo "lint.sh: clang-tidy found the problems above" >&2
  exit 1
}
