// A CommonJS program: the package through require(), from the npm pack
// tarball (scripts/test-typescript.sh installs it in a temp folder and runs
// this against a server):   node require.cjs http://127.0.0.1:PORT
'use strict';
const assert = require('node:assert/strict');
const { Client, CodecError, ConflictError, dateCodec } = require('@indelible/client');

async function roundTrip(client, stream) {
  await client.append(stream, { type: 'Opened', data: { n: 1 } }, { expected: 'no_stream' });
  await client.append(stream, [{ type: 'Bytes', data: new Uint8Array([0, 255]) }], { expected: 0 });
  const conflict = await client.append(stream, { type: 'Late' }, { expected: 0 }).catch((e) => e);
  assert.ok(conflict instanceof ConflictError, String(conflict));
  assert.equal(conflict.actualVersion, 1);
  const events = [];
  for await (const e of client.readStream(stream)) events.push(e);
  assert.deepEqual(events.map((e) => e.type), ['Opened', 'Bytes']);
  assert.deepEqual([...events[1].data], [0, 255]);
  return events.length;
}

// Codecs (README, "Typed events"): a Date out as an ISO string, back as a Date.
async function codecRoundTrip(url, stream, transport) {
  const client = new Client(url, { transport, codecs: { Placed: dateCodec('at') } });
  const at = new Date('2024-05-01T10:00:00.000Z');
  await client.append(stream, { type: 'Placed', data: { at } });
  const bad = await client.append(stream, { type: 'Placed', data: { at: 'soon' } }).catch((e) => e);
  assert.ok(bad instanceof CodecError && bad.field === 'event.data', String(bad));
  const first = async (events) => {
    for await (const e of events) return e;
  };
  const typed = await first(client.readStream(stream));
  assert.ok(typed.data.at instanceof Date && typed.data.at.getTime() === at.getTime(), String(typed.data.at));
  const raw = await first(client.readStream(stream, { raw: true }));
  assert.equal(raw.data.at, '2024-05-01T10:00:00.000Z');
  client.close();
}

(async () => {
  const url = process.argv[2];
  const run = Date.now().toString(36);
  // The default on Node: node:http, imported lazily (a require in this build).
  const node = new Client(url);
  assert.equal(node.transportKind, 'node');
  const a = await roundTrip(node, `cjs-node-${run}`);
  node.close();
  const viaFetch = new Client(url, { transport: 'fetch' });
  const b = await roundTrip(viaFetch, `cjs-fetch-${run}`);
  viaFetch.close();
  await codecRoundTrip(url, `cjs-codec-node-${run}`, 'node');
  await codecRoundTrip(url, `cjs-codec-fetch-${run}`, 'fetch');
  console.log(`require: ok (node transport ${a} events, fetch transport ${b} events)`);
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
