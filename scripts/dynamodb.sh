#!/usr/bin/env bash
# Throwaway DynamoDB-compatible servers on loopback, for the DynamoDB
# client's and backend's tests and benchmarks.
#
#   dynamodb.sh fetch                  installs the servers and the npm test
#                                      tools into the cache (below); quick and
#                                      silent when they are there already
#   dynamodb.sh start local|dynalite DIR [PORT]
#                                      starts a server with its data in
#                                      DIR/data (or the one already running
#                                      there) on PORT or a free port, waits
#                                      until it answers, prints its endpoint
#                                      (http://127.0.0.1:PORT)
#   dynamodb.sh stop DIR               SIGTERM, and waits until it is gone
#   dynamodb.sh kill DIR               SIGKILL, as in a crash
#   dynamodb.sh drop-tables ENDPOINT PREFIX
#                                      deletes the tables whose names start
#                                      with PREFIX (a test's, when it ends)
#   dynamodb.sh node SCRIPT [ARG...]   runs node with the pinned npm tools
#                                      (scripts/dynamodb/package.json) on
#                                      NODE_PATH
#
# `local` is DynamoDB Local, AWS's own emulator (Java 17: install-deps.sh),
# with -sharedDb so that every region and access key sees the same tables.
# Its licence forbids redistribution, so nothing of it is in this repository:
# `fetch` takes it out of the npm package amplify-dynamodb-simulator, which
# ships it under package/emulator/. `dynalite` is a Node.js implementation
# (LevelDB), without transactions, Streams or TTL.
#
# The cache is $INDELIBLE_DYNAMODB_CACHE, by default
# /var/cache/indelible/dynamodb (root) or ~/.cache/indelible/dynamodb.
# INDELIBLE_DYNAMODB_IN_MEMORY=1 keeps the data in memory instead of
# DIR/data (lost on stop). The server's output is DIR/server.log.
#
# INDELIBLE_DYNAMODB_TLS_DIR=D (dynalite only; DynamoDB Local has no TLS)
# serves https with D/key.pem and D/cert.pem, and prints https://127.0.0.1:PORT.
#
# DynamoDB Local has no option to choose its address: it listens on every
# interface of the machine, not only 127.0.0.1. dynalite listens on 127.0.0.1.
set -euo pipefail

usage="usage: dynamodb.sh fetch | start local|dynalite DIR [PORT] | stop DIR | kill DIR | drop-tables ENDPOINT PREFIX | node SCRIPT [ARG...]"
cmd=${1:?$usage}
here=$(cd "$(dirname "$0")" && pwd -P)

if [[ -n ${INDELIBLE_DYNAMODB_CACHE:-} ]]; then
  cache=$INDELIBLE_DYNAMODB_CACHE
elif [[ $(id -u) -eq 0 ]]; then
  cache=/var/cache/indelible/dynamodb
else
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/indelible/dynamodb
fi

# The DynamoDB Local release inside amplify-dynamodb-simulator@2.9.30
# (DynamoDB Local 1.25.1), and the sha256 of that npm tarball.
simulator=amplify-dynamodb-simulator@2.9.30
simulator_sha256=3503ffac19f183407909fecdacf4db51ab1fdad1da7b2f177016670b2d80e4b9
emulator=$cache/local/package/emulator
modules=$cache/node/node_modules

die() {
  echo "dynamodb.sh: $*" >&2
  exit 1
}

need() {
  command -v "$1" >/dev/null 2>&1 || die "$1 is not installed: $2"
}

