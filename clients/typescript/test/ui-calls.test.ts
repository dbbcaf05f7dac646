// The calls a UI needs (the web console is built on them, issue 39): one
// page at a time of a stream, of $all and of the stream listing (with each
// stream's newest event), who the caller is, the server's metrics, a token
// function that may have no token, and a subscription that says how its
// connection fares.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Client, InvalidError, NotFoundError, UnauthorizedError } from './subject.js';
import { Server, sleep, startAuthServer, tempDir, unique } from './server.js';

let server: Server;
let client: Client;

before(async () => {
  server = await Server.start();
  client = new Client(server.url);
});
after(async () => {
  client.close();
  await server.stop();
});

test('readStreamPage: one page either way, and where the next one starts', async () => {
  const stream = unique('page-');
  await client.append(stream, [0, 1, 2, 3, 4].map((i) => ({ type: 'E', data: { i } })));
  const first = await client.readStreamPage(stream, { from: 0, limit: 2 });
  assert.equal(first.stream, stream);
  assert.deepEqual(first.events.map((e) => e.version), [0, 1]);
  assert.equal(first.nextVersion, 2);
  const last = await client.readStreamPage(stream, { from: 4, limit: 2 });
  assert.deepEqual(last.events.map((e) => e.data), [{ i: 4 }]);
  assert.equal(last.nextVersion, null, 'the end of the stream');
  // Backward without `from`: the newest first.
  const newest = await client.readStreamPage(stream, { direction: 'backward', limit: 2 });
  assert.deepEqual(newest.events.map((e) => e.version), [4, 3]);
  assert.equal(newest.nextVersion, 2);
  await assert.rejects(client.readStreamPage(unique('none-')), NotFoundError);
  await assert.rejects(client.readStreamPage(stream, { limit: 1.5 }), InvalidError);
  await assert.rejects(client.readStreamPage(stream, { direction: 'sideways' as never }), InvalidError);
  // A deleted stream: 404 unless asked for, then its events and tombstone.
  await client.delete(stream);
  await assert.rejects(client.readStreamPage(stream), NotFoundError);
  const kept = await client.readStreamPage(stream, { direction: 'backward', limit: 1, includeDeleted: true });
  assert.equal(kept.events[0]!.type, '$deleted');
});

test('readAllPage: one page of $all from a position, filtered', async () => {
  const category = `pg${unique('').replace(/-/g, '')}`;
  const a = await client.append(`${category}-a`, { type: 'A' });
  await client.append(unique('other-'), { type: 'Other' });
  const b = await client.append(`${category}-b`, { type: 'B' });
  const page = await client.readAllPage({ from: a.position, limit: 10, category });
  assert.deepEqual(page.events.map((e) => e.type), ['A', 'B']);
  assert.ok(page.next > b.position);
  const one = await client.readAllPage({ from: a.position, limit: 1 });
  assert.equal(one.events.length, 1);
  assert.equal(one.events[0]!.position, a.position);
  assert.equal(one.next, a.position + 1);
});

test('listStreamsPage: a page of names, where to go on, and with last: true each stream’s newest event', async () => {
  const prefix = unique('list-');
  await client.append(`${prefix}-a`, [{ type: 'Opened' }, { type: 'Renamed' }]);
  const b = await client.append(`${prefix}-b`, { type: 'Opened' });
  await client.append(`${prefix}-c`, { type: 'Opened' });
  await client.delete(`${prefix}-c`);

  const first = await client.listStreamsPage({ prefix, limit: 2 });
  assert.deepEqual(first.streams.map((s) => s.stream), [`${prefix}-a`, `${prefix}-b`]);
  assert.equal(first.next, `${prefix}-b`);
  assert.equal(first.streams[0]!.last, undefined, 'not asked for');
  const rest = await client.listStreamsPage({ prefix, after: first.next!, limit: 2 });
  assert.deepEqual(rest.streams.map((s) => s.stream), [`${prefix}-c`]);
  assert.equal(rest.next, null);

  const withLast = await client.listStreamsPage({ prefix, last: true });
  const [sa, sb, sc] = withLast.streams;
  assert.equal(sa!.version + 1, 2, 'two events appended');
  assert.deepEqual({ type: sa!.last!.type, version: sa!.last!.version }, { type: 'Renamed', version: 1 });
  const newestOfB = (await client.readStreamPage(`${prefix}-b`)).events[0]!;
  assert.deepEqual(sb!.last, { id: newestOfB.id, type: 'Opened', version: 0, position: b.position, timestamp: newestOfB.timestamp });
  assert.equal(sc!.deleted, true);
  assert.equal(sc!.last!.type, '$deleted', 'a deleted stream’s newest event is its tombstone');
  // The generator takes it too.
  for await (const s of client.listStreams({ prefix, last: true, pageSize: 1 })) assert.ok(s.last, s.stream);
  // Retention that hides every event: null.
  const hidden = `${prefix}-d`;
  await client.append(hidden, { type: 'Old' });
  await client.writeStreamMetadata(hidden, { truncateBefore: 1 });
  const [d] = (await client.listStreamsPage({ prefix: hidden, last: true })).streams;
  assert.equal(d!.last, null);
  await assert.rejects(client.listStreamsPage({ pageSize: 2 } as never), InvalidError);
});

test('whoami and metrics', async () => {
  assert.deepEqual(await client.whoami(), { authentication: false });
  const text = await client.metrics();
  assert.match(text, /^# (HELP|TYPE) indelible_/m);
  assert.match(text, /^indelible_store_last_position \d+/m);
});

test('a token function that gives nothing sends no credentials; one that gives a key does', async () => {
  const auth = await startAuthServer();
  let token: string | null = null;
  const browserLike = new Client(auth.server.url, { token: () => token });
  try {
    await assert.rejects(browserLike.whoami(), UnauthorizedError, 'signed out: no Authorization header, so 401');
    // The admin's key, as a signed-in console would keep it.
    token = readFileSync(path.join(auth.server.data, 'admin.key'), 'utf8').trim();
    const who = await browserLike.whoami();
    assert.equal(who.authentication, true);
    assert.equal(who.grants?.admin, true);
    token = '';
    await assert.rejects(browserLike.whoami(), UnauthorizedError, 'an empty token is none');
  } finally {
    browserLike.close();
    await auth.close();
  }
});

test('a subscription says when its connection opens and when it reconnects', async () => {
  const data = tempDir();
  let s = await Server.start({ data });
  const c = new Client(s.url);
  const states: string[] = [];
  const controller = new AbortController();
  const stream = unique('conn-');
  const seen: number[] = [];
  const done = (async () => {
    for await (const e of c.subscribeStream(stream, { from: 0, signal: controller.signal, onConnection: (state) => states.push(state) })) seen.push(e.version);
  })();
  try {
    await c.append(stream, { type: 'E' });
    while (seen.length < 1) await sleep(10);
    assert.deepEqual(states, ['open']);
    const port = s.port;
    await s.kill();
    while (!states.includes('reconnecting')) await sleep(10);
    s = await Server.start({ data, port });
    await c.append(stream, { type: 'E' });
    while (seen.length < 2) await sleep(10);
    assert.equal(states[0], 'open');
    assert.equal(states[states.length - 1], 'open', `${states}`);
    assert.ok(states.includes('reconnecting'));
    assert.deepEqual(seen, [0, 1]);
  } finally {
    controller.abort();
    await done;
    c.close();
    await s.stop();
    rmSync(data, { recursive: true, force: true });
  }
});
