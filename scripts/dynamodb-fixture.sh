#!/usr/bin/env bash
# dynamodb-fixture.sh start|stop DIR: the ctest fixture of tests/CMakeLists.txt.
# start: one in-memory DynamoDB Local on a free loopback port, its endpoint
# in DIR/endpoint (what testutil/dynamodb_server.h reads); stop: stops it
# (SIGKILL if it will not stop) and removes DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
command=${1:?usage: dynamodb-fixture.sh start|stop DIR}
dir=${2:?usage: dynamodb-fixture.sh start|stop DIR}
case "$command" in
  start)
    [ -d "$dir/server" ] && { scripts/dynamodb.sh kill "$dir/server" >/dev/null 2>&1 || true; }
    rm -rf "$dir"
    mkdir -p "$dir"
    INDELIBLE_DYNAMODB_IN_MEMORY=1 scripts/dynamodb.sh start local "$dir/server" | tee "$dir/start.log"
    tail -n 1 "$dir/start.log" >"$dir/endpoint"
    grep -q '^http://127.0.0.1:' "$dir/endpoint"
    ;;
  stop)
    [ -d "$dir/server" ] || exit 0
    scripts/dynamodb.sh stop "$dir/server" || scripts/dynamodb.sh kill "$dir/server"
    rm -rf "$dir"
    ;;
  *) echo "usage: dynamodb-fixture.sh start|stop DIR" >&2; exit 2 ;;
esac
