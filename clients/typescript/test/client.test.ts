// Every stream call against a real server: append, readStream, readAll,
// head, delete, health, and the typed errors the server answers.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import {
  Client,
  ConflictError,
  InternalError,
  InvalidError,
  NotFoundError,
  RejectedError,
  TooLargeError,
  UnavailableError,
} from './subject.js';
import { Server, collect, sleep, unique } from './server.js';
import { CuttingProxy } from './proxy.js';

let server: Server;
let client: Client;

before(async () => {
  // Small page and scan budgets, so short and empty pages happen in these tests.
  server = await Server.start({ args: ['--max-page-bytes', '2048', '--max-scan-events', '4'] });
  client = new Client(server.url);
});
after(async () => {
  await server.stop();
});

test('append one event, then an array; read them back with every field', async () => {
  const stream = unique('order-');
  const one = await client.append(stream, { type: 'Order.Created', schema: 'V1', data: { total: 5 }, metadata: { user: 'ann' } });
  assert.equal(one.stream, stream);
  assert.equal(one.firstVersion, 0);
  assert.equal(one.lastVersion, 0);
  assert.ok(one.position > 0);
  assert.equal(one.replayed, false);

  const two = await client.append(stream, [{ type: 'Order.Paid' }, { type: 'Order.Shipped', data: [1, 'x'] }]);
  assert.equal(two.firstVersion, 1);
  assert.equal(two.lastVersion, 2);
  assert.equal(two.position, one.position + 2);

  const events = await collect(client.readStream(stream));
  assert.deepEqual(events.map((e) => [e.version, e.type]), [[0, 'Order.Created'], [1, 'Order.Paid'], [2, 'Order.Shipped']]);
  const first = events[0]!;
  assert.equal(first.stream, stream);
  assert.equal(first.schema, 'V1');
  assert.deepEqual(first.data, { total: 5 });
  assert.deepEqual(first.metadata, { user: 'ann' });
  assert.match(first.id, /^[0-9a-f-]{36}$/);
  assert.ok(Math.abs(first.timestamp - Date.now()) < 60000);
  assert.equal(events[1]!.schema, '');
  assert.equal(events[1]!.data, null);
  assert.deepEqual(events[1]!.metadata, {});
});

test('a stream name with a slash travels as one path segment', async () => {
  const stream = `BANK_ACCOUNT/${unique('')}`;
  await client.append(stream, { type: 'Opened', data: {} });
  const head = await client.head(stream);
  assert.equal(head.stream, stream);
  const events = await collect(client.readStream(stream));
  assert.equal(events[0]!.stream, stream);
  // Names with characters a URL treats specially.
  const odd = `odd-${unique('')} ?#%&+é`;
  await client.append(odd, { type: 'X' });
  assert.equal((await collect(client.readStream(odd)))[0]!.stream, odd);
});

test('expected: no_stream, a version, exists, any; a conflict reports the actual version', async () => {
  const stream = unique('exp-');
  await assert.rejects(client.append(stream, { type: 'A' }, { expected: 'exists' }), (e: unknown) => e instanceof ConflictError && e.actualVersion === null);
  await client.append(stream, { type: 'A' }, { expected: 'no_stream' });
  const err = await client.append(stream, { type: 'B' }, { expected: 'no_stream' }).catch((e: unknown) => e);
  assert.ok(err instanceof ConflictError);
  assert.equal(err.status, 409);
  assert.equal(err.code, 'conflict');
  assert.equal(err.actualVersion, 0);
  assert.ok(err.requestId);
  await assert.rejects(client.append(stream, { type: 'B' }, { expected: 5 }), (e: unknown) => e instanceof ConflictError && e.actualVersion === 0);
  assert.equal((await client.append(stream, { type: 'B' }, { expected: 0 })).lastVersion, 1);
  assert.equal((await client.append(stream, { type: 'C' }, { expected: 'exists' })).lastVersion, 2);
  assert.equal((await client.append(stream, { type: 'D' }, { expected: 'any' })).lastVersion, 3);
  await assert.rejects(client.append(stream, { type: 'E' }, { expected: -1 }), (e: unknown) => e instanceof InvalidError && e.status === 0 && e.field === 'expected');
});

