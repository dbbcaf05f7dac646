#!/usr/bin/env bash
# ledger-append v1 (../shared/bench/WORKLOAD.md) on Message DB and on
# indelible in the same run, so their ratio is measured, not quoted: each
# round starts a throwaway PostgreSQL 15 cluster (scripts/postgres.sh, its
# durability defaults: fsync=on, synchronous_commit=on), installs Message DB
# into it with Message DB's own install script, runs the workload on it with
# CLIENTS=1 and 8 (build/release/bench/indelible-messagedb-bench), stops it,
# then runs `indelible bench workload` with the same settings on the same
# disk. Prints every line, then the medians and the ratios.
#
#   scripts/bench-messagedb.sh [RUNS] [DATA_DIR]
#
# Build first: scripts/build.sh release indelible indelible_messagedb_bench.
# Message DB comes from the npm registry (@eventide/message-db, pinned
# below), unpacked once into build/message-db-VERSION.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-3}
version=1.3.1
release=$root/build/release
peer=$release/bench/indelible-messagedb-bench
indelible=$release/src/cli/indelible
for bin in "$peer" "$indelible"; do
  [[ -x $bin ]] || { echo "bench-messagedb.sh: $bin is missing; build it first:" \
    "scripts/build.sh release indelible indelible_messagedb_bench" >&2; exit 1; }
done

mdb=$root/build/message-db-$version
if [[ ! -f $mdb/database/install.sh ]]; then
  unpack=$(mktemp -d)
  (cd "$unpack" && npm pack --silent "@eventide/message-db@$version" >/dev/null &&
    tar xzf "eventide-message-db-$version.tgz")
  mkdir -p "$(dirname "$mdb")" && rm -rf "$mdb" && mv "$unpack/package" "$mdb" && rm -rf "$unpack"
fi

data=$(mktemp -d "${2:-/var/tmp}/bench-messagedb-XXXXXX")
chmod 755 "$data"  # the cluster runs as `postgres` when we are root
cluster=$data/pg
stop() { "$root/scripts/postgres.sh" stop "$cluster" >/dev/null 2>&1 || true; }
trap 'stop; rm -rf "$data"' EXIT
lines=$data/lines

echo "# ledger-append v1: Message DB $version on PostgreSQL 15 and indelible, runs=$runs" \
  "load=$(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%FT%TZ)"
for run in $(seq "$runs"); do
  rm -rf "$cluster"
  uri=$("$root/scripts/postgres.sh" start "$cluster" | tail -1)
  port=${uri##*:}
  port=${port%%/*}
  PGHOST=127.0.0.1 PGPORT=$port PGUSER=postgres DATABASE_NAME=message_store \
    PGOPTIONS='-c client_min_messages=warning' bash "$mdb/database/install.sh" >"$data/install.log" 2>&1 ||
    { cat "$data/install.log" >&2; exit 1; }
  for clients in 1 8; do
    CLIENTS=$clients "$peer" "postgresql://postgres@127.0.0.1:$port/message_store" |
      sed "s/^/workload_clients=$clients /" | tee -a "$lines"
  done
  stop
  for clients in 1 8; do
    CLIENTS=$clients "$indelible" bench workload --data "$data" --runs 1 2>/dev/null |
      grep -E '^peer=' | sed "s/^/workload_clients=$clients /" | tee -a "$lines"
  done
done

# Medians per peer, phase and workload CLIENTS (read_all always has one
# reader: it follows the append phase of that many writers).
rate() {
  grep -E "^workload_clients=$3 peer=$1 op=$2 " "$lines" | tr ' ' '\n' |
    sed -n 's/^events_per_s=//p' | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'
}
echo "# medians of $runs rounds, events/s (ratio = indelible / Message DB, same rounds)"
for clients in 1 8; do
  for op in append read read_all; do
    m=$(rate messagedb $op $clients)
    i=$(rate indelible $op $clients)
    echo "op=$op clients=$clients messagedb=$m indelible=$i ratio=$(awk -v a="$i" -v b="$m" 'BEGIN {printf "%.1f", a / b}')"
  done
done
