// Tags, query reads, query subscriptions and conditional commits
// (docs/DCB.md) against the real server: what comes back, what a condition
// refuses, and a query subscription that resumes after a silent connection.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ConflictError, InvalidError, type Query, type RecordedEvent } from './subject.js';
import { CuttingProxy } from './proxy.js';
import { Server, collect, sleep, unique } from './server.js';

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

async function waitUntil(cond: () => boolean, timeoutMs = 15000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) assert.fail('timed out waiting');
    await sleep(20);
  }
}

test('tags: written with appends and commits, read back sorted without duplicates on every read path; none, no member', async () => {
  const stream = unique('tagged-');
  const t = unique('t');
  const appended = await client.append(stream, [{ type: 'A', tags: [`${t}:b`, `${t}:a`, `${t}:b`] }, { type: 'B' }]);
  await client.commit([{ stream, events: [{ type: 'C', tags: [`${t}:c`] }] }]);
  const read = await collect(client.readStream(stream));
  assert.deepEqual(read.map((e) => e.tags), [[`${t}:a`, `${t}:b`], undefined, [`${t}:c`]]);
  assert.equal('tags' in read[1]!, false);
  const all = await collect(client.readAll({ from: appended.position - 1 }));
  assert.deepEqual(all.map((e) => e.tags), [[`${t}:a`, `${t}:b`], undefined, [`${t}:c`]]);
  assert.deepEqual((await client.findEvent(read[0]!.id))?.tags, [`${t}:a`, `${t}:b`]);

  // The server's rules, with the field named.
  const tooLong = await client.append(stream, { type: 'A', tags: ['x'.repeat(129)] }).catch((e: unknown) => e);
  assert.ok(tooLong instanceof InvalidError && tooLong.status === 400, String(tooLong));
  assert.match(tooLong.field ?? '', /tags\[0\]/);
});

test('readQuery: types OR, tags AND, items OR; paged forward and backward by next; readQueryAll reads them all', async () => {
  const t = unique('q');
  const stream = unique('query-');
  const r = await client.append(stream, [
    { type: 'Enrolled', data: { n: 0 }, tags: [`course:${t}`, `student:${t}-1`] },
    { type: 'Enrolled', data: { n: 1 }, tags: [`course:${t}`] },
    { type: 'Dropped', data: { n: 2 }, tags: [`course:${t}`, `student:${t}-1`] },
    { type: 'Other', data: { n: 3 }, tags: [`course:${t}`, `student:${t}-1`] },
    { type: 'Enrolled', data: { n: 4 }, tags: [`student:${t}-1`] },
  ]);
  const first = r.position - 4;
  const n = (events: RecordedEvent[]) => events.map((e) => (e.data as { n: number }).n);

  const both: Query = { items: [{ types: ['Enrolled', 'Dropped'], tags: [`course:${t}`, `student:${t}-1`] }] };
  assert.deepEqual(n((await client.readQuery(both)).events), [0, 2]);
  const either: Query = { items: [{ types: ['Enrolled'], tags: [`course:${t}`] }, { types: ['Dropped'], tags: [`student:${t}-1`] }] };
  assert.deepEqual(n((await client.readQuery(either)).events), [0, 1, 2]);

  const mine: Query = { items: [{ tags: [`course:${t}`] }, { tags: [`student:${t}-1`] }] };
  const page1 = await client.readQuery(mine, { limit: 2 });
  assert.deepEqual(n(page1.events), [0, 1]);
  const page2 = await client.readQuery(mine, { from: page1.next, limit: 2 });
  assert.deepEqual(n(page2.events), [2, 3]);
  assert.equal(page2.events[0]!.position, first + 2);
  const page3 = await client.readQuery(mine, { from: page2.next });
  assert.deepEqual(n(page3.events), [4]);
  assert.equal((await client.readQuery(mine, { from: page3.next })).events.length, 0);

  const back = await client.readQuery(mine, { direction: 'backward', limit: 3 });
  assert.deepEqual(n(back.events), [4, 3, 2]);
  assert.deepEqual(n((await client.readQuery(mine, { direction: 'backward', from: back.next })).events), [1, 0]);

  assert.deepEqual(n(await collect(client.readQueryAll(mine, { pageSize: 2 }))), [0, 1, 2, 3, 4]);
  assert.deepEqual(n(await collect(client.readQueryAll(mine, { direction: 'backward', pageSize: 2 }))), [4, 3, 2, 1, 0]);
  assert.deepEqual(n(await collect(client.readQueryAll(mine, { from: first + 3 }))), [3, 4]);

  // Every event: the query of no items.
  const everything = await client.readQuery({ items: [] }, { from: first, limit: 5 });
  assert.deepEqual(n(everything.events), [0, 1, 2, 3, 4]);

  // A query too long for a URL takes POST /query: the same answer.
  const padded: Query = { items: [...mine.items, ...Array.from({ length: 20 }, (_, i) => ({ tags: [`${t}-absent-${i}-${'p'.repeat(90)}`] }))] };
  assert.ok(JSON.stringify(padded).length > 2000);
  assert.deepEqual(n((await client.readQuery(padded, { from: first })).events), [0, 1, 2, 3, 4]);

  // The server's rules: an item needs a type or a tag.
  const bad = await client.readQuery({ items: [{}] }).catch((e: unknown) => e);
  assert.ok(bad instanceof InvalidError && bad.status === 400, String(bad));
});

