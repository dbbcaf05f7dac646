#!/usr/bin/env bash
# The DynamoDB benchmarks (docs/BENCHMARKS.md, "DynamoDB (DynamoDB Local)"):
# `indelible bench workload --store` with CLIENTS=1 and CLIENTS=8,
# `indelible bench index-lag --store` and `index-catchup --store` (the
# indexer's capacity on a backlog), RUNS times each, every run on a
# DynamoDB Local of its own (scripts/dynamodb.sh, in memory, a free
# loopback port), started for it and stopped after it: DynamoDB Local slows
# down run after run even though each run's tables are deleted (210, 178,
# then 153 appends/s for three 2,000-event runs on one server), so a shared
# server would make the runs unequal. Prints every run's lines, then the
# median run's line of each figure with runs=, min= and max=.
#   scripts/bench-dynamodb.sh [RUNS]
# EVENTS, STREAMS and PAGE pass on to the workload (WORKLOAD.md);
# INDELIBLE_BENCH_RATE and INDELIBLE_BENCH_SECONDS set index-lag's --rate
# and --seconds; INDELIBLE_DYNAMODB_JAVA_OPTS the server's JVM options
# (-Xmx1g).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
dir=$(mktemp -d /var/tmp/indelible-bench-dynamodb.XXXXXX)
trap 'scripts/dynamodb.sh stop "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
[[ -x build/release/src/cli/indelible ]] || scripts/build.sh release indelible
# DynamoDB Local checks no signature, but the client needs credentials.
export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-bench} AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-bench}
bench=build/release/src/cli/indelible
lines=$dir/lines

echo "# DynamoDB Local 1.25.1 (scripts/dynamodb.sh), in memory, a fresh one per run:" \
  "acknowledged writes are not durable; it shares the $(nproc) cores with the benchmark;" \
  "load $(cut -d' ' -f1-3 /proc/loadavg)"
# run NAME ARGS...: one run of `indelible bench ARGS --store URL` on a fresh server.
run() {
  local endpoint
  endpoint=$(INDELIBLE_DYNAMODB_IN_MEMORY=1 scripts/dynamodb.sh start local "$dir/server" | tail -1)
  "$bench" bench "$@" --store "dynamodb://${endpoint#http://}?region=us-east-1&tls=0" |
    tee -a "$lines"
  scripts/dynamodb.sh stop "$dir/server"
  rm -rf "$dir/server"
}
for ((i = 1; i <= runs; i++)); do
  echo "# run $i of $runs"
  CLIENTS=1 run workload
  CLIENTS=8 run workload
  run index-lag --rate "${INDELIBLE_BENCH_RATE:-1000}" --seconds "${INDELIBLE_BENCH_SECONDS:-10}"
  run index-catchup
done

# The median run of each figure: workload lines by events_per_s per op and
# CLIENTS, index-lag lines by value (p99).
echo "# medians of $runs runs (the median run's line of each figure)"
awk '
  function field(name,   i, kv) {
    for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == name) return kv[2] }
    return ""
  }
  /^peer=/ {
    c = field("run_clients"); if (c == "") c = field("clients")
    print "workload op=" field("op") " clients=" c "\t" field("events_per_s") "\t" $0; next
  }
  /^bench=/ { print field("bench") " " field("figure") "\t" field("value") "\t" $0 }
' "$lines" | sort -t$'\t' -k1,1 -k2,2g -s | awk -F'\t' '
  { key[NR] = $1; value[NR] = $2; line[NR] = $3 }
  END {
    for (i = 1; i <= NR; i = j) {
      for (j = i; j <= NR && key[j] == key[i]; j++) {}
      m = i + int((j - i - 1) / 2)
      print line[m] " runs=" (j - i) " min=" value[i] " max=" value[j - 1]
    }
  }'
