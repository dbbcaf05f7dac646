#!/usr/bin/env bash
# `indelible serve` on DynamoDB Local (docs/BENCHMARKS.md, "DynamoDB ...,
# through the server"): HTTP appends from CONNECTIONS clients (default 64),
# each appending one 200-byte event at a time to its own stream with the
# exact If-Match, for SECONDS (default 10), with the store's
# commit_threads=1 (a batch's commits sent one after another) and
# commit_threads=16 (the default: several in flight), alternating, RUNS
# times each (default 3). Every run gets a fresh in-memory DynamoDB Local
# (scripts/dynamodb.sh) and a fresh server, stopped after it. Prints every
# run's lines, then the median of each figure per commit_threads.
# DELAY_MS=N puts scripts/delay-proxy.py between the server and the
# emulator, delaying each direction by N ms: a network's round trip, which
# loopback lacks (DynamoDB in a region is milliseconds away).
#   scripts/bench-dynamodb-http.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
connections=${CONNECTIONS:-64}
seconds=${SECONDS_PER_RUN:-10}
dir=$(mktemp -d /var/tmp/indelible-bench-dynamodb-http.XXXXXX)
delay_ms=${DELAY_MS:-0}
server_pid=
proxy_pid=
cleanup() {
  [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null || true
  [[ -n $proxy_pid ]] && kill "$proxy_pid" 2>/dev/null || true
  scripts/dynamodb.sh stop "$dir/ddb" >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
scripts/build.sh release indelible indelible-http-bench >/dev/null
export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-bench} AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-bench}
bin=build/release

echo "# indelible serve on DynamoDB Local 1.25.1, in memory (acknowledged writes are not durable)," \
  "a fresh one per run, sharing the $(nproc) cores with the server and the load;" \
  "connections=$connections seconds=$seconds delay_ms=$delay_ms (each way) load $(cut -d' ' -f1-3 /proc/loadavg)"
run() {
  local threads=$1 endpoint port
  endpoint=$(INDELIBLE_DYNAMODB_IN_MEMORY=1 scripts/dynamodb.sh start local "$dir/ddb" | tail -1)
  if ((delay_ms > 0)); then
    scripts/delay-proxy.py "${endpoint##*:}" "$delay_ms" >"$dir/proxy.out" &
    proxy_pid=$!
    for _ in $(seq 50); do grep -q "listening on" "$dir/proxy.out" 2>/dev/null && break; sleep 0.1; done
    endpoint=http://127.0.0.1:$(grep -o '[0-9]*$' "$dir/proxy.out")
  fi
  "$bin/src/cli/indelible" serve --listen 127.0.0.1:0 \
    --store "dynamodb://${endpoint#http://}?region=us-east-1&tls=0&commit_threads=$threads" \
    >"$dir/serve.out" 2>"$dir/serve.err" &
  server_pid=$!
  for _ in $(seq 300); do
    grep -q "listening on" "$dir/serve.out" 2>/dev/null && break
    sleep 0.1
  done
  port=$(grep -o '[0-9]*$' "$dir/serve.out") || {
    echo "bench-dynamodb-http: the server did not start: $(cat "$dir/serve.err")" >&2
    exit 1
  }
  "$bin/bench/http/indelible-http-bench" --port "$port" --append-only \
    --connections "$connections" --seconds "$seconds" \
    --durability dynamodb-local-in-memory \
    --label "store=dynamodb delay_ms=$delay_ms commit_threads=$threads" |
    tee -a "$dir/lines"
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=
  if [[ -n $proxy_pid ]]; then
    kill "$proxy_pid" 2>/dev/null || true
    wait "$proxy_pid" 2>/dev/null || true
    proxy_pid=
  fi
  scripts/dynamodb.sh stop "$dir/ddb" >/dev/null
  rm -rf "$dir/ddb"
}
for ((i = 1; i <= runs; i++)); do
  echo "# run $i of $runs"
  run 1
  run 16
done

echo "# medians of $runs runs"
for threads in 1 16; do
  for figure in events_per_s p50_us p99_us; do
    values=$(grep -E "commit_threads=$threads( |$)" "$dir/lines" | grep "figure=$figure " |
      grep -o 'value=[0-9.]*' | cut -d= -f2 | sort -n)
    n=$(echo "$values" | wc -l)
    echo "http_append commit_threads=$threads $figure median=$(echo "$values" | sed -n "$(((n + 1) / 2))p")" \
      "min=$(echo "$values" | head -1) max=$(echo "$values" | tail -1) runs=$n"
  done
done
