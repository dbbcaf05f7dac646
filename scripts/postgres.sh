#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster on loopback, for the read stores' tests
# and benchmarks (postgresql-15 comes from apt: scripts/install-deps.sh).
#
#   postgres.sh start DIR [PORT]  creates the cluster in DIR/data (or starts
#                                 the one already there) on 127.0.0.1:PORT, or
#                                 a free port; creates database `indelible`;
#                                 prints its URI (postgresql://postgres@...)
#   postgres.sh stop DIR          fast shutdown (clients cut off, all flushed)
#   postgres.sh kill DIR          SIGKILL to the server and its children, as
#                                 in a crash: the next start recovers
#
# Trust auth, only 127.0.0.1, unix sockets in DIR, durability settings at
# their defaults. The server log is DIR/postgres.log.
#
# PostgreSQL refuses to run as root, so as root (CI) the server runs as the
# `postgres` system user (made by the postgresql-15 package), which owns DIR;
# every folder above DIR must let that user through (o+x). Otherwise the
# server runs as whoever runs this script.
set -euo pipefail

usage="usage: postgres.sh start|stop|kill DIR [PORT]"
cmd=${1:?$usage}
dir=${2:?$usage}
bindir=${INDELIBLE_PG_BINDIR:-/usr/lib/postgresql/15/bin}
database=indelible
superuser=postgres

die() {
  echo "postgres.sh: $*" >&2
  exit 1
}

# initdb, pg_ctl and postgres exit at once when run as root.
if [[ $(id -u) -eq 0 ]]; then
  owner=postgres
  id "$owner" >/dev/null 2>&1 ||
    die "there is no '$owner' user to run the server as (root may not):" \
      "run scripts/install-deps.sh (postgresql-15 makes it)"
  as_owner() { runuser -u "$owner" -- "$@"; }
else
  owner=$(id -un)
  as_owner() { "$@"; }
fi

# The server is handed absolute paths, and runs from / so that it never
# depends on a working folder its user may not be allowed into.
mkdir -p "$dir"
dir=$(cd "$dir" && pwd -P)
cd /
data="$dir/data"
log="$dir/postgres.log"
pidfile="$data/postmaster.pid"

# Whether PID is a live process (a zombie, left by an init that does not
# reap, has already exited).
alive() {
  local line state
  read -r line <"/proc/$1/stat" 2>/dev/null || return 1
  read -r state _ <<<"${line##*) }"
  [[ -n $state && $state != Z ]]
}

# Whether the cluster in DIR is up: its lock file names a live process that
# works in DIR/data, as the postmaster does (a stale file from a server that
# died unseen may name a pid since reused, which must not be signalled).
running() {
  [[ -f $pidfile ]] || return 1
  local pid
  pid=$(head -1 "$pidfile" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] && alive "$pid" && [[ $(readlink "/proc/$pid/cwd") == "$data" ]]
}

uri() { echo "postgresql://$superuser@127.0.0.1:$1/$database"; }

# Runs the pg client tools over TCP, as the clients will connect.
client() {
  local tool=$1 port=$2
  shift 2
  PGCONNECT_TIMEOUT=10 "$bindir/$tool" -h 127.0.0.1 -p "$port" -U "$superuser" "$@"
}

