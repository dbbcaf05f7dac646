// Cancellation and deadlines of ordinary calls (`signal`, `timeoutMs`):
// an aborted call rejects at once with the signal's reason and leaves
// nothing running on the server; a per-call deadline ends a long poll with
// the client's timeout error; neither is retried past what it allows. The
// proxy counts the requests that reach the server and the connections open.
//
// The connection of an aborted call is closed; the server, though, keeps a
// long pull it holds parked until its wait ends (it does not watch the
// socket while it waits), so these tests check the connection, not the
// group's `waiting`. With fetch the runtime owns the connections: the
// request is aborted, but Node's fetch (undici) keeps its socket until the
// server's answer comes, so there only the node transport's is checked.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, InvalidError, UnavailableError } from './subject.js';
import { CuttingProxy } from './proxy.js';
import { Server, collect, sleep, unique } from './server.js';

let server: Server;
let proxy: CuttingProxy;
let direct: Client;

before(async () => {
  server = await Server.start();
  proxy = await new CuttingProxy(server.port).listen();
  direct = new Client(server.url);
});
after(async () => {
  direct.close();
  await proxy.close();
  await server.stop();
});

function isAbort(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

/** Resolves once `check` holds, or fails after `ms`. */
async function eventually(what: string, check: () => boolean | Promise<boolean>, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`not in ${ms} ms: ${what}`);
    await sleep(20);
  }
}

test('every call given an aborted signal rejects with its reason and sends nothing', async () => {
  const client = new Client(proxy.url);
  const stream = unique('cancel-pre-');
  await direct.append(stream, { type: 'A' });
  await direct.consumers.create(stream, { category: stream });
  const c = new AbortController();
  c.abort();
  const signal = c.signal;
  proxy.requests = [];
  const q = { items: [{ types: ['A'] }] };
  const calls: Array<[string, () => Promise<unknown>]> = [
    ['append', () => client.append(stream, { type: 'B' }, { signal })],
    ['commit', () => client.commit([{ stream, events: [{ type: 'B' }] }], { signal })],
    ['readStream', () => collect(client.readStream(stream, { signal }))],
    ['readAll', () => collect(client.readAll({ signal }))],
    ['readQuery', () => client.readQuery(q, { signal })],
    ['readQueryAll', () => collect(client.readQueryAll(q, { signal }))],
    ['listStreams', () => collect(client.listStreams({ signal }))],
    ['head', () => client.head(stream, { signal })],
    ['getState', () => client.getState(stream, { signal })],
    ['findEvent', () => client.findEvent('00000000-0000-4000-8000-000000000000', { signal })],
    ['delete', () => client.delete(stream, { signal })],
    ['erase', () => client.erase(stream, { signal })],
    ['readStreamMetadata', () => client.readStreamMetadata(stream, { signal })],
    ['writeStreamMetadata', () => client.writeStreamMetadata(stream, { maxCount: 5 }, { signal })],
    ['shredSubject', () => client.shredSubject('alice', { signal })],
    ['scavenge', () => client.scavenge({ signal })],
    ['health', () => client.health({ signal })],
    ['listSchemas', () => client.listSchemas({ signal })],
    ['getSchemaSettings', () => client.getSchemaSettings({ signal })],
    ['validateEvent', () => client.validateEvent('A', {}, { signal })],
    ['consumers.create', () => client.consumers.create(stream, { category: stream, signal })],
    ['consumers.get', () => client.consumers.get(stream, { signal })],
    ['consumers.list', () => client.consumers.list({ signal })],
    ['consumers.pull', () => client.consumers.pull(stream, { signal })],
    ['consumers.ack', () => client.consumers.ack(stream, 1, { signal })],
    ['consumers.nack', () => client.consumers.nack(stream, 1, 'no', { signal })],
    ['consumers.retry', () => client.consumers.retry(stream, { signal })],
    ['consumers.waitFor', () => client.consumers.waitFor(stream, 1, 100, { signal })],
    ['consumers.delete', () => client.consumers.delete(stream, { signal })],
  ];
  for (const [name, call] of calls) {
    await assert.rejects(call(), (err) => err === signal.reason && isAbort(err), name);
  }
  assert.deepEqual(proxy.requests, [], 'nothing reached the server');
  client.close();
});

test('an abort mid-flight ends a long pull at once: its connection closed, no retry', async () => {
  const client = new Client(proxy.url);
  const group = unique('cancel-pull-');
  await direct.consumers.create(group, { category: group });
  proxy.requests = [];
  const c = new AbortController();
  const started = Date.now();
  const pull = client.consumers.pull(group, { waitMs: 20000, signal: c.signal });
  // The server holds the pull: it counts it as waiting.
  await eventually('the server holds the pull', async () => (await direct.consumers.get(group)).waiting === 1);
  const openDuring = proxy.open;
  c.abort();
  await assert.rejects(pull, (err) => err === c.signal.reason && isAbort(err));
  assert.ok(Date.now() - started < 3000, 'rejected at once, not at the end of the wait');
  if (client.transportKind === 'node') await eventually("the pull's connection closed", () => proxy.open < openDuring);
  await sleep(300);
  assert.equal(proxy.requests.filter((l) => l.startsWith('POST')).length, 1, 'sent once, never again');
  client.close();
});

