#!/usr/bin/env bash
# A throwaway nats-server with JetStream on loopback, for the relay's tests
# and benchmark (nats-server comes from apt: scripts/install-deps.sh).
#
#   nats-server.sh start DIR [PORT]  starts it (JetStream data in DIR/js) on
#                                    PORT, or a free port; prints its URL
#   nats-server.sh stop DIR          SIGTERM (JetStream flushes), waits
#   nats-server.sh kill DIR          SIGKILL
set -euo pipefail

cmd=${1:?usage: nats-server.sh start|stop|kill DIR [PORT]}
dir=${2:?usage: nats-server.sh start|stop|kill DIR [PORT]}
mkdir -p "$dir"
pidfile="$dir/nats.pid"

case "$cmd" in
  start)
    command -v nats-server >/dev/null ||
      { echo "nats-server.sh: nats-server is not installed: run scripts/install-deps.sh" >&2; exit 1; }
    port=${3:--1}  # -1: nats-server picks a free port
    rm -rf "$dir/ports" && mkdir -p "$dir/ports"
    nats-server -js -a 127.0.0.1 -p "$port" -sd "$dir/js" --ports_file_dir "$dir/ports" \
      >>"$dir/nats.log" 2>&1 &
    echo $! >"$pidfile"
    for _ in $(seq 1 100); do
      if compgen -G "$dir/ports/*.ports" >/dev/null; then
        url=$(sed -E 's/.*"nats":\["([^"]+)".*/\1/' "$dir"/ports/*.ports)
        echo "$url"
        exit 0
      fi
      kill -0 "$(cat "$pidfile")" 2>/dev/null ||
        { echo "nats-server.sh: nats-server exited; see $dir/nats.log" >&2; tail -5 "$dir/nats.log" >&2; exit 1; }
      sleep 0.1
    done
    echo "nats-server.sh: nats-server did not start in 10 s; see $dir/nats.log" >&2
    exit 1
    ;;
  stop | kill)
    [[ -f $pidfile ]] || exit 0
    pid=$(cat "$pidfile")
    kill "-$([[ $cmd == stop ]] && echo TERM || echo KILL)" "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || { rm -f "$pidfile"; exit 0; }
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$pidfile"
    ;;
  *)
    echo "nats-server.sh: unknown command '$cmd'" >&2
    exit 2
    ;;
esac
