// A CommonJS program: the package through require(), from the npm pack
// tarball (scripts/test-typescript.sh installs it in a temp folder and runs
// this against a server):   node require.cjs http://127.0.0.1:PORT
'use strict';
const assert = require('node:assert/strict');
const { Client, ConflictError } = require('@indelible/client');

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
  console.log(`require: ok (node transport ${a} events, fetch transport ${b} events)`);
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