fetch_local() {
  [[ -f $emulator/DynamoDBLocal.jar && -f $cache/local/$simulator_sha256 ]] && return 0
  need npm "install Node.js and npm (Debian: apt-get install nodejs npm)"
  local tmp
  tmp=$(mktemp -d "$cache/local.XXXXXX")
  (cd "$tmp" && npm pack --silent "$simulator" >pack.log 2>&1) ||
    { tail -5 "$tmp/pack.log" >&2; rm -rf "$tmp"; die "npm pack $simulator failed"; }
  local tgz=("$tmp"/*.tgz)
  [[ $(sha256sum "${tgz[0]}" | cut -d' ' -f1) == "$simulator_sha256" ]] ||
    { rm -rf "$tmp"; die "$simulator is not the tarball this script was written for (sha256 differs)"; }
  tar -xzf "${tgz[0]}" -C "$tmp" package/emulator
  rm -f "${tgz[0]}" "$tmp/pack.log"
  touch "$tmp/$simulator_sha256"
  # Swapped in whole, so that an interrupted fetch leaves no half emulator.
  rm -rf "$cache/local"
  mv "$tmp" "$cache/local"
}

# dynalite and the SigV4 reference signer, exactly as package-lock.json pins
# them; installed again only when the lock file changes.
fetch_node() {
  cmp -s "$here/dynamodb/package-lock.json" "$cache/node/package-lock.json" &&
    [[ -d $modules/dynalite ]] && return 0
  need npm "install Node.js and npm (Debian: apt-get install nodejs npm)"
  mkdir -p "$cache/node"
  cp "$here/dynamodb/package.json" "$here/dynamodb/package-lock.json" "$cache/node/"
  (cd "$cache/node" && npm ci --no-audit --no-fund --loglevel=error >npm.log 2>&1) ||
    { tail -5 "$cache/node/npm.log" >&2; rm -f "$cache/node/package-lock.json"; die "npm ci in $cache/node failed"; }
}

# fetch [local] [node]: what is named, or both.
fetch() {
  local parts=("$@")
  [[ ${#parts[@]} -gt 0 ]] || parts=(local node)
  mkdir -p "$cache"
  # One fetch at a time: tests started in parallel all call it.
  exec 9>"$cache/.lock"
  flock 9
  for part in "${parts[@]}"; do "fetch_$part"; done
  exec 9>&-
}

# Whether PID is a live process (a zombie has already exited).
alive() {
  local line state
  read -r line <"/proc/$1/stat" 2>/dev/null || return 1
  read -r state _ <<<"${line##*) }"
  [[ -n $state && $state != Z ]]
}

# The pid of the server started in DIR, if it is still running: the pid file
# names a live process whose command line names DIR (a pid file left by a
# server that died unseen may name a pid since reused).
server_pid() {
  local pid
  pid=$(cat "$dir/server.pid" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] && alive "$pid" || return 1
  tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -qxF -- "-Dindelible.dir=$dir" ||
    tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -qxF -- "--indelible-dir=$dir" ||
    return 1
  echo "$pid"
}

# Whether something accepts connections on 127.0.0.1:PORT.
listening() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Whether a DynamoDB server answers ListTables on PORT. Neither emulator
# checks signatures, but both want an Authorization header of the right shape.
answers() {
  local body='{}' reply
  reply=$(timeout 5 bash -c '
    exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
    printf "POST / HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nContent-Type: application/x-amz-json-1.0\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\nX-Amz-Date: 20200101T000000Z\r\nAuthorization: AWS4-HMAC-SHA256 Credential=probe/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00\r\nContent-Length: %s\r\nConnection: close\r\n\r\n%s" "$1" "${#2}" "$2" >&3
    cat <&3' _ "$1" "$body" 2>/dev/null) || true
  [[ $reply == *TableNames* ]]
}

# Starts KIND on PORT in the background; prints its pid.
launch() {
  local kind=$1 port=$2 store=()
  if [[ $kind == local ]]; then
    if [[ ${INDELIBLE_DYNAMODB_IN_MEMORY:-0} == 1 ]]; then store=(-inMemory); else store=(-dbPath "$dir/data"); fi
    # From the emulator's folder, as AWS runs it (it finds its native SQLite
    # library through java.library.path).
    (cd "$emulator" && exec java ${INDELIBLE_DYNAMODB_JAVA_OPTS:--Xmx1g} "-Dindelible.dir=$dir" \
      -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar -port "$port" \
      "${store[@]}" -sharedDb -disableTelemetry >>"$log" 2>&1 </dev/null) &
  else
    if [[ ${INDELIBLE_DYNAMODB_IN_MEMORY:-0} != 1 ]]; then store=(--path "$dir/data"); fi
    if [[ -n $tls ]]; then
      # dynalite takes the PEM texts themselves, not file names.
      store+=(--ssl --key "$(cat "$tls/key.pem")" --cert "$(cat "$tls/cert.pem")")
    fi
    # Tables become ACTIVE at once, as on DynamoDB Local.
    node "$modules/dynalite/cli.js" "--indelible-dir=$dir" --host 127.0.0.1 --port "$port" \
      "${store[@]}" --createTableMs 0 --deleteTableMs 0 --updateTableMs 0 \
      >>"$log" 2>&1 </dev/null &
  fi
  echo $!
}

start() {
  local kind=${1:?$usage} port=${2:-}
  [[ $kind == local || $kind == dynalite ]] || die "unknown server '$kind' (local or dynalite)"
  tls=${INDELIBLE_DYNAMODB_TLS_DIR:-}
  scheme=http
  if [[ -n $tls ]]; then
    [[ $kind == dynalite ]] || die "DynamoDB Local cannot serve https (INDELIBLE_DYNAMODB_TLS_DIR)"
    [[ -r $tls/key.pem && -r $tls/cert.pem ]] || die "$tls/key.pem and $tls/cert.pem must be readable"
    scheme=https
  fi
  [[ -z $port || $port =~ ^[0-9]+$ ]] || die "PORT must be a number, not '$port'"
  local pid
  if pid=$(server_pid); then
    local current
    current=$(cat "$dir/server.port")
    [[ $(cat "$dir/server.kind") == "$kind" ]] ||
      die "$dir has a $(cat "$dir/server.kind") server running: stop it first"
    [[ -z $port || $port == "$current" ]] ||
      die "the server in $dir is already running on port $current, not $port: stop it first"
    echo "$(cat "$dir/server.scheme")://127.0.0.1:$current"
    return 0
  fi
  if [[ $kind == local ]]; then
    need java "install openjdk-17-jre-headless (scripts/install-deps.sh)"
  else
    need node "install Node.js (Debian: apt-get install nodejs)"
  fi
  # Both, whichever is started: npm is needed for either anyway.
  fetch
  mkdir -p "$dir/data"

  # Without PORT, random ports below the kernel's ephemeral range (where
  # outgoing connections take theirs), until one binds: the server's own
  # bind is the only test of a free port that cannot race.
  local attempts try i waited
  attempts=$([[ -n $port ]] && echo 1 || echo 20)
  for ((i = 0; i < attempts; i++)); do
    try=${port:-$((20000 + RANDOM % 12000))}
    if listening "$try"; then
      [[ -n $port ]] && die "port $try is taken"
      continue
    fi
    : >"$log"
    pid=$(launch "$kind" "$try")
    echo "$pid" >"$dir/server.pid"
    echo "$kind" >"$dir/server.kind"
    echo "$try" >"$dir/server.port"
    echo "$scheme" >"$dir/server.scheme"
    # The JVM takes a few seconds; a busy machine running tests in parallel
    # may take far longer.
    for ((waited = 0; waited < 1200; waited++)); do
      if ! alive "$pid"; then break; fi
      # Over https, dynalite's own word that it listens (it binds, then says so).
      if { [[ $scheme == http ]] && answers "$try"; } ||
        { [[ $scheme == https ]] && grep -q '^Dynalite listening at' "$log"; }; then
        echo "$scheme://127.0.0.1:$try"
        return 0
      fi
      sleep 0.1
    done
    if alive "$pid"; then
      kill -KILL "$pid" 2>/dev/null || true
      tail -5 "$log" >&2
      die "the $kind server did not answer on port $try within 120 s; see $log"
    fi
    if [[ -z $port ]] && grep -qiE 'address already in use|EADDRINUSE' "$log"; then
      continue
    fi
    tail -5 "$log" >&2
    die "the $kind server exited on start; see $log"
  done
  die "found no free port in $attempts tries; see $log"
}

stop() {
  local signal=$1 pid
  pid=$(server_pid) || return 0
  kill "-$signal" "$pid" 2>/dev/null || true
  for _ in $(seq 1 300); do
    alive "$pid" || { rm -f "$dir/server.pid"; return 0; }
    sleep 0.1
  done
  die "the server (pid $pid) outlived SIG$signal for 30 s (dynamodb.sh kill $dir ends it)"
}

case "$cmd" in
  fetch) fetch ;;
  drop-tables)
    need node "install Node.js (Debian: apt-get install nodejs)"
    exec node "$here/dynamodb/drop-tables.mjs" "${2:?$usage}" "${3:?$usage}"
    ;;
  node)
    script=${2:?$usage}
    shift 2
    need node "install Node.js (Debian: apt-get install nodejs)"
    fetch node
    NODE_PATH=$modules exec node "$script" "$@"
    ;;
  start | stop | kill)
    dir=${3:-}
    [[ $cmd == start ]] || dir=${2:?$usage}
    [[ -n $dir ]] || die "$usage"
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd -P)
    log=$dir/server.log
    case "$cmd" in
      start) start "${2:?$usage}" "${4:-}" ;;
      stop) stop TERM ;;
      kill) stop KILL ;;
    esac
    ;;
  *)
    echo "dynamodb.sh: unknown command '$cmd'; $usage" >&2
    exit 2
    ;;
esac
