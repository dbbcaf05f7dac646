#!/usr/bin/env bash
# The documents' commands, run: every shell block of README.md and
# docs/*.md marked runnable (tests/docs/README.md), in document order per
# file, against a fresh `indelible serve` on a free loopback port, in a fresh
# working directory. Prints each block's file:line, the output of a failing
# one, and "N passed, N failed"; exits non-zero on any failure.
#   scripts/test-docs.sh [FILE.md ...]
# Binary: INDELIBLE_BIN (default build/dev/src/cli/indelible); its folder
# comes first on PATH, so the blocks say `indelible`; `build/release/` in a
# block names its build folder (build/dev), so the examples must be built.
set -euo pipefail
[[ -n ${INDELIBLE_BIN:-} ]] && INDELIBLE_BIN=$(realpath -m "$INDELIBLE_BIN")
files=()
for f in "$@"; do files+=("$(realpath -m "$f")"); done
cd "$(dirname "$0")/.."
export INDELIBLE_BIN=${INDELIBLE_BIN:-$PWD/build/dev/src/cli/indelible}
exec python3 tests/docs/run_docs.py "${files[@]}"