test("an abort's own reason is what the call rejects with", async () => {
  const client = new Client(proxy.url);
  const group = unique('cancel-reason-');
  await direct.consumers.create(group, { category: group });
  const c = new AbortController();
  const reason = new Error('the user left');
  setTimeout(() => c.abort(reason), 100);
  await assert.rejects(client.consumers.pull(group, { waitMs: 20000, signal: c.signal }), (err) => err === reason);
  client.close();
});

test('an abort between the pages of a big read ends it with the reason', async () => {
  const client = new Client(proxy.url);
  const stream = unique('cancel-read-');
  await direct.append(stream, Array.from({ length: 50 }, (_, i) => ({ type: 'E', data: { i } })));
  const c = new AbortController();
  proxy.requests = [];
  let seen = 0;
  await assert.rejects(
    (async () => {
      for await (const _ of client.readStream(stream, { pageSize: 10, signal: c.signal })) {
        if (++seen === 10) c.abort();
      }
    })(),
    (err) => isAbort(err),
  );
  assert.equal(seen, 10, 'the first page only');
  assert.equal(proxy.requests.filter((l) => l.startsWith('GET')).length, 1, 'no page asked for after the abort');
  client.close();
});

test('a per-call timeoutMs shorter than a long pull ends it with the timeout error, sent once', async () => {
  const client = new Client(proxy.url);
  const group = unique('cancel-deadline-');
  await direct.consumers.create(group, { category: group });
  proxy.requests = [];
  const openBefore = proxy.open;
  const started = Date.now();
  await assert.rejects(client.consumers.pull(group, { waitMs: 20000, timeoutMs: 300 }), (err) => err instanceof UnavailableError && /no answer within/.test(err.message));
  const took = Date.now() - started;
  assert.ok(took >= 250 && took < 3000, `took ${took} ms`);
  // Pulls are safe to repeat, but not past the call's deadline.
  await sleep(300);
  assert.equal(proxy.requests.filter((l) => l.startsWith('POST')).length, 1);
  // Its connection was closed: no more open than before (fetch may have taken, and closed, an idle one).
  if (client.transportKind === 'node') await eventually("the pull's connection closed", () => proxy.open <= openBefore);
  client.close();
});

test("a per-call timeoutMs bounds the call's retries too", async () => {
  // A proxy of its own whose every connection is silent (fetch would reuse
  // the shared proxy's live ones): each attempt times out and is retried.
  const silent = await new CuttingProxy(server.port).listen();
  silent.freezeNew = true;
  const client = new Client(silent.url, { timeoutMs: 100, retries: 50 });
  try {
    const started = Date.now();
    await assert.rejects(client.head(unique('cancel-frozen-'), { timeoutMs: 600 }), (err) => err instanceof UnavailableError && /no answer within/.test(err.message));
    const took = Date.now() - started;
    // No attempt starts when its back-off would pass the deadline: it may end a little early.
    assert.ok(took >= 200 && took < 1500, `took ${took} ms, not 50 retries (over 5 s)`);
    assert.ok(silent.accepted >= 2, `retried within the deadline (${silent.accepted} connections)`);
  } finally {
    client.close();
    await silent.close();
  }
});

test('a per-call timeoutMs that is not passed answers as usual', async () => {
  const client = new Client(proxy.url);
  const stream = unique('cancel-ok-');
  const c = new AbortController();
  const r = await client.append(stream, { type: 'A' }, { signal: c.signal, timeoutMs: 5000 });
  assert.equal(r.firstVersion, 0);
  assert.equal((await client.head(stream, { timeoutMs: 5000, signal: c.signal })).version, 0);
  // Aborting after the call ended changes nothing.
  c.abort();
  client.close();
});

test('signal and timeoutMs are checked', () => {
  const client = new Client(proxy.url);
  assert.throws(() => client.readStream('s', { timeoutMs: 0 }), (err) => err instanceof InvalidError && /timeoutMs/.test(err.message));
  assert.throws(() => client.listStreams({ signal: 'stop' as unknown as AbortSignal }), (err) => err instanceof InvalidError && /signal/.test(err.message));
  assert.throws(() => client.readAll({ deadline: 5 } as never), (err) => err instanceof InvalidError && /deadline/.test(err.message));
  client.close();
});

test('the checks reject the promise of async calls', async () => {
  const client = new Client(proxy.url);
  await assert.rejects(client.head('s', { timeoutMs: 1.5 }), InvalidError);
  await assert.rejects(client.consumers.get('g', { wait: 1 } as never), InvalidError);
  client.close();
});
