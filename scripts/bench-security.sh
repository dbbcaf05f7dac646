#!/usr/bin/env bash
# The security benchmarks of docs/BENCHMARKS.md ("Security: TLS and
# authentication"): builds the release preset, then in each run starts, one
# after the other on a fresh durable embedded store each,
#   plain  `indelible serve`
#   tls    `indelible serve --tls-cert/--tls-key` (a CA and certificate made
#          here with openssl)
#   auth   `indelible serve --auth`, with an admin API key made by
#          `indelible keys create` and sent as "Authorization: Bearer KEY"
# and runs indelible-http-bench's append and head phases against each (64
# keep-alive connections, as scripts/bench-http.sh). Prints the median of
# each figure over RUNS runs (default 3) and the ratios tls/plain and
# auth/plain.
#   scripts/bench-security.sh [RUNS] [DATA_PARENT]
# A binary without the `keys` verb (before authentication landed) runs the
# plain and tls parts only, and says so on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
parent=${2:-/var/tmp}
scripts/build.sh release indelible indelible-http-bench >/dev/null
bin=build/release
indelible=$bin/src/cli/indelible
data=$(mktemp -d "$parent/indelible-security-bench-XXXXXX")
# start, port_of, stop_all; everything stopped and removed on exit.
source scripts/bench-servers.sh

# The certificate: a CA and a server certificate for 127.0.0.1 (RSA 2048,
# what most deployments present).
(
  cd "$data"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 \
    -subj '/CN=bench CA'
  openssl req -newkey rsa:2048 -nodes -keyout key.pem -out server.csr -subj '/CN=127.0.0.1'
  printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >ext
  openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out cert.pem \
    -days 2 -extfile ext
) >"$data/openssl.log" 2>&1 || { cat "$data/openssl.log" >&2; exit 1; }

modes=(plain tls)
# (`indelible keys --help` would not tell: CLI11 prints the main help for
# an unknown verb too.)
if "$indelible" --help | grep -qE '^  keys( |$)'; then
  modes+=(auth)
else
  echo "bench-security: this indelible has no 'keys' verb (authentication not built in): skipping auth" >&2
fi

echo "# indelible-http-bench security runs=$runs modes=${modes[*]} cores=$(nproc) load=$(cut -d' ' -f1-3 /proc/loadavg) fs=$(stat -f -c %T "$parent")"
for run in $(seq "$runs"); do
  echo "# run $run of $runs"
  for mode in "${modes[@]}"; do
    store=$data/store-$mode
    rm -rf "$store"
    flags=()
    bench=(--phases append,head --label "mode=$mode")
    case $mode in
      tls)
        flags=(--tls-cert "$data/cert.pem" --tls-key "$data/key.pem")
        bench+=(--tls-ca "$data/ca.pem")
        ;;
      auth)
        key=$("$indelible" --data "$store" keys create bench --role admin 2>/dev/null)
        flags=(--auth)
        bench+=(--header "Authorization: Bearer $key")
        ;;
    esac
    start "$mode-$run" "$indelible" serve --store "file:$store" --listen 127.0.0.1:0 "${flags[@]}"
    "$bin/bench/http/indelible-http-bench" --port "$(port_of "$mode-$run")" "${bench[@]}" |
      tee -a "$data/lines"
    stop_all
  done
done

# The median of each figure per mode over the runs, then the ratios.
echo "# medians of $runs runs"
median() { # bench figure mode
  grep "^bench=$1 figure=$2 " "$data/lines" | grep " mode=$3\( \|$\)" |
    sed 's/.* value=\([0-9.]*\).*/\1/' | sort -n |
    awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]; else print 0}'
}
for figure in "http_append events_per_s" "http_append p50_us" "http_append p99_us" \
  "http_head requests_per_s" "http_head p50_us" "http_head p99_us"; do
  read -r b f <<<"$figure"
  plain=$(median "$b" "$f" plain)
  line="$b $f plain=$plain"
  for mode in "${modes[@]:1}"; do
    value=$(median "$b" "$f" "$mode")
    line+=" $mode=$value $mode/plain=$(awk -v a="$value" -v b="$plain" 'BEGIN {printf "%.2f", b ? a / b : 0}')"
  done
  echo "$line runs=$runs"
done
