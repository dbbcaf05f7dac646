#!/usr/bin/env bash
# The README's first command: install what is missing, build, and start
# `indelible serve` on the embedded default store (./indelible-data),
# listening on 127.0.0.1:2113 (INDELIBLE_LISTEN and INDELIBLE_DATA change them).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh release indelible indelible-todo indelible-ledger indelible-ratings
bin=build/release/src/cli/indelible
data=${INDELIBLE_DATA:-./indelible-data}
listen=${INDELIBLE_LISTEN:-127.0.0.1:2113}
echo "indelible: serving $data on http://$listen (Ctrl-C stops it); its web console is http://$listen/"
echo "From another terminal, try:"
echo "  curl -i -X POST http://$listen/streams/demo-1 -H 'Content-Type: application/json' \\"
echo "       -d '{\"type\":\"Demo.Happened\",\"data\":{\"hello\":\"world\"}}'"
echo "  curl http://$listen/all"
exec "$bin" serve --store "file:$data" --listen "$listen"