case "$cmd" in
  start)
    for tool in initdb pg_ctl postgres psql createdb; do
      [[ -x $bindir/$tool ]] ||
        die "$bindir/$tool is missing: is postgresql-15 installed? run scripts/install-deps.sh"
    done
    port=${3:-}
    [[ -z $port || $port =~ ^[0-9]+$ ]] || die "PORT must be a number, not '$port'"
    # The socket is DIR/.s.PGSQL.PORT and a socket path holds 107 bytes.
    [[ $((${#dir} + 15)) -le 107 ]] ||
      die "DIR is too long for a unix socket path (at most 92 bytes): $dir"

    if running; then
      # Started already: say where, unless it was asked for elsewhere.
      current=$(sed -n 4p "$pidfile")
      [[ -z $port || $port == "$current" ]] ||
        die "the cluster in $dir is already running on port $current, not $port: stop it first"
      uri "$current"
      exit 0
    fi

    if [[ $owner != $(id -un) ]]; then
      chown "$owner": "$dir"
      if ! as_owner test -w "$dir" -a -x "$dir"; then
        # Name the topmost folder it may not pass through.
        blocker=$dir d=$dir
        while [[ $d != / ]]; do
          as_owner test -x "$d" || blocker=$d
          d=$(dirname "$d")
        done
        die "the '$owner' user cannot get into $dir because of" \
          "$blocker ($(stat -c '%A %U' "$blocker")): chmod o+x $blocker," \
          "or choose a DIR that every user may reach"
      fi
    fi

    if [[ ! -f $data/PG_VERSION ]]; then
      # A half-made cluster from an initdb that was killed: start afresh.
      rm -rf "$data"
      # --no-sync skips only initdb's closing flush of the fresh files (seconds
      # on a busy disk), as PostgreSQL's own test harness does. The server's
      # fsync settings stay at their defaults, and a killed server loses
      # nothing by it (the files are in the page cache); only a machine
      # crash could, and that ends the tests using the cluster anyway.
      as_owner "$bindir/initdb" -D "$data" -U "$superuser" --auth=trust -E UTF8 --locale=C \
        --no-instructions --no-sync >"$dir/initdb.log" 2>&1 ||
        { tail -5 "$dir/initdb.log" >&2; die "initdb failed; see $dir/initdb.log"; }
      # Only the loopback address and the unix socket are let in, by trust.
      cat >"$data/pg_hba.conf" <<EOF
# scripts/postgres.sh: a throwaway cluster; anyone on this machine may connect.
local all all trust
host  all all 127.0.0.1/32 trust
EOF
      cat >>"$data/postgresql.conf" <<EOF

# scripts/postgres.sh: loopback only, sockets beside the data, not in /var/run.
listen_addresses = '127.0.0.1'
unix_socket_directories = '${dir//\'/\'\'}'
EOF
    fi

    # Without PORT, try random ports below the kernel's ephemeral range
    # (where outgoing connections take theirs) until the bind succeeds: the
    # server's own bind is the only test of a free port that cannot race.
    attempts=$([[ -n $port ]] && echo 1 || echo 20)
    for ((i = 0; i < attempts; i++)); do
      try=${port:-$((20000 + RANDOM % 12000))}
      before=$(stat -c %s "$log" 2>/dev/null || echo 0)
      # -w: returns once the server accepts connections (or has failed).
      if said=$(as_owner "$bindir/pg_ctl" start -D "$data" -l "$log" -o "-p $try" -w -t 60 2>&1)
      then
        port=$try
        break
      fi
      if running; then  # -t ran out while it was still starting
        as_owner "$bindir/pg_ctl" stop -D "$data" -m immediate >/dev/null 2>&1 || true
      fi
      if [[ -z $port ]] && tail -c +$((before + 1)) "$log" | grep -q 'could not bind'; then
        continue
      fi
      { echo "$said"; tail -c +$((before + 1)) "$log" 2>/dev/null | tail -5; } >&2
      die "PostgreSQL did not start on port $try; see $log"
    done
    [[ -n $port ]] || die "found no free port in $attempts tries; see $log"

    exists=$(client psql "$port" -X -d postgres -tAc \
      "SELECT 1 FROM pg_database WHERE datname = '$database'") ||
      die "cannot connect to 127.0.0.1:$port; see $log"
    [[ $exists == 1 ]] || client createdb "$port" "$database" || die "createdb $database failed"
    uri "$port"
    ;;
  stop)
    running || exit 0
    as_owner "$bindir/pg_ctl" stop -D "$data" -m fast -w -t 60 >/dev/null ||
      die "pg_ctl stop failed; see $log (postgres.sh kill $dir ends it)"
    ;;
  kill)
    running || exit 0
    pid=$(head -1 "$pidfile")
    # Stop the postmaster first so that it forks no child we would miss;
    # each child is in its own session, so it must be found by parent.
    kill -STOP "$pid" 2>/dev/null || true
    pids=("$pid")
    for stat in /proc/[0-9]*/stat; do
      # Fields after the command's "(name) ": state, then the parent's pid.
      read -r line <"$stat" 2>/dev/null || continue
      read -r _ ppid _ <<<"${line##*) }"
      if [[ $ppid == "$pid" ]]; then
        p=${stat#/proc/}
        pids+=("${p%/stat}")
      fi
    done
    kill -KILL "${pids[@]}" 2>/dev/null || true
    for _ in $(seq 1 100); do
      left=0
      for p in "${pids[@]}"; do alive "$p" && left=1; done
      [[ $left == 0 ]] && break
      sleep 0.1
    done
    [[ $left == 0 ]] || die "processes ${pids[*]} outlived SIGKILL for 10 s"
    # The lock file's last line but one holds the key and id of the small
    # SysV segment the server would have removed: remove it. Then the lock
    # files (the data's and the socket's), which the server checks by
    # signalling the pid they name: a zombie, or a reused pid, would pass
    # for a server still running.
    shmid=$(sed -n 7p "$pidfile" | awk '{print $2}')
    [[ -z $shmid ]] || ipcrm -m "$shmid" 2>/dev/null || true
    rm -f "$pidfile" "$dir"/.s.PGSQL.*
    ;;
  *)
    echo "postgres.sh: unknown command '$cmd'; $usage" >&2
    exit 2
    ;;
esac
