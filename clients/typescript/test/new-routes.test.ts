// The routes of issue 20: POST /commits, state records (appends with a
// state, GET /streams/{s}/state) and GET /streams (listing).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Client, ConflictError, InvalidError, NotFoundError } from './subject.js';
import { CuttingProxy } from './proxy.js';
import { Server, collect, unique } from './server.js';

let server: Server;
let client: Client;

before(async () => {
  server = await Server.start();
  client = new Client(server.url);
});
after(async () => {
  await server.stop();
});

test('commit: several streams with expectations, events and a state record, all at once', async () => {
  const id = unique('');
  const account = `BANK_ACCOUNT/${id}`;
  const outbox = `outbox-${id}`;
  const result = await client.commit([
    { stream: account, expected: 'no_stream', events: [{ type: 'Opened', data: { owner: 'ann' } }, { type: 'Deposited', data: { amount: 10 } }], state: { data: { balance: 10 }, schema: 2 } },
    { stream: outbox, events: [{ type: 'AccountOpened', data: { id } }] },
  ]);
  assert.equal(result.appends.length, 2);
  const [a, o] = result.appends;
  assert.deepEqual({ ...a!, position: 0 }, { stream: account, firstVersion: 0, lastVersion: 1, position: 0, replayed: false });
  assert.equal(o!.stream, outbox);
  assert.equal(o!.firstVersion, 0);
  // One commit: contiguous positions.
  assert.equal(result.position, Math.max(a!.position, o!.position));
  const all = await collect(client.readAll({ from: result.position - 2 }));
  assert.deepEqual(all.map((e) => e.type), ['Opened', 'Deposited', 'AccountOpened']);

  // The record's position is that of the last event it covers.
  assert.deepEqual(await client.getState(account), { stream: account, version: 1, position: a!.position, schema: 2, data: { balance: 10 } });

  // A state-only append: no events, a state, an exact expectation.
  const stateOnly = await client.commit([{ stream: account, expected: 1, events: [], state: { data: { balance: 10, note: 'rebuilt' }, schema: 3 } }]);
  assert.equal(stateOnly.appends[0]!.stream, account);
  assert.deepEqual((await client.getState(account))?.data, { balance: 10, note: 'rebuilt' });
});

test('commit: a member the client does not know is refused, naming its path; nothing is written', async () => {
  const stream = unique('ctypo-');
  await client.append(stream, { type: 'A' });
  const err = await client.commit([{ stream, expectedVersion: 7, events: [{ type: 'B' }] } as never]).catch((e: unknown) => e);
  assert.ok(err instanceof InvalidError, String(err));
  assert.equal(err.status, 0);
  assert.equal(err.field, 'appends[0].expectedVersion');
  assert.match(err.message, /^indelible: commit: appends\[0\]\.expectedVersion is not a member the client knows/);
  const inEvent = await client.commit([{ stream, expected: 0, events: [{ type: 'B' }, { type: 'C', dataa: 1 } as never] }]).catch((e: unknown) => e);
  assert.ok(inEvent instanceof InvalidError && inEvent.field === 'appends[0].events[1].dataa', String(inEvent));
  const inState = await client.commit([{ stream, expected: 0, events: [], state: { data: 1, shema: 2 } as never }]).catch((e: unknown) => e);
  assert.ok(inState instanceof InvalidError && inState.field === 'appends[0].state.shema', String(inState));
  assert.equal((await client.head(stream)).version, 0);
  assert.equal(await client.getState(stream), null);
});

test('a conflict about an event id says so: reason event_id, the id and the stream, and no claim that the stream is missing', async () => {
  const a = unique('ida-');
  const b = unique('idb-');
  const id = randomUUID();
  await client.append(a, { id, type: 'A' });
  // The id again, on another stream: b does not exist, but that is not what went wrong.
  const reused = await client.append(b, { id, type: 'A' }).catch((e: unknown) => e);
  assert.ok(reused instanceof ConflictError, String(reused));
  assert.equal(reused.status, 409);
  assert.equal(reused.reason, 'event_id');
  assert.equal(reused.eventId, id);
  assert.equal(reused.stream, b);
  assert.equal(reused.actualVersion, undefined);
  await assert.rejects(client.head(b), NotFoundError);

  // A retry that mixes a written id with a new one.
  const mixed = await client.append(a, [{ id, type: 'A' }, { id: randomUUID(), type: 'B' }]).catch((e: unknown) => e);
  assert.ok(mixed instanceof ConflictError && mixed.reason === 'event_id' && mixed.actualVersion === undefined, String(mixed));
  assert.equal(mixed.stream, a);

  // A commit that mixes a retried append with a new one.
  const c = unique('idc-');
  const first = [{ id: randomUUID(), type: 'C' }];
  await client.commit([{ stream: c, events: first }]);
  const retryAndNew = await client.commit([{ stream: c, events: first }, { stream: unique('idd-'), events: [{ type: 'D' }] }]).catch((e: unknown) => e);
  assert.ok(retryAndNew instanceof ConflictError, String(retryAndNew));
  assert.equal(retryAndNew.reason, 'event_id');
  assert.equal(retryAndNew.stream, c);
  assert.equal(retryAndNew.eventId, first[0]!.id);
  assert.equal(retryAndNew.actualVersion, undefined);

  // A version conflict is still one, with the actual version.
  const version = await client.commit([{ stream: a, expected: 'no_stream', events: [{ type: 'X' }] }]).catch((e: unknown) => e);
  assert.ok(version instanceof ConflictError, String(version));
  assert.equal(version.reason, 'version');
  assert.equal(version.actualVersion, 0);
  assert.equal(version.eventId, undefined);
  const missing = await client.append(b, { type: 'X' }, { expected: 'exists' }).catch((e: unknown) => e);
  assert.ok(missing instanceof ConflictError && missing.reason === 'version' && missing.actualVersion === null, String(missing));
});