test('a member the client does not know is refused, not dropped: a typo of `expected` never appends without its expectation', async () => {
  const stream = unique('typo-');
  await client.append(stream, { type: 'A' });
  // A JavaScript caller's typo (TypeScript refuses it): sent as it was, the append would succeed at version 1.
  const typo = await client.append(stream, { type: 'B' }, { expectedVersion: 5 } as never).catch((e: unknown) => e);
  assert.ok(typo instanceof InvalidError, String(typo));
  assert.equal(typo.status, 0);
  assert.equal(typo.field, 'expectedVersion');
  assert.match(typo.message, /^indelible: append: expectedVersion is not a member the client knows \(the options may have expected, state, signal, timeoutMs\)/);
  const eventTypo = await client.append(stream, { type: 'B', metdata: { user: 'ann' } } as never).catch((e: unknown) => e);
  assert.ok(eventTypo instanceof InvalidError && eventTypo.field === 'event.metdata', String(eventTypo));
  const deleteTypo = await client.delete(stream, { expectedVersion: 5 } as never).catch((e: unknown) => e);
  assert.ok(deleteTypo instanceof InvalidError && deleteTypo.field === 'expectedVersion', String(deleteTypo));
  const head = await client.head(stream);
  assert.equal(head.version, 0, 'nothing was written');
  assert.equal(head.deleted, false);
  // A version past 2^53-1 is refused too, rather than sent rounded.
  const big = await client.append(stream, { type: 'B' }, { expected: 2 ** 53 + 1 }).catch((e: unknown) => e);
  assert.ok(big instanceof InvalidError && big.field === 'expected' && big.status === 0, String(big));
  assert.throws(() => client.readAll({ from: 2 ** 53 + 1 }), (e: unknown) => e instanceof InvalidError && e.field === 'from' && /up to 2\^53-1/.test(e.message));
  assert.equal((await client.head(stream)).version, 0);
});

test('the same event ids again are an idempotent replay: nothing written twice', async () => {
  const stream = unique('idem-');
  const events = [
    { id: crypto.randomUUID(), type: 'A' },
    { id: crypto.randomUUID(), type: 'B' },
  ];
  const first = await client.append(stream, events);
  const again = await client.append(stream, events);
  assert.equal(again.replayed, true);
  assert.equal(again.lastVersion, first.lastVersion);
  assert.equal(again.position, first.position);
  assert.equal((await collect(client.readStream(stream))).length, 2);
});

test('bytes travel base64 with a content type and read back as bytes', async () => {
  const stream = unique('bytes-');
  const bytes = new Uint8Array([0, 1, 2, 250, 255]);
  await client.append(stream, { type: 'Blob', data: bytes, contentType: 'application/x-test' });
  const [e] = await collect(client.readStream(stream));
  assert.ok(e!.data instanceof Uint8Array);
  assert.deepEqual([...(e!.data as Uint8Array)], [...bytes]);
  assert.equal(e!.contentType, 'application/x-test');
});

test('readStream pages forward and backward, from a version, through short byte-budgeted pages', async () => {
  const stream = unique('pages-');
  // ~300 bytes each: a 2 KiB page holds a few, so pages are cut by bytes, not by count.
  const pad = 'x'.repeat(300);
  await client.append(stream, Array.from({ length: 25 }, (_, i) => ({ type: 'N', data: { i, pad } })));
  const proxy = await new CuttingProxy(server.port).listen();
  const forward = await collect(new Client(proxy.url).readStream(stream, { pageSize: 10 }));
  await proxy.close();
  assert.deepEqual(forward.map((e) => e.version), [...Array(25).keys()]);
  assert.ok(proxy.requests.length > 3, `pages cut by bytes: ${proxy.requests.length} requests`);
  const backward = await collect(client.readStream(stream, { direction: 'backward', pageSize: 7 }));
  assert.deepEqual(backward.map((e) => e.version), [...Array(25).keys()].reverse());
  const fromTen = await collect(client.readStream(stream, { from: 10, pageSize: 4 }));
  assert.deepEqual(fromTen.map((e) => e.version), [...Array(15).keys()].map((i) => i + 10));
  const backFromFive = await collect(client.readStream(stream, { from: 5, direction: 'backward' }));
  assert.deepEqual(backFromFive.map((e) => e.version), [5, 4, 3, 2, 1, 0]);
});

test('readStream of an unknown stream throws NotFoundError', async () => {
  const err = await collect(client.readStream(unique('none-'))).catch((e: unknown) => e);
  assert.ok(err instanceof NotFoundError);
  assert.equal(err.status, 404);
  assert.equal(err.code, 'not_found');
  assert.equal(err.deleted, false);
});

