#!/usr/bin/env bash
# The HTTP benchmarks of docs/BENCHMARKS.md: builds the release preset,
# starts `indelible serve` (durable, embedded store in a fresh folder) and
# the static yardstick server on free loopback ports, runs
# indelible-http-bench RUNS times (default 3) and stops the servers.
#   scripts/bench-http.sh [RUNS] [DATA_PARENT]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
parent=${2:-/var/tmp}
scripts/build.sh release indelible indelible-http-bench indelible-static-server >/dev/null
bin=build/release
data=$(mktemp -d "$parent/indelible-http-bench-XXXXXX")
# start, port_of, stop_all; everything stopped and removed on exit.
source scripts/bench-servers.sh

echo "# indelible-http-bench runs=$runs cores=$(nproc) load=$(cut -d' ' -f1-3 /proc/loadavg) fs=$(stat -f -c %T "$parent")"
for run in $(seq "$runs"); do
  echo "# run $run of $runs"
  rm -rf "$data/store"
  start "serve-$run" "$bin/src/cli/indelible" serve --store "file:$data/store" --listen 127.0.0.1:0
  start "static-$run" "$bin/bench/http/indelible-static-server"
  "$bin/bench/http/indelible-http-bench" --port "$(port_of "serve-$run")" \
    --static-port "$(port_of "static-$run")" --server-pid "${pids[-2]}" | tee -a "$data/lines"
  stop_all
done

# The median of each figure over the runs (what docs/BENCHMARKS.md reports).
echo "# medians of $runs runs"
cut -d' ' -f1,2 "$data/lines" | sort -u | while read -r bench figure; do
  values=$(grep "^$bench $figure " "$data/lines" | cut -d' ' -f3 | cut -d= -f2 | sort -n)
  n=$(echo "$values" | wc -l)
  echo "$bench $figure median=$(echo "$values" | sed -n "$(((n + 1) / 2))p") runs=$n"
done
