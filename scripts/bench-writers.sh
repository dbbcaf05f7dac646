#!/usr/bin/env bash
# Events/s against concurrent writers, 1 to 256 (`indelible bench concurrent`
# at each count, durable, one event per append, each writer on its own
# stream), for the chart of docs/BENCHMARKS.md. Prints one line per writer
# count (the median of RUNS runs) and the disk's fdatasync rate measured in
# the same run, each tagged series=LABEL:
#   scripts/bench-writers.sh [RUNS] [LABEL] [BINARY] >> lines
#   scripts/chart-writers.py lines > docs/images/writers.svg
# BINARY: an `indelible` built from another commit, for a "before" series.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
label=${2:-after}
bin=${3:-build/release/src/cli/indelible}
if [ $# -lt 3 ]; then scripts/build.sh release indelible >/dev/null; fi
parent=$(mktemp -d /var/tmp/indelible-writers-XXXXXX)
trap 'rm -rf "$parent"' EXIT
echo "# bench-writers series=$label runs=$runs cores=$(nproc) load=$(cut -d' ' -f1-3 /proc/loadavg)" >&2
first=yes
for writers in 1 2 4 8 16 32 64 128 256; do
  # About 2 s per run at each count: fewer events where throughput is low.
  events=$((writers * 2000))
  ((events < 8000)) && events=8000
  ((events > 128000)) && events=128000
  out=$("$bin" bench concurrent --clients "$writers" --events "$events" --runs "$runs" \
    --data "$parent")
  # With several runs the medians come last; the last line of a figure is
  # its median (or its only run).
  if [ $first = yes ]; then
    echo "series=$label $(grep 'figure=syncs_per_s' <<<"$out" | tail -1)"
    first=no
  fi
  echo "series=$label $(grep 'figure=events_per_s' <<<"$out" | tail -1)"
  echo "# writers=$writers done" >&2
done
