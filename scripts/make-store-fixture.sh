#!/usr/bin/env bash
# Writes tests/fixtures/vN-store.tar.gz: `vN-store/`, a data folder in the
# embedded engine's format N written by a release that writes format N (the
# last of format 1 is 8e66504, of format 2 4f87b6d), and `vN-store.jsonl`,
# its `indelible export` by that release, for the upgrade tests
# (tests/integration/upgrade_test.cc) to compare.
#
# Usage: scripts/make-store-fixture.sh N INDELIBLE_BINARY_OF_A_FORMAT_N_RELEASE
# It covers what later formats lay out differently: appends of 1 and many
# events, deleted streams and new lives after a delete, state records
# (written and dropped by a delete), consumer group records, known ids for
# retries, and enough streams and events to span several RocksDB blocks.
set -euo pipefail
format=${1:?usage: $0 N INDELIBLE_BINARY_OF_A_FORMAT_N_RELEASE}
bin=${2:?usage: $0 N INDELIBLE_BINARY_OF_A_FORMAT_N_RELEASE}
name=v$format-store
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
data=$work/$name

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" --data "$data" serve --listen 127.0.0.1:$port >"$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
post() { curl -sf -o /dev/null -X POST -H 'content-type: application/json' "http://127.0.0.1:$port$1" -d "$2"; }
del() { curl -sf -o /dev/null -X DELETE "http://127.0.0.1:$port$1"; }
uuid() { python3 -c 'import uuid; print(uuid.uuid4())'; }

# One-event and many-event appends on one stream.
post /streams/order-1 '{"type":"Placed","data":{"n":1}}'
post /streams/order-1 '[{"type":"Paid","data":{"n":2}},{"type":"Packed","data":{"n":3}},{"type":"Shipped","data":{"n":4}}]'
post /streams/order-1 '[{"type":"Delivered","data":{"n":5}},{"type":"Rated","data":{"n":6},"metadata":{"by":"ann"}}]'
# Deleted, then a new life; and deleted for good.
post /streams/cart-7 '[{"type":"Added","data":{"sku":"a"}},{"type":"Added","data":{"sku":"b"}}]'
del /streams/cart-7
post /streams/cart-7 '[{"type":"Added","data":{"sku":"c"}},{"type":"Removed","data":{"sku":"c"}}]'
post /streams/gone-1 '{"type":"Created","data":{}}'
del /streams/gone-1
# State records: one kept, one dropped by a delete.
post /commits '{"appends":[{"stream":"BANK_ACCOUNT/1","expected":"no_stream","events":[{"type":"Opened","data":{"amount":25}}],"state":{"data":{"balance":25},"schema":1}},{"stream":"outbox-BANK_ACCOUNT/1","events":[{"type":"accountOpened","data":{"accountId":"1"}}]}]}'
post /commits '{"appends":[{"stream":"BANK_ACCOUNT/1","expected":0,"events":[{"type":"Withdrawn","data":{"amount":-300}}],"state":{"data":{"balance":-275},"schema":1}}]}'
post /commits '{"appends":[{"stream":"BANK_ACCOUNT/2","expected":"no_stream","events":[{"type":"Opened","data":{"amount":5}}],"state":{"data":{"balance":5},"schema":1}}]}'
del /streams/BANK_ACCOUNT%2F2
# A known id, for idempotent retries after the upgrade.
post /streams/retry-1 '[{"id":"6f1c2a52-8f5e-4d7a-9d1e-2b3c4d5e6f70","type":"A","data":{}},{"id":"6f1c2a52-8f5e-4d7a-9d1e-2b3c4d5e6f71","type":"B","data":{}}]'
# Volume: 3,000 events over 60 streams, appends of 1 to 9 events.
python3 - "$port" <<'PY'
import json, sys, urllib.request
port = sys.argv[1]
n = 0
for round_ in range(100):
    for s in range(60):
        size = 1 + (round_ * 7 + s) % 9
        if n + size > 3000: size = max(1, 3000 - n)
        if n >= 3000: break
        body = [{"type": "Tick", "data": {"round": round_, "i": i, "pad": "x" * (s % 10)}} for i in range(size)]
        req = urllib.request.Request(f"http://127.0.0.1:{port}/streams/load-{s:03d}", json.dumps(body).encode(),
                                     {"content-type": "application/json"})
        urllib.request.urlopen(req).read()
        n += size
PY
kill -TERM $server; wait $server || true
"$bin" --data "$data" consumers create billing --category BANK_ACCOUNT --policy park >/dev/null
"$bin" --data "$data" check
"$bin" --data "$data" export >"$work/$name.jsonl" 2>/dev/null
rm -f "$data"/LOG* "$data"/LOCK  # RocksDB's info logs: not data
tar -C "$work" -czf "$root/tests/fixtures/$name.tar.gz" "$name" "$name.jsonl"
echo "wrote tests/fixtures/$name.tar.gz ($(du -h "$root/tests/fixtures/$name.tar.gz" | cut -f1)): $(wc -l <"$work/$name.jsonl") events"
