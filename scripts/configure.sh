#!/usr/bin/env bash
# Configures one CMake preset: configure.sh PRESET [cmake arguments...].
# The presets use Ninja (CMakePresets.json). A build folder configured before
# that with Unix Makefiles would make CMake refuse ("Does not match the
# generator used previously"), so its cache is dropped first: the objects are
# rebuilt, nothing else in the folder is touched.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:?usage: configure.sh PRESET [cmake arguments...]}
shift
case "$preset" in
  default) folder=build ;;
  dev | clang | asan | fuzz) folder=build-$preset ;;
  *)
    echo "configure.sh: unknown preset '$preset' (allowed: default, dev, clang, asan, fuzz)" >&2
    exit 2
    ;;
esac
cache=$folder/CMakeCache.txt
if [[ -f $cache ]] && ! grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' "$cache"; then
  echo "configure.sh: $folder/ was configured with another generator; reconfiguring it with Ninja" >&2
  rm -rf "$cache" "$folder/CMakeFiles"
fi
exec cmake --preset "$preset" "$@"
