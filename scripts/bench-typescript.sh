#!/usr/bin/env bash
# The TypeScript client's benchmarks (bench/typescript, docs/BENCHMARKS.md):
# against ONE `indelible serve` (durable embedded store in a fresh folder,
# on a free loopback port), each run measures
#   (a) indelible-http-bench's append phase: 64 connections, one 200-byte
#       event at a time each, its own stream, exact expected version;
#   (b) the same load from @indelible/client: 64 appends in flight from one
#       Node process, same duration and event size; and the ratio TS / C++
#       (target >= 0.5); (a) and (b) swap order from run to run;
#   (b') the same load over node:http without the client (a keep-alive
#       agent, requests built by hand): a yardstick for what Node itself
#       does, to tell the client's cost from Node's; not the client's figure;
#   (c) SSE delivery latency to a TypeScript subscriber
#       (client.subscribeAll({from: 'end'})): events appended one at a time,
#       paced, from acknowledgement to delivery; p50/p99/max (target p99
#       <= 5 ms).
# Then the median of each figure over the runs.
#   scripts/bench-typescript.sh [RUNS] [DATA_PARENT]
# Binaries: build/release/src/cli/indelible if present, else $INDELIBLE_BIN
# (default build/dev/src/cli/indelible); build/release/bench/http/
# indelible-http-bench if present, else $INDELIBLE_HTTP_BENCH (default
# build/dev/bench/http/indelible-http-bench). Knobs: TS_BENCH_SECONDS (5),
# TS_BENCH_CONNECTIONS (64), TS_BENCH_SSE_EVENTS (2000), TS_BENCH_SSE_RATE
# (200 per second).
set -euo pipefail
# Paths given relative to where the script was called from.
[[ -n ${INDELIBLE_BIN:-} ]] && INDELIBLE_BIN=$(realpath -m "$INDELIBLE_BIN")
[[ -n ${INDELIBLE_HTTP_BENCH:-} ]] && INDELIBLE_HTTP_BENCH=$(realpath -m "$INDELIBLE_HTTP_BENCH")
cd "$(dirname "$0")/.."
runs=${1:-3}
parent=${2:-/var/tmp}
seconds=${TS_BENCH_SECONDS:-5}
connections=${TS_BENCH_CONNECTIONS:-64}
sse_events=${TS_BENCH_SSE_EVENTS:-2000}
sse_rate=${TS_BENCH_SSE_RATE:-200}

server=build/release/src/cli/indelible
[[ -x $server ]] || server=${INDELIBLE_BIN:-build/dev/src/cli/indelible}
http_bench=build/release/bench/http/indelible-http-bench
[[ -x $http_bench ]] || http_bench=${INDELIBLE_HTTP_BENCH:-build/dev/bench/http/indelible-http-bench}
for bin in "$server" "$http_bench"; do
  if [[ ! -x $bin ]]; then
    echo "$(basename "$0"): $bin not found: build it (scripts/build.sh) or set INDELIBLE_BIN / INDELIBLE_HTTP_BENCH" >&2
    exit 1
  fi
done

say() { echo "$@" >&2; }

# The client (built once), then the benchmarks.
if [[ ! -f clients/typescript/dist/index.js ]]; then
  say "# building clients/typescript"
  (cd clients/typescript && npm ci --no-audit --no-fund && npm run build) >&2
fi
say "# building bench/typescript"
(cd bench/typescript && npm ci --no-audit --no-fund && npm run build) >&2
bench_js=bench/typescript/dist/bench.js

data=$(mktemp -d "$parent/indelible-ts-bench-XXXXXX")
# start, port_of, stop_all; everything stopped and removed on exit.
source scripts/bench-servers.sh
start serve "$server" serve --store "file:$data/store" --listen 127.0.0.1:0
port=$(port_of serve)
url=http://127.0.0.1:$port