test('a conditional commit: written when nothing matching came after `after`; else a condition conflict with its position, nothing written', async () => {
  const t = unique('c');
  const query: Query = { items: [{ types: ['Claimed', 'Released'], tags: [`username:${t}`] }] };
  const before = await client.readQuery(query);
  assert.equal(before.events.length, 0);

  // Nothing matched: `after` left out says "no matching event at all". No stream: $dcb.
  const claimed = await client.commit([{ events: [{ type: 'Claimed', data: { user: 1 }, tags: [`username:${t}`, `user:${t}-1`] }] }], { condition: { failIfEventsMatch: query } });
  assert.equal(claimed.appends[0]!.stream, '$dcb');
  assert.deepEqual((await client.readQuery(query)).events.map((e) => [e.stream, e.position, e.tags]), [['$dcb', claimed.position, [`user:${t}-1`, `username:${t}`]]]);

  // A second claimer that decided on the empty read: refused, pointing at the first claim.
  const late = await client.commit([{ events: [{ type: 'Claimed', data: { user: 2 }, tags: [`username:${t}`] }] }], { condition: { failIfEventsMatch: query } }).catch((e: unknown) => e);
  assert.ok(late instanceof ConflictError, String(late));
  assert.equal(late.status, 409);
  assert.equal(late.reason, 'condition');
  assert.equal(late.position, claimed.position);
  assert.equal(late.actualVersion, undefined);
  const stale = await client.commit([{ stream: unique('s-'), events: [{ type: 'Claimed', tags: [`username:${t}`] }] }], { condition: { failIfEventsMatch: query, after: claimed.position - 1 } }).catch((e: unknown) => e);
  assert.ok(stale instanceof ConflictError && stale.reason === 'condition' && stale.position === claimed.position, String(stale));
  assert.equal((await client.readQuery(query)).events.length, 1, 'nothing of the refused commits was written');

  // Events that do not match (another tag, another type) do not break it.
  await client.append(unique('noise-'), [{ type: 'Claimed', tags: [`username:${t}-other`] }, { type: 'Noted', tags: [`username:${t}`] }]);
  const released = await client.commit([{ events: [{ type: 'Released', tags: [`username:${t}`] }] }], { condition: { failIfEventsMatch: query, after: claimed.position } });
  assert.equal(released.appends[0]!.stream, '$dcb');
  assert.equal(released.appends[0]!.firstVersion, claimed.appends[0]!.firstVersion + 1);

  // With a stream expectation too: both must hold.
  const stream = unique('both-');
  const expectationFirst = await client.commit([{ stream, expected: 5, events: [{ type: 'Claimed', tags: [`username:${t}`] }] }], { condition: { failIfEventsMatch: query, after: 0 } }).catch((e: unknown) => e);
  assert.ok(expectationFirst instanceof ConflictError && expectationFirst.reason === 'version', 'a failed expectation is reported before a failed condition');
});

