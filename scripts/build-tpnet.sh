#!/usr/bin/env bash
# `make run`'s build: only the tpnet binary (not the tests, benchmarks or
# tpnet-calibrate), with one progress line per step of ten percent, so a first
# build on a fresh clone says what it is doing. The full log is build.log; it
# is printed when the build fails.
set -euo pipefail
cd "$(dirname "$0")/.."
# Without the tests: configuring them needs Catch2, which only `make test`
# installs (`make build` turns them back on in the same build folder).
scripts/configure.sh default -DTPNET_BUILD_TESTS=OFF >build.log 2>&1 || { cat build.log; exit 1; }
echo "building tpnet (a first build takes a minute or two on two cores; log: build.log)" >&2
last=-1
while IFS= read -r line; do
  echo "$line" >>build.log
  # Ninja's progress: "[done/total] Building CXX object ...".
  if [[ $line =~ ^\[([0-9]+)/([0-9]+)\] ]]; then
    percent=$((BASH_REMATCH[1] * 100 / BASH_REMATCH[2]))
    step=$((percent / 10 * 10))
    if ((step > last)); then
      echo "  ${step}%" >&2
      last=$step
    fi
  fi
done < <(cmake --build --preset default --target tpnet 2>&1; echo "__status $?")
if ! tail -n 1 build.log | grep -q '^__status 0$'; then
  cat build.log
  exit 1
fi
