// Subscriptions over Server-Sent Events: catch-up then live, filters,
// 'end', abort, leaving the loop, 4xx, and resuming after a server restart
// without gap or duplicate. Plus the parser on awkward chunkings.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, InvalidError, parseSse, type RecordedEvent, type SseItem } from './subject.js';
import { Server, collect, sleep, tempDir, unique } from './server.js';
import { CuttingProxy } from './proxy.js';
import { rmSync } from 'node:fs';

let server: Server;
let client: Client;

before(async () => {
  server = await Server.start();
  client = new Client(server.url);
});
after(async () => {
  await server.stop();
});

/** Takes `n` events from an iterable, then leaves the loop (which must close the connection). */
async function take(it: AsyncIterable<RecordedEvent>, n: number, timeoutMs = 10000): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  const timer = setTimeout(() => assert.fail(`timed out with ${out.length} of ${n} events`), timeoutMs);
  try {
    for await (const e of it) {
      out.push(e);
      if (out.length === n) break;
    }
  } finally {
    clearTimeout(timer);
  }
  return out;
}

test('subscribeAll: stored events, then live ones, filtered by category', async () => {
  const cat = unique('sub');
  const start = (await client.health()).lastPosition + 1;
  await client.append(`${cat}-1`, [{ type: 'A' }, { type: 'B' }]);
  await client.append(unique('noise-'), { type: 'N' });
  const got = take(client.subscribeAll({ from: start, category: cat }), 4);
  await sleep(100);
  await client.append(`${cat}-2`, { type: 'C' });
  await client.append(unique('noise-'), { type: 'N' });
  await client.append(`${cat}-1`, { type: 'D' });
  const events = await got;
  assert.deepEqual(events.map((e) => e.type), ['A', 'B', 'C', 'D']);
  assert.ok(events.every((e) => e.stream.startsWith(cat)));
});

// `from: 'end'` is the end when the subscription starts, which a loaded
// machine may put after an append made a fixed time later: append until
// the subscription sees something.
async function appendUntil<T>(got: Promise<T>, append: () => Promise<unknown>): Promise<T> {
  let settled = false;
  got.then(() => (settled = true), () => (settled = true));
  for (let i = 0; i < 30 && !settled; ++i) {
    await append();
    await Promise.race([got.catch(() => undefined), sleep(300)]);
  }
  return got;
}

test("subscribeAll from 'end' sees only later commits; type filter", async () => {
  await client.append(unique('old-'), { type: 'Old' });
  const type = unique('T');
  const got = take(client.subscribeAll({ from: 'end', type }), 2);
  const events = await appendUntil(got, () =>
    client.append(unique('new-'), [{ type }, { type: 'Other' }, { type }]));
  assert.deepEqual(events.map((e) => e.type), [type, type]);
});

test('subscribeStream: from a version, waits for a stream that does not exist yet, and from end', async () => {
  const stream = `WAIT/${unique('')}`;
  const waiting = take(client.subscribeStream(stream), 3);
  await sleep(100);
  await client.append(stream, [{ type: 'A' }, { type: 'B' }]);
  await client.append(unique('x-'), { type: 'X' });
  await client.append(stream, { type: 'C' });
  assert.deepEqual((await waiting).map((e) => [e.version, e.type]), [[0, 'A'], [1, 'B'], [2, 'C']]);
  const fromOne = await take(client.subscribeStream(stream, { from: 1 }), 2);
  assert.deepEqual(fromOne.map((e) => e.version), [1, 2]);
  const atEnd = take(client.subscribeStream(stream, { from: 'end' }), 1);
  const last = await appendUntil(atEnd, () => client.append(stream, { type: 'D' }));
  assert.deepEqual(last.map((e) => e.type), ['D']);
});

test('an abort signal ends the subscription quietly', async () => {
  const controller = new AbortController();
  const seen: RecordedEvent[] = [];
  const stream = unique('abort-');
  await client.append(stream, { type: 'A' });
  const done = (async () => {
    for await (const e of client.subscribeStream(stream, { signal: controller.signal })) seen.push(e);
  })();
  await waitUntil(() => seen.length === 1);
  await sleep(100); // nothing more comes: the stream holds one event
  controller.abort();
  await done; // resolves, does not throw
  assert.equal(seen.length, 1);
  // An already aborted signal yields nothing.
  assert.deepEqual(await collect(client.subscribeAll({ signal: AbortSignal.abort() })), []);
});

test('a 4xx (bad stream name) throws instead of reconnecting', async () => {
  await assert.rejects(collect(client.subscribeStream('bad\u0001name')), InvalidError);
});

