#!/usr/bin/env python3
# Writes the hand-made seed inputs of fuzz/corpus/<harness>/ (committed;
# run again only to change them). Crash inputs are added by hand: see
# docs/FUZZING.md.
import os, struct, zlib, json
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus')
def put(h, name, data):
    d = os.path.join(root, h); os.makedirs(d, exist_ok=True)
    if isinstance(data, str): data = data.encode('utf-8', 'surrogatepass')
    open(os.path.join(d, name), 'wb').write(data)

H = 'http_request'
body = '{"id":"5f0c2a8e-3b1d-4c6e-9a7f-1e2d3c4b5a69","type":"Deposited","data":{"amount":10},"metadata":{"user":"u"}}'
put(H, 'append', f'POST /streams/account-1 HTTP/1.1\r\nHost: 127.0.0.1:2113\r\nContent-Type: application/json\r\nIf-Match: "3"\r\nContent-Length: {len(body)}\r\n\r\n{body}')
put(H, 'read', 'GET /streams/BANK_ACCOUNT%2F123?limit=10&from=0&direction=backward HTTP/1.1\r\nHost: localhost\r\n\r\n')
put(H, 'all', 'GET /all?category=a,b&prefix=acc&type=X&limit=10000&waitMs=100 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')
put(H, 'pipelined', 'GET /health HTTP/1.1\r\nHost: a\r\n\r\nGET /metrics HTTP/1.1\r\nHost: a\r\n\r\nDELETE /streams/x HTTP/1.1\r\nHost: a\r\nIf-None-Match: *\r\n\r\n')
chunk = '[{"type":"A","data":null},{"type":"B","contentType":"application/octet-stream","data":"AAEC"}]'
put(H, 'chunked', f'POST /streams/s HTTP/1.1\r\nHost: a\r\nContent-Type: application/json; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n{len(chunk):x}\r\n{chunk}\r\n0\r\n\r\n')
put(H, 'bad_version', 'GET / HTTP/9.9\r\n\r\n')
put(H, 'pull', 'POST /consumers/g/pull?max=5&consumer=c&waitMs=-1 HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n')
put(H, 'text_plain', 'POST /streams/s HTTP/1.1\r\nContent-Type: text/plain\r\nIf-Match: "99999999999999999999"\r\nContent-Length: 2\r\n\r\n{}')
put(H, 'expect', 'POST /streams/s HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\nnull')
put(H, 'http10_nul', 'GET /streams/a%00b%2f?limit=1e3&limit=2 HTTP/1.0\r\n\r\n')

E = 'event_json'
put(E, 'one', body)
put(E, 'array', '[{"type":"A"},{"type":"B","schema":"V2","data":[1,2.5,"x",true,null]}]')
put(E, 'binary', '{"type":"Blob","contentType":"application/octet-stream","data":"AAECAw=="}')
put(E, 'export', '{"id":"5f0c2a8e-3b1d-4c6e-9a7f-1e2d3c4b5a69","stream":"account-1","version":0,"position":1,"type":"Deposited","data":{},"metadata":{},"timestamp":1700000000000}')
put(E, 'invalid_id', '{"id":"not-a-uuid","type":"A"}')
put(E, 'deep', '[' * 40 + ']' * 40)
put(E, 'dupes_bignum', '{"type":"A","type":"B","data":1e400,"metadata":{"a":1,"a":"\\ud800"}}')
put(E, 'not_json', '{"type":')

