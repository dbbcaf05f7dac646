#!/usr/bin/env bash
# The web console's budgets in Chromium (bench/console/stream-open.mjs):
# the gzipped bundle as served, and the time a 1,000,000-event stream's page
# takes to open, cold and warm, with the server's own share measured in the
# same run. Against the release build unless INDELIBLE_BIN says otherwise
# (scripts/build.sh release indelible builds it).
#
#   scripts/bench-console.sh [RUNS] [EVENTS]   (EVENTS: the stream's length, default 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
export INDELIBLE_BIN=${INDELIBLE_BIN:-$PWD/build/release/src/cli/indelible}
[[ -x $INDELIBLE_BIN ]] || {
  echo "bench-console: no server at $INDELIBLE_BIN: run scripts/build.sh release indelible (or set INDELIBLE_BIN)" >&2
  exit 1
}
[[ -x /usr/bin/chromium ]] || scripts/install-deps.sh
(cd tests/console && { [[ -f node_modules/.package-lock.json && ! package-lock.json -nt node_modules/.package-lock.json ]] ||
  npm ci --no-audit --no-fund --loglevel=error; })
exec node bench/console/stream-open.mjs "$@"
