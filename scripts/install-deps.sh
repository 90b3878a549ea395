#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages tpnet builds and tests with.
#   install-deps.sh            everything: the tests, sanitizer, fuzz and browser checks
#   install-deps.sh --binary   only what the tpnet binary needs (`make run`)
# Does nothing when all are present (one dpkg-query call, no apt-get update);
# uses sudo when not run as root.
set -euo pipefail

binary_packages=(
  cmake ninja-build g++ make  # toolchain (CMake >= 3.25: Debian 12 or Ubuntu 24.04)
  libfmt-dev libcli11-dev libyaml-cpp-dev libeigen3-dev
)
test_packages=(
  catch2                      # tests (Debian ships v2.13; v3 is used when installed)
  libbenchmark-dev            # tests/bench: Google Benchmark
  clang-format                # the format check run by ctest
  clang-tidy-14               # make lint (.clang-tidy), a step of .ci/run
  clang-14 libclang-rt-14-dev # make fuzz: clang++-14 and its libFuzzer/ASan/UBSan runtimes
  openmpi-bin libopenmpi-dev  # tpnet-calibrate: multi-node launch and the MPI all-reduce backend
  chromium libxml2-utils zlib1g-dev  # the browser test: render charts, parse SVG, read PNGs
)

case "${1:-}" in
  "") packages=("${binary_packages[@]}" "${test_packages[@]}") ;;
  --binary) packages=("${binary_packages[@]}") ;;
  *)
    echo "install-deps: unknown argument '$1' (allowed: --binary, or none for everything)" >&2
    exit 2
    ;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "install-deps: no dpkg-query: this script needs Debian or Ubuntu; install by hand: ${packages[*]}" >&2
  exit 1
fi

# One query for all: a package never installed is absent from the output.
declare -A installed=()
while read -r package status; do
  [[ "$status" == "install ok installed" ]] && installed[${package%%:*}]=1
done < <(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null || true)
missing=()
for package in "${packages[@]}"; do
  [[ -n "${installed[$package]:-}" ]] || missing+=("$package")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "install-deps: missing ${missing[*]}; run as root or install sudo" >&2
  exit 1
fi

# apt-get and dpkg print hundreds of lines even with -qq; they go to a log,
# shown only when the install fails, so that `make run` opens with its answer.
log=$(mktemp "${TMPDIR:-/tmp}/tpnet-install-deps.XXXXXX.log")
echo "install-deps: installing ${missing[*]} (log: $log)" >&2
apt_get() { "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "$@" >>"$log" 2>&1; }
if ! apt_get update -qq || ! apt_get install -y -qq --no-install-recommends "${missing[@]}"; then
  cat "$log" >&2
  echo "install-deps: apt-get failed (log above and in $log)" >&2
  exit 1
fi
