#!/usr/bin/env bash
# build.sh PRESET [TARGET...]: configure (once) and build a CMake preset.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:?usage: build.sh dev|tsan|release [target...]}
shift
# ccache (when installed) keeps compiled objects across build folders and
# clean clones: paths are taken relative to the checkout, so a second clone
# or preset with the same flags reuses them.
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
  export CMAKE_C_COMPILER_LAUNCHER=${CMAKE_C_COMPILER_LAUNCHER:-ccache}
  export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
fi
[ -f "build/$preset/build.ninja" ] || cmake --preset "$preset" >/dev/null
jobs=${INDELIBLE_JOBS:-$(nproc)}
if [ $# -gt 0 ]; then
  cmake --build "build/$preset" -j "$jobs" --target "$@"
else
  cmake --build "build/$preset" -j "$jobs"
fi