echo "# bench-typescript runs=$runs cores=$(nproc) load=$(cut -d' ' -f1-3 /proc/loadavg)" \
  "node=$(node --version) server=$server store=file:(durable: fsync before each ack) fs=$(stat -f -c %T "$parent")"
echo "# append: connections=$connections seconds=$seconds event_bytes=200, C++ indelible-http-bench" \
  "(one thread) vs @indelible/client (one Node process); sse: events=$sse_events rate=$sse_rate/s" \
  "event_bytes=200 subscribeAll from=end"
for run in $(seq "$runs"); do
  cpp() {
    say "# run $run of $runs: C++ appends, $connections connections, $seconds s"
    "$http_bench" --port "$port" --connections "$connections" --seconds "$seconds" \
      --phases append --label "run=$run" | tee -a "$data/lines"
  }
  ts() {
    say "# run $run of $runs: TypeScript appends, $connections in flight, $seconds s"
    node "$bench_js" append --url "$url" --connections "$connections" --seconds "$seconds" \
      --label "run=$run" | tee -a "$data/lines"
  }
  raw() {
    say "# run $run of $runs: node:http appends without the client (yardstick), $connections in flight, $seconds s"
    node "$bench_js" append-raw --url "$url" --connections "$connections" --seconds "$seconds" \
      --label "run=$run" | tee -a "$data/lines"
  }
  if ((run % 2 == 1)); then cpp; ts; raw; else raw; ts; cpp; fi
  say "# run $run of $runs: SSE latency, $sse_events events at $sse_rate/s"
  node "$bench_js" sse --url "$url" --events "$sse_events" --rate "$sse_rate" \
    --label "run=$run" | tee -a "$data/lines"
done

# The median of each figure over the runs (what docs/BENCHMARKS.md reports).
echo "# medians of $runs runs"
median() { # bench figure
  local values n
  values=$(grep "^bench=$1 figure=$2 " "$data/lines" | sed 's/.* value=\([0-9]*\).*/\1/' | sort -n)
  n=$(echo "$values" | wc -l)
  echo "$values" | sed -n "$(((n + 1) / 2))p"
}
for figure in "http_append events_per_s" "http_append p50_us" "http_append p99_us" \
  "ts_append events_per_s" "ts_append p50_us" "ts_append p99_us" \
  "node_http_append events_per_s" "node_http_append p50_us" "node_http_append p99_us" \
  "ts_sse p50_us" "ts_sse p99_us" "ts_sse max_us" "ts_sse append_p50_us"; do
  set -- $figure
  echo "bench=$1 figure=$2 median=$(median "$1" "$2") runs=$runs"
done

# TS / C++ per run (both measured in that run), and their median.
ratios=$(for run in $(seq "$runs"); do
  cpp=$(grep "^bench=http_append figure=events_per_s .* run=$run\b" "$data/lines" | sed 's/.* value=\([0-9]*\).*/\1/')
  ts=$(grep "^bench=ts_append figure=events_per_s .* run=$run\b" "$data/lines" | sed 's/.* value=\([0-9]*\).*/\1/')
  awk -v t="$ts" -v c="$cpp" 'BEGIN { printf "%.2f\n", (c > 0 ? t / c : 0) }'
done | sort -n)
echo "# append ratio TS/C++ per run: $(echo $ratios)"
ratio=$(echo "$ratios" | sed -n "$(((runs + 1) / 2))p")
echo "bench=ts_append figure=ratio_to_cpp median=$ratio target_min=0.5 met=$(awk -v r="$ratio" 'BEGIN { print (r >= 0.5 ? "yes" : "no") }')"
p99=$(median ts_sse p99_us)
echo "bench=ts_sse figure=p99_ms median=$(awk -v u="$p99" 'BEGIN { printf "%.2f", u / 1000 }') target_max=5 met=$(awk -v u="$p99" 'BEGIN { print (u <= 5000 ? "yes" : "no") }')"
