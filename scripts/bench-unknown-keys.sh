#!/usr/bin/env bash
# Memory under a flood of API keys nobody made (docs/SECURITY.md,
# "Resources"; docs/BENCHMARKS.md): starts `indelible serve --auth` on a
# fresh store with one admin key, sends REQUESTS requests (default
# 1,000,000) each with a new random key id, samples the server's RSS every
# tenth of the way, and checks the known key is still accepted.
#   scripts/bench-unknown-keys.sh [REQUESTS] [BINARY]
# BINARY defaults to the release build (built here); a sanitizer build's
# RSS includes its quarantine, so measure a release binary.
set -euo pipefail
cd "$(dirname "$0")/.."
requests=${1:-1000000}
indelible=${2:-}
if [[ -z "$indelible" ]]; then
  scripts/build.sh release indelible >/dev/null
  indelible=build/release/src/cli/indelible
fi
data=$(mktemp -d /var/tmp/indelible-unknown-keys-XXXXXX)
source scripts/bench-servers.sh
key=$("$indelible" --data "$data/store" keys create admin --role admin | head -n 1)
start auth "$indelible" serve --store "file:$data/store" --listen 127.0.0.1:0 --auth ${INDELIBLE_SERVE_FLAGS:-}
node bench/security/unknown_keys.mjs --port "$(port_of auth)" --pid "${pids[-1]}" \
  --key "$key" --requests "$requests"