test('subscribeQuery: matching events only, stored then live, from a position or the end', async () => {
  const t = unique('sub');
  const query: Query = { items: [{ tags: [`course:${t}`] }] };
  const stream = unique('subq-');
  const start = await client.append(stream, [{ type: 'E', data: { n: 0 }, tags: [`course:${t}`] }, { type: 'E', data: { n: -1 } }]);
  const seen: number[] = [];
  const fromEnd: number[] = [];
  const controller = new AbortController();
  const all = (async () => {
    for await (const e of client.subscribeQuery(query, { from: start.position - 1, signal: controller.signal })) seen.push((e.data as { n: number }).n);
  })();
  const live = (async () => {
    for await (const e of client.subscribeQuery(query, { from: 'end', signal: controller.signal })) fromEnd.push((e.data as { n: number }).n);
  })();
  try {
    await waitUntil(() => seen.length >= 1);
    await sleep(200); // the 'end' subscription has resolved its position
    await client.append(stream, [{ type: 'E', data: { n: -2 }, tags: [`course:${t}x`] }, { type: 'E', data: { n: 1 }, tags: [`course:${t}`, 'more'] }]);
    await client.commit([{ events: [{ type: 'E', data: { n: 2 }, tags: [`course:${t}`] }] }]);
    await waitUntil(() => seen.length >= 3 && fromEnd.length >= 2);
    await sleep(200); // room for anything that should not come
  } finally {
    controller.abort();
    await Promise.all([all, live]);
  }
  assert.deepEqual(seen, [0, 1, 2]);
  assert.deepEqual(fromEnd, [1, 2]);
});

test('subscribeQuery resumes on a new connection with Last-Event-ID when one goes silent: nothing lost, nothing twice', async () => {
  const s = await Server.start({ args: ['--heartbeat-ms', '100'] });
  const proxy = await new CuttingProxy(s.port).listen();
  const c = new Client(proxy.url);
  const direct = new Client(s.url);
  const t = unique('resume');
  const query: Query = { items: [{ types: ['A', 'B'], tags: [t] }] };
  const seen: RecordedEvent[] = [];
  const controller = new AbortController();
  const done = (async () => {
    for await (const e of c.subscribeQuery(query, { idleTimeoutMs: 1000, signal: controller.signal })) seen.push(e);
  })();
  try {
    await direct.append('r', [{ type: 'A', data: 1, tags: [t] }, { type: 'C', data: 0, tags: [t] }, { type: 'B', data: 2, tags: [t] }]);
    await waitUntil(() => seen.length >= 2);
    proxy.freeze();
    await direct.append('r', [{ type: 'A', data: 3, tags: [t] }, { type: 'A', data: 0 }]);
    await direct.commit([{ events: [{ type: 'B', data: 4, tags: [t, 'x'] }] }]);
    await waitUntil(() => seen.length >= 4, 10000);
    await sleep(200);
  } finally {
    controller.abort();
    await done;
    c.close();
    direct.close();
    await proxy.close();
    await s.stop();
  }
  assert.deepEqual(seen.map((e) => e.data), [1, 2, 3, 4]);
  const subscribes = proxy.requests.filter((l) => l.startsWith('GET /subscribe/query?'));
  assert.ok(subscribes.length >= 2, 'it reconnected');
  assert.ok(subscribes.every((l) => l.includes('q=')), 'with its query every time');
});
