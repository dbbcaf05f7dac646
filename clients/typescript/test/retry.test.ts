// Safe retries: the connection drops after the server wrote the append but
// before the answer arrived; the client sends it again with the same event
// ids, and the store holds the events once.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, UnavailableError } from './subject.js';
import { CuttingProxy } from './proxy.js';
import { Server, collect, unique } from './server.js';

let server: Server;
let proxy: CuttingProxy;

before(async () => {
  server = await Server.start();
  proxy = await new CuttingProxy(server.port).listen();
});
after(async () => {
  await proxy.close();
  await server.stop();
});

test('an append whose answer is lost is retried as a replay: one copy stored', async () => {
  const client = new Client(proxy.url);
  const stream = unique('retry-');
  await client.append(stream, { type: 'Before' });
  proxy.requests = [];
  proxy.cutOnce((line) => line.startsWith('POST /streams/'));
  // No ids given: the client makes them before the first attempt.
  const result = await client.append(stream, [{ type: 'A', data: { n: 1 } }, { type: 'B' }], { expected: 0 });
  assert.equal(proxy.cuts, 1);
  assert.equal(proxy.requests.filter((l) => l.startsWith('POST')).length, 2, 'sent twice');
  assert.equal(result.replayed, true, 'the second attempt found the first one written');
  assert.equal(result.firstVersion, 1);
  assert.equal(result.lastVersion, 2);
  const events = await collect(new Client(server.url).readStream(stream));
  assert.deepEqual(events.map((e) => e.type), ['Before', 'A', 'B']);
});

test('with retries: 0 the lost answer is an UnavailableError (status 0), and the write did happen', async () => {
  const client = new Client(proxy.url, { retries: 0 });
  const stream = unique('noretry-');
  proxy.cutOnce((line) => line.startsWith('POST /streams/'));
  const err = await client.append(stream, { id: crypto.randomUUID(), type: 'A' }).catch((e: unknown) => e);
  assert.ok(err instanceof UnavailableError, String(err));
  assert.equal(err.status, 0);
  assert.equal((await collect(new Client(server.url).readStream(stream))).length, 1);
});

test('a delete whose answer is lost is not sent again (a second delete is not harmless)', async () => {
  const client = new Client(proxy.url);
  const stream = unique('delcut-');
  await client.append(stream, { type: 'A' });
  proxy.requests = [];
  proxy.cutOnce((line) => line.startsWith('DELETE /streams/'));
  await assert.rejects(client.delete(stream), UnavailableError);
  assert.equal(proxy.requests.filter((l) => l.startsWith('DELETE')).length, 1);
  assert.equal((await new Client(server.url).head(stream)).deleted, true);
});

test('reads are retried after a drop', async () => {
  const client = new Client(proxy.url);
  const stream = unique('readcut-');
  await client.append(stream, { type: 'A' });
  proxy.cutOnce((line) => line.startsWith('GET /streams/'));
  const events = await collect(client.readStream(stream));
  assert.equal(events.length, 1);
});
