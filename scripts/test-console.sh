#!/usr/bin/env bash
# The web console in a real browser (tests/console/README.md): starts
# `indelible serve` per test file, seeds it over HTTP, and drives Chromium
# (Debian's, from apt; nothing downloads a browser) through every page:
# renders, live tail, a 1,000,000-event stream, consumer group actions, auth,
# axe-core, screenshots. Prints the budgets (bundle size, stream page time).
#   INDELIBLE_BIN                  the server binary (default: build/dev/src/cli/indelible)
#   INDELIBLE_CONSOLE_SCREENSHOTS  where screenshots go (default: build/console-screenshots)
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
bin="${INDELIBLE_BIN:-$root/build/dev/src/cli/indelible}"
case "$bin" in /*) ;; *) bin="$root/$bin" ;; esac
if [[ ! -x "$bin" ]]; then
  echo "test-console: no server binary at $bin (build it, or set INDELIBLE_BIN)" >&2
  exit 1
fi
if [[ ! -x /usr/bin/chromium ]]; then
  apt-get update -qq
  apt-get install -y -qq chromium
fi
shots="${INDELIBLE_CONSOLE_SCREENSHOTS:-$root/build/console-screenshots}"
case "$shots" in /*) ;; *) shots="$root/$shots" ;; esac
mkdir -p "$shots"
rm -f "$shots/budgets.txt"

cd tests/console
# npm ci only when node_modules is older than the lock file (or missing).
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
status=0
INDELIBLE_BIN="$bin" INDELIBLE_CONSOLE_SCREENSHOTS="$shots" \
  node --test --test-reporter=spec --test-concurrency=1 test/ || status=$?
echo "test-console: budgets"
if [[ -f "$shots/budgets.txt" ]]; then sed 's/^/  /' "$shots/budgets.txt"; fi
echo "test-console: screenshots in $shots"
exit "$status"
