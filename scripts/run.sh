#!/usr/bin/env bash
# The README's first command: install what is missing, build, and run
# indelible on the embedded default store (./indelible-data).
#
# Until `indelible serve` lands (issue 3) this follows $all live with the CLI:
# append from another terminal and watch the events arrive.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh release indelible
bin=build/release/src/cli/indelible
data=${INDELIBLE_DATA:-./indelible-data}
echo "indelible: following \$all in $data (Ctrl-C to stop). From another terminal, try:"
echo "  $bin --data $data append demo-1 --type Demo.Happened --data '{\"hello\":\"world\"}'"
exec "$bin" --data "$data" tail --from 0