test('head and delete: a deleted stream is not_found with deleted, readable with includeDeleted, and starts again', async () => {
  const stream = unique('del-');
  await client.append(stream, [{ type: 'A' }, { type: 'B' }]);
  const head = await client.head(stream);
  assert.deepEqual({ ...head, position: 0 }, { stream, version: 1, position: 0, deleted: false, firstVersion: 0 });
  await assert.rejects(client.delete(stream, { expected: 0 }), ConflictError);
  const tomb = await client.delete(stream, { expected: 1 });
  assert.equal(tomb.lastVersion, 2);
  assert.equal(tomb.replayed, false);
  const after = await client.head(stream);
  assert.equal(after.deleted, true);
  const err = await collect(client.readStream(stream)).catch((e: unknown) => e);
  assert.ok(err instanceof NotFoundError && err.deleted === true);
  const all = await collect(client.readStream(stream, { includeDeleted: true }));
  assert.deepEqual(all.map((e) => e.type), ['A', 'B', '$deleted']);
  await assert.rejects(client.delete(stream), (e: unknown) => e instanceof NotFoundError && e.deleted);
  await assert.rejects(client.head(unique('none-')), NotFoundError);
  // no_stream starts it again; numbering continues.
  assert.equal((await client.append(stream, { type: 'C' }, { expected: 'no_stream' })).firstVersion, 3);
  // delete with 'exists'
  assert.equal((await client.delete(stream, { expected: 'exists' })).lastVersion, 4);
});

test('readAll: position order, filters by category, prefix and type, paging through filtered and short pages', async () => {
  const cat = unique('cat');
  const other = unique('oth');
  const start = (await client.health()).lastPosition + 1;
  for (let i = 0; i < 6; i++) {
    await client.append(`${cat}-${i % 2}`, [{ type: i % 3 === 0 ? 'Rare' : 'Common', data: { i } }]);
    await client.append(`${other}-x`, { type: 'Rare', data: { i } });
  }
  // --max-scan-events 4: a filtered page looks at 4 events at most, so some pages come back empty.
  const proxy = await new CuttingProxy(server.port).listen();
  const mine = await collect(new Client(proxy.url).readAll({ from: start, category: cat, type: 'Rare' }));
  await proxy.close();
  assert.deepEqual(mine.map((e) => (e.data as { i: number }).i), [0, 3]);
  assert.ok(proxy.requests.length >= 3, `several pages: ${proxy.requests.length}`);
  const mineAll = await collect(client.readAll({ from: start, category: cat, pageSize: 2 }));
  assert.deepEqual(mineAll.map((e) => (e.data as { i: number }).i), [0, 1, 2, 3, 4, 5]);
  const positions = mineAll.map((e) => e.position);
  assert.deepEqual(positions, [...positions].sort((a, b) => a - b));
  const rare = await collect(client.readAll({ from: start, category: [cat, other], type: 'Rare', pageSize: 1 }));
  assert.equal(rare.length, 2 + 6);
  const byPrefix = await collect(client.readAll({ from: start, prefix: `${cat}-1` }));
  assert.deepEqual(byPrefix.map((e) => (e.data as { i: number }).i), [1, 3, 5]);
  const everything = await collect(client.readAll({ from: start }));
  assert.equal(everything.length, 12);
  // A default read from position 1 reaches the end too.
  const fromOne = await collect(client.readAll());
  assert.equal(fromOne.at(-1)!.position, everything.at(-1)!.position);
});

test('health says ok and the last position', async () => {
  const h = await client.health();
  assert.equal(h.status, 'ok');
  assert.equal(typeof h.lastPosition, 'number');
});

test('errors from real answers: invalid (with its field), too_large, reserved names, no server at all', async () => {
  const bad = await client.append('bad\u0001name', { type: 'A' }).catch((e: unknown) => e);
  assert.ok(bad instanceof InvalidError, String(bad));
  assert.equal(bad.status, 400);
  assert.equal(bad.code, 'invalid');
  assert.equal(bad.field, 'stream');
  assert.match(bad.message, /control character/);

  const big = await client.append(unique('big-'), Array.from({ length: 1001 }, () => ({ type: 'A' }))).catch((e: unknown) => e);
  assert.ok(big instanceof TooLargeError, String(big));
  assert.equal(big.status, 413);

  // `$` streams are the store's: writing one is refused.
  const reserved = await client.append('$mine', { type: 'A' }).catch((e: unknown) => e);
  assert.ok(reserved instanceof InvalidError, String(reserved));
  assert.equal(reserved.field, 'stream');

  // Nothing listens on a port of a stopped server: no answer at all.
  const dead = await Server.start();
  const url = dead.url;
  await dead.stop();
  const down = new Client(url, { retries: 1 });
  const t0 = Date.now();
  const err = await down.head('x').catch((e: unknown) => e);
  assert.ok(err instanceof UnavailableError, String(err));
  assert.equal(err.status, 0);
  assert.equal(err.code, 'unavailable');
  assert.ok(Date.now() - t0 >= 50, 'retried after a back-off');
});