B = 'base64'
for name, v in [('empty', ''), ('one', 'QQ=='), ('three', 'QUJD'), ('lowbits', 'QR=='),
                ('too_much_padding', 'AAAA===='), ('bad_char', 'QU*D'), ('unpadded', 'QQ'),
                ('long', 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=')]:
    put(B, name, v)

N = 'names_urls'
for name, v in [('stream', 'account-1'), ('reserved', '$all'), ('slash', 'BANK_ACCOUNT/123'),
                ('invalid_utf8', b'\xff\xfe'), ('control', 'a\x01b'), ('uuid', '5F0C2A8E-3b1d-4c6e-9a7f-1e2d3c4b5a69'),
                ('server_url', 'http://127.0.0.1:2113/prefix/'), ('server_ipv6', 'http://[::1]:80'),
                ('store_local', 'dynamodb://127.0.0.1:8000?region=us-east-1&prefix=ib_&tls=0&tip_appends=8&tip_bytes=2048'),
                ('store_aws', 'dynamodb://dynamodb.eu-west-1.amazonaws.com?prefix=shop_&commit_threads=4'),
                ('store_bad', 'dynamodb://[::1]:99999?region=x&index_lease_ms=1'),
                ('endpoint', 'https://dynamodb.us-east-1.amazonaws.com/')]:
    put(N, name, v)

F = 'embedded_format'
def rec(key, value): return bytes([len(key)]) + key + value
def seal(key, body): return struct.pack('<I', zlib.crc32(key + body)) + body
def event(pos, stream, version, ts, idb, typ, schema, ct, meta, data):
    body = struct.pack('<BBqq', 1, 0, version, ts) + idb + struct.pack('<HHHHII', len(stream), len(typ), len(schema), len(ct), len(meta), len(data)) + stream + typ + schema + ct + meta + data
    key = struct.pack('>Q', pos)
    return rec(key, seal(key, body))
idb = bytes(range(16))
put(F, 'event', event(1, b'account-1', 0, 1700000000000, idb, b'Deposited', b'V1', b'application/json', b'{}', b'{"amount":10}'))
put(F, 'event_binary', event(7, b's', 3, 0, idb, b'B', b'', b'application/octet-stream', b'{"a":1}', b'\x00\x01\x02'))
e = bytearray(event(2, b'x', 1, 1, idb, b'T', b'', b'', b'', b'')); e[-1:] = b''
put(F, 'event_truncated', bytes(e))
skey = b'account-1\x00' + struct.pack('>Q', 4)
put(F, 'stream_entry', rec(skey, seal(skey, struct.pack('<QI', 5, 2))))
put(F, 'head', rec(b'account-1', seal(b'account-1', struct.pack('<qQqB', 4, 9, 0, 1))))
put(F, 'id', rec(idb, seal(idb, struct.pack('<QQqI', 9, 8, 3, 2))))
# Format 2: an append entry (first position, count, life's first version,
# flags) under the append's first version, and an id entry (position).
put(F, 'append_entry', rec(skey, seal(skey, struct.pack('<QIqB', 5, 2, 0, 0))))
put(F, 'append_entry_tombstone', rec(skey, seal(skey, struct.pack('<QIqB', 9, 1, 0, 1))))
put(F, 'event_id', rec(idb, seal(idb, struct.pack('<Q', 9))))
stk = b'state/account-1'
put(F, 'state', rec(stk, seal(stk, struct.pack('<qQI', 4, 9, 2) + b'{"balance":10}')))
ck = b'checkpoint/projector'
put(F, 'checkpoint', rec(ck, seal(ck, b'{"position":42}')))
put(F, 'bad_crc', rec(b'k', b'\x00\x00\x00\x00' + b'\x01' * 25))

D = 'dynamodb_items'
ev = {"stream": {"S": "account-1"}, "version": {"N": "0"}, "id": {"S": "5f0c2a8e-3b1d-4c6e-9a7f-1e2d3c4b5a69"},
      "type": {"S": "Deposited"}, "data": {"S": "{\"amount\":10}"}, "timestamp": {"N": "1700000000000"}}
env = {k: v for k, v in ev.items() if k not in ("stream", "version")}
env_b = dict(env, content_type={"S": "application/octet-stream"}, data={"B": "AAEC"}, schema={"S": "V1"}, metadata={"S": "{\"u\":1}"})
tip = {"stream": {"S": "account-1"}, "version": {"N": "9007199254740991"}, "head": {"N": "2"}, "first": {"N": "0"},
       "deleted": {"BOOL": False}, "bytes": {"N": "400"},
       "a1": {"M": {"b": {"N": "200"}, "e": {"L": [{"M": env}, {"M": env_b}]}}},
       "recent": {"L": [{"M": {"f": {"N": "0"}, "ids": {"L": [{"S": "5f0c2a8e-3b1d-4c6e-9a7f-1e2d3c4b5a69"}]}}}]},
       "state": {"M": {"d": {"B": "e30="}, "s": {"N": "1"}, "v": {"N": "2"}}},
       "snap": {"M": {"v": {"N": "2"}, "p": {"N": "1"}}}}
put(D, 'event_item', json.dumps({"Item": ev}))
put(D, 'tip_item', json.dumps({"Item": tip, "ConsumedCapacity": {"TableName": "t", "CapacityUnits": 0.5}}))
put(D, 'query', json.dumps({"Items": [ev, tip, {"stream": {"S": "account-1"}, "version": {"N": "-33"}, "d": {"B": "e30="}, "s": {"N": "1"}, "v": {"N": "2"}, "i": {"N": "0"}, "p": {"N": "1"}}],
                             "snap": {"M": {"v": {"N": "2"}, "p": {"N": "1"}}}, "Count": 3,
                             "ConsumedCapacity": [{"CapacityUnits": 1}, {"CapacityUnits": 2.5}]}))
put(D, 'condition_failed', json.dumps({"__type": "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException", "message": "The conditional request failed", "Item": tip}))
put(D, 'tx_canceled', json.dumps({"__type": "com.amazonaws.dynamodb.v20120810#TransactionCanceledException", "Message": "Transaction cancelled",
                                  "CancellationReasons": [{"Code": "None"}, {"Code": "ConditionalCheckFailed", "Message": "m", "Item": ev}, {"Code": "ThrottlingError"}]}))
put(D, 'throttle', json.dumps({"__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException", "message": "slow down"}))
put(D, 'validation', json.dumps({"__type": "com.amazon.coral.validate#ValidationException", "message": "Item size has exceeded the maximum allowed size"}))
put(D, 'iso_time', '2024-01-02T03:04:05.678Z')
append_item = dict(ev, version={"N": "3"}, n={"N": "3"}, f={"N": "2"}, lk={"S": "streams"},
                   more={"L": [{"M": env_b}, {"M": env}]},
                   state={"M": {"d": {"B": "e30="}, "s": {"N": "1"}, "v": {"N": "5"}}})
put(D, 'append_item', json.dumps({"Item": append_item}))
put(D, 'not_object', '<html>502 Bad Gateway</html>')
