#!/usr/bin/env bash
# Before/after of `indelible serve` (docs/BENCHMARKS.md): two release builds,
# OLD and NEW (checkouts with build/release built, e.g. a `git worktree` of
# the older commit), run in turn RUNS times with the same load generator and
# static yardstick server (NEW's), so both see the same machine state. Prints
# every line tagged old/new and the medians.
#   [PHASES=...] scripts/bench-http-ab.sh OLD_CHECKOUT [RUNS] [NEW_CHECKOUT]
# Build both first: scripts/build.sh release indelible indelible-http-bench
# indelible-static-server (in each checkout).
set -euo pipefail
old_tree=${1:?usage: bench-http-ab.sh OLD_CHECKOUT [RUNS] [NEW_CHECKOUT]}
runs=${2:-3}
new_tree=${3:-$(cd "$(dirname "$0")/.." && pwd)}
# PHASES=append,head,static for the append's ratio to the static server alone.
phases=${PHASES:-append,head,static,sse,pull}
data=$(mktemp -d /var/tmp/ab-bench-XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill $p 2>/dev/null||true; done; wait 2>/dev/null; rm -rf $data' EXIT
start() { local name=$1; shift; "$@" >"$data/$name.out" 2>"$data/$name.err" & pids+=($!);
  for _ in $(seq 100); do grep -q "listening on" "$data/$name.out" 2>/dev/null && return 0; sleep 0.1; done; echo "no start $name"; exit 1; }
port_of() { grep -o '[0-9]*$' "$data/$1.out"; }
nb=$new_tree/build/release
echo "# A/B runs=$runs load=$(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%FT%TZ)"
for run in $(seq $runs); do
  for which in old new; do
    rm -rf "$data/store"
    if [ $which = old ]; then bin=$old_tree/build/release; else bin=$nb; fi
    start "serve-$which-$run" $bin/src/cli/indelible serve --store "file:$data/store" --listen 127.0.0.1:0
    start "static-$which-$run" $nb/bench/http/indelible-static-server
    $nb/bench/http/indelible-http-bench --port "$(port_of serve-$which-$run)" --static-port "$(port_of static-$which-$run)" \
      --server-pid "${pids[-2]}" --phases "$phases" | sed "s/^/$which /" | tee -a $data/lines
    for p in "${pids[@]}"; do kill $p 2>/dev/null||true; done; wait 2>/dev/null||true; pids=()
  done
done
echo "# medians"
cut -d' ' -f1-3 $data/lines | sort -u | while read -r which bench figure; do
  values=$(grep "^$which $bench $figure " $data/lines | cut -d' ' -f4 | cut -d= -f2 | sort -n)
  n=$(echo "$values" | wc -l)
  echo "$which $bench $figure median=$(echo "$values" | sed -n "$(((n+1)/2))p") all=$(echo $values | tr ' ' ,)"
done