test('a real 503 (the server at --max-connections) is UnavailableError, and is retried until it passes', async () => {
  const s = await Server.start({ args: ['--max-connections', '1', '--max-consumer-groups', '1'] });
  try {
    const holder = new Client(s.url);
    const stream = unique('busy-');
    await holder.append(stream, { type: 'A' });
    const controller = new AbortController();
    // A subscription holds the one connection; it is never idle. Its first
    // event says it is connected (a fixed wait was not enough under load).
    let connected!: () => void;
    const held = new Promise<void>((resolve) => (connected = resolve));
    const subscribed = (async () => {
      for await (const _ of holder.subscribeStream(stream, { signal: controller.signal })) {
        void _;
        connected();
      }
    })();
    await held;
    const err = await new Client(s.url, { retries: 0 }).head(stream).catch((e: unknown) => e);
    assert.ok(err instanceof UnavailableError, String(err));
    assert.equal(err.status, 503);
    assert.equal(err.code, 'unavailable');
    assert.equal(err.retryAfterMs, 1000);
    // With retries, the append goes through once the connection is free (after Retry-After).
    setTimeout(() => controller.abort(), 150);
    const t0 = Date.now();
    const r = await new Client(s.url, { retries: 6 }).append(stream, { type: 'B' });
    assert.equal(r.lastVersion, 1);
    assert.ok(Date.now() - t0 >= 900, 'waited as Retry-After said');
    await subscribed;
    // Leaving a subscription's loop closes its connection: the one slot is free again.
    for await (const e of holder.subscribeStream(stream)) {
      assert.equal(e.version, 0);
      break;
    }
    // The server frees the slot once it sees the close.
    let head: Awaited<ReturnType<Client['head']>> | undefined;
    for (let i = 0; i < 50 && !head; ++i) {
      head = await new Client(s.url, { retries: 0 }).head(stream).catch((e: unknown) => {
        if (!(e instanceof UnavailableError)) throw e;
        return undefined;
      });
      if (!head) await sleep(100);
    }
    assert.equal(head?.version, 1);

    // 409 too_large: one group more than --max-consumer-groups.
    const c = new Client(s.url);
    await c.consumers.create(unique('g-'));
    const tooMany = await c.consumers.create(unique('g-')).catch((e: unknown) => e);
    assert.ok(tooMany instanceof TooLargeError, String(tooMany));
    assert.equal(tooMany.status, 409);
    assert.equal(tooMany.code, 'too_large');
  } finally {
    await s.stop();
  }
});

test('answers the stream server never gives (422 rejected, 500 internal, 503; a server without the state route) map to their errors', async () => {
  // indelible serve has no rules (422 comes from entity programs) and no
  // way to make a 500 on purpose: a stand-in answers as they would.
  let calls = 0;
  const fake = http.createServer((req, res) => {
    calls++;
    const [status, body] =
      req.url!.startsWith('/streams/old/state') ? [404, { error: 'not_found', message: 'no route for GET /streams/old/state; docs/HTTP.md lists the routes' }]
      : req.url!.startsWith('/streams/new/state') ? [404, { error: 'not_found', message: "stream 'new' has no state record" }]
      : req.url!.startsWith('/streams/rejected') ? [422, { error: 'rejected', message: 'overdraft' }]
      : req.url!.startsWith('/streams/internal') ? [500, { error: 'internal', message: 'bug, see request r-1' }]
      : [503, { error: 'unavailable', message: 'storage down' }];
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'r-1' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
  const port = (fake.address() as { port: number }).port;
  try {
    const c = new Client(`http://127.0.0.1:${port}`, { retries: 2 });
    const rejected = await c.append('rejected', { type: 'A' }).catch((e: unknown) => e);
    assert.ok(rejected instanceof RejectedError && rejected.status === 422 && rejected.message === 'overdraft' && rejected.requestId === 'r-1');
    calls = 0;
    const internal = await c.append('internal', { type: 'A' }).catch((e: unknown) => e);
    assert.ok(internal instanceof InternalError && internal.status === 500);
    assert.equal(calls, 1, '5xx other than 503 is not retried');
    calls = 0;
    const unavailable = await c.append('other', { type: 'A' }).catch((e: unknown) => e);
    assert.ok(unavailable instanceof UnavailableError && unavailable.status === 503);
    assert.equal(calls, 3, '503 is retried `retries` times');
    // getState: null for a stream without a record, an error from a server without the route.
    assert.equal(await c.getState('new'), null);
    await assert.rejects(c.getState('old'), NotFoundError);
    calls = 0;
    await assert.rejects(c.delete('other'), UnavailableError);
    assert.equal(calls, 3, 'a delete is retried after a 503 (nothing was done)');
  } finally {
    fake.close();
  }
});
