#!/usr/bin/env bash
# build.sh PRESET [TARGET...]: configure (once) and build a CMake preset.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:?usage: build.sh dev|tsan|release [target...]}
shift
[ -f "build/$preset/build.ninja" ] || cmake --preset "$preset" >/dev/null
jobs=${INDELIBLE_JOBS:-$(nproc)}
if [ $# -gt 0 ]; then
  cmake --build "build/$preset" -j "$jobs" --target "$@"
else
  cmake --build "build/$preset" -j "$jobs"
fi
