#!/usr/bin/env bash
# The TypeScript enrolment example (examples/enrolment-ts): builds the
# TypeScript client (a stale dist/ would lack the query and condition calls
# the example uses), then builds the example and runs its test
# (test/enrolment.test.mjs), which starts `indelible serve` on a free port
# and races enrolments against it.
#   scripts/test-enrolment-ts.sh
# Binary: INDELIBLE_BIN (default build/dev/src/cli/indelible).
set -euo pipefail
# A path given relative to where the script was called from.
[[ -n ${INDELIBLE_BIN:-} ]] && INDELIBLE_BIN=$(realpath -m "$INDELIBLE_BIN")
cd "$(dirname "$0")/.."
export INDELIBLE_BIN=${INDELIBLE_BIN:-$PWD/build/dev/src/cli/indelible}

(
  cd clients/typescript
  [[ -d node_modules ]] || npm ci --no-audit --no-fund
  npm run build
)
cd examples/enrolment-ts
npm ci --no-audit --no-fund
npm run build
npm test
