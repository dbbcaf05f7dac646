#!/usr/bin/env bash
# The write benchmarks still run and print their figures (they are not run
# for speed here: tiny sizes, the dev build). Catches a bench that no longer
# starts, fails its own checks, or lost a figure docs/BENCHMARKS.md quotes.
#   tests/integration/bench_smoke.sh PATH/TO/indelible
set -euo pipefail
bin=${1:?usage: bench_smoke.sh PATH/TO/indelible}
data=$(mktemp -d "${TMPDIR:-/tmp}/bench-smoke-XXXXXX")
trap 'rm -rf "$data"' EXIT
out=$data/out.txt
expect() {  # a line with every one of these fields
  local pattern=$1
  grep -E "$pattern" "$out" >/dev/null || { echo "missing: $pattern"; cat "$out"; exit 1; }
}
"$bin" bench concurrent --data "$data" --clients 16 --events 320 --fsync-seconds 0.1 >"$out"
expect 'bench=concurrent figure=events_per_s value=[0-9]+ .*cpu_us_per_event=.*events_per_sync='
expect 'bench=concurrent figure=async_events_per_s value=[0-9]+ .*writers=async'
expect 'bench=concurrent figure=async_p99_us value=[0-9]+'
"$bin" bench batch --data "$data" --events 1000 --per-append 100 --fsync-seconds 0.1 >"$out"
expect 'bench=batch figure=events_per_s value=[0-9]+ .*per_append=100'
EVENTS=400 STREAMS=40 CLIENTS=8 "$bin" bench workload --data "$data" --runs 1 --fsync-seconds 0.1 >"$out"
expect 'op=append events=400 .*clients=8 .*events_per_sync=.*checks=ok'
expect 'op=read_all events=400 '
"$bin" bench schemas --data "$data/schemas" --seconds 0.5 --events 500 >"$out"
expect 'bench=schemas figure=append_sync_enforce_ratio_to_plain value='
expect 'bench=schemas figure=read_stream_declarative_events_per_s value=[0-9]+'
"$bin" bench dcb --data "$data/dcb" --seconds 0.5 --sizes 20k >"$out"
expect 'bench=dcb figure=append_sync_conditional_ratio_to_plain value=[0-9.]+ .*conflicts=0'
expect 'bench=dcb figure=append_interval_tagged_ratio_to_plain value=[0-9.]+'
expect 'bench=dcb figure=fill_events_per_s_at_20000 value=[0-9]+ .*folder_bytes=[0-9]+'
expect 'bench=dcb figure=query_needle_us_at_20000 value=[0-9]+ .*events_returned=1000 '
expect 'bench=dcb figure=query_needle_common_us_at_20000 value=[0-9]+ .*events_returned=100 '
expect 'bench=dcb figure=scan_needle_us_at_20000 value=[0-9]+ .*events_returned=1000 '
echo "bench smoke: ok"
