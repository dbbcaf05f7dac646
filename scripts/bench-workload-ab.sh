#!/usr/bin/env bash
# Before/after of `indelible bench workload` (ledger-append v1,
# ../shared/bench/WORKLOAD.md): two release builds, OLD and NEW (checkouts
# with build/release built), run in turn RUNS times with CLIENTS=1 and 8 in
# the same data folder, so both see the same disk and machine state. Prints
# each op's events/s and ratio to the disk's fdatasync/s measured in that
# run, tagged old/new, and the medians.
#   scripts/bench-workload-ab.sh OLD_CHECKOUT [RUNS] [NEW_CHECKOUT] [DATA_DIR]
# Build both first: scripts/build.sh release indelible (in each checkout).
set -euo pipefail
old_tree=${1:?usage: bench-workload-ab.sh OLD_CHECKOUT [RUNS] [NEW_CHECKOUT] [DATA_DIR]}
runs=${2:-3}
new_tree=${3:-$(cd "$(dirname "$0")/.." && pwd)}
data=$(mktemp -d "${4:-/var/tmp}/ab-workload-XXXXXX")
trap 'rm -rf "$data"' EXIT
field() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }
echo "# workload A/B runs=$runs load=$(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%FT%TZ)"
for run in $(seq "$runs"); do
  for which in old new; do
    if [ $which = old ]; then bin=$old_tree/build/release/src/cli/indelible; else
      bin=$new_tree/build/release/src/cli/indelible; fi
    for clients in 1 8; do
      CLIENTS=$clients "$bin" bench workload --data "$data" --runs 1 2>/dev/null |
        grep -E '(^| )op=' | while read -r line; do
          op=$(echo "$line" | field op)
          per_s=$(echo "$line" | field events_per_s)
          ratio=$(echo "$line" | field ratio_to_fsync)
          echo "$which op=$op clients=$clients events_per_s=$per_s ratio_to_fsync=${ratio:--}"
        done | tee -a "$data/lines"
    done
  done
done
echo "# medians (events/s; ratio to fdatasync/s where the op is sync-bound)"
cut -d' ' -f1-3 "$data/lines" | sort -u | while read -r which op clients; do
  rows=$(grep "^$which $op $clients " "$data/lines")
  per_s=$(echo "$rows" | sed 's/.*events_per_s=\([^ ]*\).*/\1/' | sort -n)
  ratios=$(echo "$rows" | sed 's/.*ratio_to_fsync=\([^ ]*\).*/\1/' | sort -n)
  n=$(echo "$per_s" | wc -l)
  mid=$(((n + 1) / 2))
  echo "$which $op $clients events_per_s=$(echo "$per_s" | sed -n "${mid}p") ratio=$(echo "$ratios" | sed -n "${mid}p") all=$(echo $per_s | tr ' ' ,)"
done