test('resumes after the server is killed and restarted on the same folder and port: every event once, in order', async () => {
  const data = tempDir();
  let s = await Server.start({ data });
  const port = s.port;
  const c = new Client(s.url);
  const stream = unique('restart-');
  const seen: RecordedEvent[] = [];
  const controller = new AbortController();
  const done = (async () => {
    for await (const e of c.subscribeAll({ from: 1, signal: controller.signal })) seen.push(e);
  })();
  try {
    for (let i = 0; i < 5; i++) await c.append(stream, { type: 'E', data: { i } });
    await waitUntil(() => seen.length >= 5);

    await s.kill();
    s = await Server.start({ data, port });
    // Right after the restart (the subscriber is still backing off: catch-up) ...
    for (let i = 5; i < 10; i++) await c.append(stream, { type: 'E', data: { i } });
    await waitUntil(() => seen.length >= 10);
    // ... and once it is live again.
    for (let i = 10; i < 15; i++) await c.append(stream, { type: 'E', data: { i } });
    await waitUntil(() => seen.length >= 15);
    await sleep(200); // room for a duplicate to show up
  } finally {
    controller.abort();
    await done;
    await s.stop();
    rmSync(data, { recursive: true, force: true });
  }
  assert.deepEqual(seen.map((e) => (e.data as { i: number }).i), [...Array(15).keys()]);
  assert.deepEqual(seen.map((e) => e.position), [...Array(15).keys()].map((i) => i + 1));
});

test('a connection that goes silent (no heartbeat) is replaced: nothing lost, nothing twice', async () => {
  const s = await Server.start({ args: ['--heartbeat-ms', '100'] });
  const proxy = await new CuttingProxy(s.port).listen();
  const c = new Client(proxy.url);
  const direct = new Client(s.url);
  const stream = unique('silent-');
  const seen: RecordedEvent[] = [];
  const controller = new AbortController();
  const done = (async () => {
    for await (const e of c.subscribeStream(stream, { idleTimeoutMs: 1000, signal: controller.signal })) seen.push(e);
  })();
  try {
    await direct.append(stream, [{ type: 'A' }, { type: 'B' }]);
    await waitUntil(() => seen.length >= 2);
    proxy.freeze();
    await direct.append(stream, [{ type: 'C' }, { type: 'D' }]);
    await waitUntil(() => seen.length >= 4, 10000);
    await direct.append(stream, { type: 'E' });
    await waitUntil(() => seen.length >= 5);
    await sleep(200);
  } finally {
    controller.abort();
    await done;
    await proxy.close();
    await s.stop();
  }
  assert.deepEqual(seen.map((e) => e.type), ['A', 'B', 'C', 'D', 'E']);
  assert.ok(proxy.requests.filter((l) => l.startsWith('GET /subscribe/')).length >= 2, 'it reconnected');
});

test('a slow consumer is not taken for a silent connection', async () => {
  const stream = unique('slow-');
  for (const type of ['A', 'B', 'C']) await client.append(stream, { type });
  const proxy = await new CuttingProxy(server.port).listen();
  const seen: string[] = [];
  try {
    for await (const e of new Client(proxy.url).subscribeStream(stream, { idleTimeoutMs: 200 })) {
      seen.push(e.type);
      if (seen.length === 3) break;
      await sleep(400); // longer than the idle timeout, spent in the caller
    }
  } finally {
    await proxy.close();
  }
  assert.deepEqual(seen, ['A', 'B', 'C']);
  assert.equal(proxy.requests.filter((l) => l.startsWith('GET /subscribe/')).length, 1, 'one connection all along');
});

async function waitUntil(cond: () => boolean, timeoutMs = 15000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) assert.fail('timed out waiting');
    await sleep(20);
  }
}

async function parseChunks(chunks: string[]): Promise<SseItem[]> {
  const body = (async function* () {
    for (const c of chunks) yield new TextEncoder().encode(c);
  })();
  return collect(parseSse(body));
}

test('the parser: CRLF split across chunks, multi-line data, comments, a message cut off at the end', async () => {
  const items = await parseChunks(['id: 1\r', '\ndata: {"a":', '1}\r\n\r\n: caught-up\n', 'id:2\ndata: x\ndata: y\n\n', 'id: 3\ndata: cut']);
  assert.deepEqual(items, [
    { kind: 'message', message: { id: '1', data: '{"a":1}' } },
    { kind: 'comment', text: 'caught-up' },
    { kind: 'message', message: { id: '2', data: 'x\ny' } },
  ]);
  // Multi-byte UTF-8 split between chunks.
  const bytes = new TextEncoder().encode('data: é€\n\n');
  const split = (async function* () {
    yield bytes.slice(0, 7);
    yield bytes.slice(7);
  })();
  assert.deepEqual(await collect(parseSse(split)), [{ kind: 'message', message: { data: 'é€' } }]);
});
