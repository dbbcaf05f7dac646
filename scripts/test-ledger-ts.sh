#!/usr/bin/env bash
# The TypeScript ledger (examples/ledger-ts) against the C++ one: builds the
# TypeScript client if its dist/ is missing, then builds the example and runs
# its comparison test (test/compare.test.mjs), which starts `indelible serve`
# on a free port and runs both ledgers for the same account.
#   scripts/test-ledger-ts.sh
# Binaries: INDELIBLE_BIN (default build/dev/src/cli/indelible) and
# INDELIBLE_LEDGER_BIN (default build/dev/examples/ledger/indelible-ledger).
set -euo pipefail
# Paths given relative to where the script was called from.
[[ -n ${INDELIBLE_BIN:-} ]] && INDELIBLE_BIN=$(realpath -m "$INDELIBLE_BIN")
[[ -n ${INDELIBLE_LEDGER_BIN:-} ]] && INDELIBLE_LEDGER_BIN=$(realpath -m "$INDELIBLE_LEDGER_BIN")
cd "$(dirname "$0")/.."
export INDELIBLE_BIN=${INDELIBLE_BIN:-$PWD/build/dev/src/cli/indelible}
export INDELIBLE_LEDGER_BIN=${INDELIBLE_LEDGER_BIN:-$PWD/build/dev/examples/ledger/indelible-ledger}

if [[ ! -f clients/typescript/dist/index.js ]]; then
  (cd clients/typescript && npm ci --no-audit --no-fund && npm run build)
fi
cd examples/ledger-ts
npm ci --no-audit --no-fund
npm run build
npm test