test('commit conflict names the stream and its actual version; nothing is written', async () => {
  const a = unique('ca-');
  const b = unique('cb-');
  await client.append(b, { type: 'X' });
  const err = await client.commit([
    { stream: a, events: [{ type: 'A' }] },
    { stream: b, expected: 'no_stream', events: [{ type: 'B' }] },
  ]).catch((e: unknown) => e);
  assert.ok(err instanceof ConflictError, String(err));
  assert.equal(err.stream, b);
  assert.equal(err.actualVersion, 0);
  await assert.rejects(collect(client.readStream(a)), NotFoundError);
  assert.equal((await client.head(b)).version, 0);
});

test('commit invalid: the same stream twice is 400 naming the field', async () => {
  const s = unique('dup-');
  const err = await client.commit([
    { stream: s, events: [{ type: 'A' }] },
    { stream: s, events: [{ type: 'B' }] },
  ]).catch((e: unknown) => e);
  assert.ok(err instanceof InvalidError, String(err));
  assert.equal(err.field, 'appends[1].stream');
});

test('a commit whose answer is lost is retried as a replay: one copy of each event', async () => {
  const proxy = await new CuttingProxy(server.port).listen();
  try {
    const c = new Client(proxy.url);
    const a = unique('ra-');
    const b = unique('rb-');
    proxy.cutOnce((line) => line.startsWith('POST /commits'));
    const result = await c.commit([
      { stream: a, expected: 'no_stream', events: [{ type: 'A1' }, { type: 'A2' }] },
      { stream: b, events: [{ type: 'B1' }] },
    ]);
    assert.equal(proxy.cuts, 1);
    assert.ok(result.appends.every((x) => x.replayed), JSON.stringify(result));
    assert.equal((await collect(client.readStream(a))).length, 2);
    assert.equal((await collect(client.readStream(b))).length, 1);
  } finally {
    await proxy.close();
  }
});

test('findEvent: the event of an id in whatever stream holds it; null for an unknown id', async () => {
  const cause = randomUUID();
  await client.append('cause-1', { id: cause, type: 'Caused', data: { n: 1 } });
  await client.append('effect-1', { type: 'Followed', data: { n: 2 }, metadata: { causationId: cause } });
  const found = await client.findEvent(cause);
  assert.equal(found?.stream, 'cause-1');
  assert.equal(found?.type, 'Caused');
  assert.deepEqual(found?.data, { n: 1 });
  assert.equal(await client.findEvent(randomUUID()), null);
  await assert.rejects(client.findEvent('not-an-id'), InvalidError);
});

test('append with a state record; getState: the record, null without one, null after a delete; bytes', async () => {
  const s = unique('st-');
  const r = await client.append(s, [{ type: 'A' }, { type: 'B' }], { expected: 'no_stream', state: { data: { count: 2 }, schema: 1 } });
  assert.equal(r.lastVersion, 1);
  assert.deepEqual(await client.getState(s), { stream: s, version: 1, position: r.position, schema: 1, data: { count: 2 } });
  await client.append(s, { type: 'C' }); // no state: the record still covers version 1
  assert.equal((await client.getState(s))?.version, 1);

  const plain = unique('nostate-');
  await client.append(plain, { type: 'A' });
  assert.equal(await client.getState(plain), null);
  assert.equal(await client.getState(unique('never-')), null);

  await client.delete(s);
  assert.equal(await client.getState(s), null);

  const b = unique('bytes-');
  await client.append(b, { type: 'A' }, { state: { data: new Uint8Array([0, 255, 7]) } });
  const st = await client.getState(b);
  assert.equal(st?.schema, 0, 'the default schema');
  assert.ok(st?.data instanceof Uint8Array);
  assert.deepEqual([...(st!.data as Uint8Array)], [0, 255, 7]);
});

test('listStreams: by name, paged, with prefix, category, after; deleted streams say so', async () => {
  const cat = unique('ls');
  const names = [`${cat}-a`, `${cat}-b`, `${cat}-c`, `${cat}/d`, `${cat}-e`];
  for (const n of names) await client.append(n, { type: 'A' });
  await client.append(`${cat}-b`, { type: 'B' });
  await client.delete(`${cat}-c`);
  const before = Date.now();

  const listed = await collect(client.listStreams({ prefix: cat, pageSize: 2 }));
  assert.deepEqual(listed.map((s) => s.stream), [...names].sort());
  const b = listed.find((s) => s.stream === `${cat}-b`)!;
  assert.equal(b.version, 1);
  assert.equal(b.deleted, false);
  assert.ok(b.position > 0);
  assert.ok(b.lastWrite > before - 60000 && b.lastWrite <= before + 1000);
  assert.equal(listed.find((s) => s.stream === `${cat}-c`)!.deleted, true);

  const byCategory = await collect(client.listStreams({ category: cat }));
  assert.deepEqual(byCategory.map((s) => s.stream), [...names].sort());
  const after = await collect(client.listStreams({ prefix: cat, after: `${cat}-b` }));
  assert.deepEqual(after.map((s) => s.stream), [...names].sort().filter((n) => n > `${cat}-b`));
});
