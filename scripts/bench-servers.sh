# Sourced by the HTTP benchmarks (bench-http.sh, bench-security.sh): servers
# started in the background on free ports, each with its output in $data,
# all stopped (and $data removed) on exit. The caller sets `data` (a
# folder of its own) before sourcing.
#   start NAME CMD...   start CMD, wait for its "listening on" line
#   port_of NAME        the port it printed
#   stop_all            stop every server started so far
pids=()
stop_all() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pids=()
}
cleanup() {
  stop_all
  rm -rf "$data"
}
trap cleanup EXIT

start() {
  local name=$1; shift
  "$@" >"$data/$name.out" 2>"$data/$name.err" &
  pids+=($!)
  for _ in $(seq 100); do
    grep -q "listening on" "$data/$name.out" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "$(basename "$0"): $name did not start; see $data/$name.err" >&2
  cat "$data/$name.err" >&2
  exit 1
}
port_of() { grep -o '[0-9]*$' "$data/$1.out"; }
