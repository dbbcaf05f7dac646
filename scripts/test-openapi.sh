#!/usr/bin/env bash
# docs/openapi.json against a running server: validates the document
# (OpenAPI 3.1 schema, $refs, every schema compiles, every route in
# src/server described), then starts `indelible serve` twice (plain, and with
# --auth) and checks every operation's answers against it
# (tests/openapi/README.md). Needs Node 20+ and npm.
#   INDELIBLE_BIN  the server binary (default: build/dev/src/cli/indelible)
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
bin="${INDELIBLE_BIN:-$root/build/dev/src/cli/indelible}"
case "$bin" in /*) ;; *) bin="$root/$bin" ;; esac
if [[ ! -x "$bin" ]]; then
  echo "test-openapi: no server binary at $bin (build it, or set INDELIBLE_BIN)" >&2
  exit 1
fi
cd tests/openapi
npm ci --no-audit --no-fund --loglevel=error
INDELIBLE_BIN="$bin" npm test
