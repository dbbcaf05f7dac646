// Consumer groups: every call, waitFor (read-your-writes), and workers:
// two workers of one group keep each stream's order; a failing handler's
// event is nacked and its stream's later events wait for it.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ConflictError, InvalidError, NotFoundError, type RecordedEvent } from './subject.js';
import { Server, sleep, unique } from './server.js';

let server: Server;
let client: Client;

before(async () => {
  server = await Server.start();
  client = new Client(server.url);
});
after(async () => {
  await server.stop();
});

test('create, get, list, pull, ack, nack, delete', async () => {
  const cat = unique('cg');
  const group = unique('g-');
  await client.append(`${cat}-1`, [{ type: 'A' }, { type: 'B' }]);
  await client.append(unique('other-'), { type: 'O' });

  const created = await client.consumers.create(group, { category: cat, maxAttempts: 3, initialBackoffMs: 10, maxBackoffMs: 20 });
  assert.equal(created.group, group);
  assert.equal(created.checkpoint, 0);
  // The same definition again is fine; another one under the name is a conflict.
  await client.consumers.create(group, { category: cat, maxAttempts: 3, initialBackoffMs: 10, maxBackoffMs: 20 });
  await assert.rejects(client.consumers.create(group, { category: 'else' }), ConflictError);

  assert.ok((await client.consumers.list()).some((s) => s.group === group));

  const batch = await client.consumers.pull(group, { consumer: 'w1', max: 10 });
  assert.deepEqual(batch.map((d) => [d.event.type, d.attempt]), [['A', 1], ['B', 1]]);
  const status = await client.consumers.ack(group, [batch[0]!.event.position]);
  assert.equal(status.checkpoint, batch[0]!.event.position);

  // A nack: B comes again, a second attempt.
  await client.consumers.nack(group, batch[1]!.event.position, 'try again');
  const again = await client.consumers.pull(group, { consumer: 'w1', waitMs: 2000 });
  assert.deepEqual(again.map((d) => [d.event.type, d.attempt]), [['B', 2]]);
  await client.consumers.ack(group, again[0]!.event.position);

  const got = await client.consumers.get(group);
  // Filtered-out events count as handled: the checkpoint may be past B.
  assert.ok(got.checkpoint >= batch[1]!.event.position);
  assert.equal(got.inFlight, 0);
  assert.equal(typeof got.waiting, 'number');

  assert.deepEqual(await client.consumers.delete(group), { deleted: group });
  await assert.rejects(client.consumers.get(group), NotFoundError);
});

test('block, retry, skip; park and replay', async () => {
  const cat = unique('bl');
  const group = unique('g-');
  await client.consumers.create(group, { category: cat, maxAttempts: 1, initialBackoffMs: 10 });
  await assert.rejects(client.consumers.retry(group), InvalidError); // not blocked: 400
  await client.append(`${cat}-1`, [{ type: 'A' }, { type: 'B' }]);
  let [d] = await client.consumers.pull(group, { consumer: 'w', max: 1 });
  await client.consumers.nack(group, d!.event.position, 'boom');
  const blocked = await client.consumers.get(group);
  assert.equal(blocked.blocked?.position, d!.event.position);
  assert.match(blocked.blocked?.reason ?? '', /boom/);
  await client.consumers.retry(group);
  [d] = await client.consumers.pull(group, { consumer: 'w', max: 1, waitMs: 2000 });
  assert.equal(d!.event.type, 'A');
  await client.consumers.nack(group, d!.event.position, 'boom again');
  const skipped = await client.consumers.skip(group);
  assert.equal(skipped.blocked, null);
  [d] = await client.consumers.pull(group, { consumer: 'w', waitMs: 2000 });
  assert.equal(d!.event.type, 'B');
  await client.consumers.ack(group, d!.event.position);

  const parkGroup = unique('p-');
  await client.consumers.create(parkGroup, { category: cat, policy: 'park', maxAttempts: 1 });
  const all = await client.consumers.pull(parkGroup, { consumer: 'w', waitMs: 2000 });
  await client.consumers.nack(parkGroup, all[0]!.event.position, 'park it'); // A parked, B parked behind it
  const parked = await client.consumers.get(parkGroup);
  assert.equal(parked.parked.streams, 1);
  await client.consumers.replay(parkGroup);
  const replayed = await client.consumers.pull(parkGroup, { consumer: 'w', waitMs: 2000 });
  assert.equal(replayed[0]!.event.type, 'A');
  assert.equal(typeof replayed[0]!.parkedVersion, 'number');
});

test('members: each worker name that pulled, what it holds, its last pull', async () => {
  const cat = unique('cm');
  const group = unique('g-');
  await client.append(`${cat}-1`, [{ type: 'A' }, { type: 'B' }]);
  await client.consumers.create(group, { category: cat });
  const before = Date.now();
  const [d] = await client.consumers.pull(group, { consumer: 'worker-a', max: 1 });
  await client.consumers.pull(group, { consumer: 'worker-b', max: 1 });
  const status = await client.consumers.get(group);
  assert.deepEqual(status.members!.map((m) => [m.consumer, m.inFlight, m.waiting]), [['worker-a', 1, 0], ['worker-b', 0, 0]], 'worker-b: B waits behind A on one stream');
  assert.ok(status.members![0]!.lastPull >= before - 1000 && status.members![0]!.lastPull <= Date.now() + 1000);
  assert.equal(status.membersOmitted, false);
  await client.consumers.ack(group, d!.event.position);
  assert.equal((await client.consumers.get(group)).members![0]!.inFlight, 0);
  // The list stays small: no members there.
  assert.equal((await client.consumers.list()).find((g) => g.group === group)?.members, undefined);
});

test('parked events one by one: list with states, retry one, skip one; order within a stream kept', async () => {
  const cat = unique('cp');
  const group = unique('g-');
  await client.append(`${cat}-1`, [{ type: 'A' }, { type: 'B' }, { type: 'C' }]);
  await client.consumers.create(group, { category: cat, policy: 'park', maxAttempts: 1 });
  const [first] = await client.consumers.pull(group, { consumer: 'w', max: 1 });
  await client.consumers.nack(group, first!.event.position, 'smtp down');
  assert.deepEqual(await client.consumers.pull(group, { consumer: 'w', max: 10 }), [], 'B and C park behind A');

  const page = await client.consumers.parked(group);
  assert.deepEqual(page.events.map((p) => [p.parkedVersion, p.state, p.event.type]), [[0, 'pending', 'A'], [1, 'pending', 'B'], [2, 'pending', 'C']]);
  assert.equal(page.nextVersion, null);
  const where = page.events[0]!.event.metadata['$parked'] as { stream: string; version: number; reason: string };
  assert.deepEqual([where.stream, where.version], [`${cat}-1`, 0]);
  assert.match(where.reason, /smtp down/);
  const paged = await client.consumers.parked(group, { from: 1, limit: 1 });
  assert.deepEqual(paged.events.map((p) => p.parkedVersion), [1]);
  assert.equal(paged.nextVersion, 2);

  // B cannot pass A.
  const refused = await client.consumers.retryParked(group, 1).catch((e: unknown) => e);
  assert.ok(refused instanceof ConflictError, String(refused));
  assert.match(refused.message, /before event 0/);
  // A alone comes again, marked as the copy at 0.
  await client.consumers.retryParked(group, 0);
  assert.equal((await client.consumers.parked(group)).events[0]!.state, 'retrying');
  const again = await client.consumers.pull(group, { consumer: 'w', max: 10 });
  assert.deepEqual(again.map((d) => [d.event.type, d.parkedVersion]), [['A', 0]]);
  await client.consumers.ack(group, again[0]!.event.position);
  // Skip B and C: the stream unparks, and its next event flows.
  await client.consumers.skipParked(group, 1);
  const status = await client.consumers.skipParked(group, 2);
  assert.equal(status.parked.events, 0);
  await client.append(`${cat}-1`, { type: 'D' });
  const next = await client.consumers.pull(group, { consumer: 'w', max: 10, waitMs: 2000 });
  assert.deepEqual(next.map((d) => d.event.type), ['D']);
  // Skipping twice, an unknown copy, a bad version: refused, nothing changed.
  await assert.rejects(client.consumers.skipParked(group, 1), ConflictError);
  await assert.rejects(client.consumers.skipParked(group, 99), NotFoundError);
  await assert.rejects(client.consumers.skipParked(group, -1), InvalidError);
});

test('waitFor: true once the checkpoint reaches the position, false on timeout', async () => {
  const cat = unique('wf');
  const group = unique('g-');
  await client.consumers.create(group, { category: cat });
  const { position } = await client.append(`${cat}-1`, { type: 'A' });
  const t0 = Date.now();
  assert.equal(await client.consumers.waitFor(group, position, 300), false);
  assert.ok(Date.now() - t0 >= 250);
  const worker = client.worker(group, async () => {}, { waitMs: 200 });
  try {
    assert.equal(await client.consumers.waitFor(group, position, 5000), true);
  } finally {
    await worker.stop();
  }
});

test('two workers of one group: every event handled, each stream in version order, despite random delays', async () => {
  const cat = unique('ord');
  const group = unique('g-');
  await client.consumers.create(group, { category: cat });
  const streams = Array.from({ length: 6 }, (_, i) => `${cat}-${i}`);
  const perStream = 12;
  // Interleaved: stream 0 v0, stream 1 v0, ..., stream 0 v1, ...
  for (let v = 0; v < perStream; v++) {
    for (const s of streams) await client.append(s, { type: 'E', data: { v } });
  }
  const handled = new Map<string, number[]>(streams.map((s) => [s, []]));
  const running = new Set<string>();
  let overlap = 0;
  const byWorker = { w1: 0, w2: 0 };
  const handler = (who: string) => async (e: RecordedEvent) => {
    // A stream's events must never run at once, in this worker or the other.
    if (running.has(e.stream)) overlap++;
    running.add(e.stream);
    await sleep(Math.random() * 15);
    handled.get(e.stream)!.push(e.version);
    running.delete(e.stream);
    byWorker[who as 'w1' | 'w2']++;
  };
  const w1 = client.worker(group, handler('w1'), { consumer: 'w1', concurrency: 3, batch: 10, waitMs: 200 });
  const w2 = client.worker(group, handler('w2'), { consumer: 'w2', concurrency: 3, batch: 10, waitMs: 200 });
  const total = streams.length * perStream;
  const t0 = Date.now();
  while ([...handled.values()].reduce((n, l) => n + l.length, 0) < total && Date.now() - t0 < 30000) await sleep(50);
  await Promise.all([w1.stop(), w2.stop()]);
  assert.equal(overlap, 0);
  assert.ok(byWorker.w1 > 0 && byWorker.w2 > 0, `both workers took part: ${JSON.stringify(byWorker)}`);
  for (const [s, versions] of handled) assert.deepEqual(versions, [...Array(perStream).keys()], s);
  const status = await client.consumers.get(group);
  assert.equal(status.inFlight, 0);
  assert.equal(status.lagEvents, 0);
});

test('concurrency: handlers run in parallel on different streams, never on one stream', async () => {
  const cat = unique('par');
  const group = unique('g-');
  await client.consumers.create(group, { category: cat });
  for (let v = 0; v < 3; v++) for (let i = 0; i < 4; i++) await client.append(`${cat}-${i}`, { type: 'E' });
  let running = 0;
  let most = 0;
  const busy = new Set<string>();
  let overlap = 0;
  let handled = 0;
  const w = client.worker(group, async (e) => {
    if (busy.has(e.stream)) overlap++;
    busy.add(e.stream);
    most = Math.max(most, ++running);
    await sleep(60);
    running--;
    busy.delete(e.stream);
    handled++;
  }, { concurrency: 3, waitMs: 100 });
  while (handled < 12) await sleep(20);
  await w.stop();
  assert.equal(most, 3);
  assert.equal(overlap, 0);
});

test('a failing handler: its event is nacked and handled again, the stream waits, other streams go on', async () => {
  const cat = unique('fail');
  const group = unique('g-');
  await client.consumers.create(group, { category: cat, initialBackoffMs: 20, maxBackoffMs: 50 });
  await client.append(`${cat}-bad`, [{ type: 'E', data: { v: 0 } }, { type: 'E', data: { v: 1 } }, { type: 'E', data: { v: 2 } }]);
  await client.append(`${cat}-good`, [{ type: 'E', data: { v: 0 } }, { type: 'E', data: { v: 1 } }]);
  const log: string[] = [];
  let failures = 0;
  const errors: unknown[] = [];
  const w = client.worker(
    group,
    async (e, d) => {
      if (e.stream.endsWith('bad') && e.version === 1 && failures < 2) {
        failures++;
        throw new Error(`fail ${d.attempt}`);
      }
      log.push(`${e.stream.split('-').pop()}:${e.version}`);
    },
    { concurrency: 2, waitMs: 100, onError: (err) => errors.push(err) },
  );
  const t0 = Date.now();
  while (log.length < 5 && Date.now() - t0 < 10000) await sleep(20);
  await w.stop();
  assert.equal(failures, 2);
  assert.equal(errors.length, 2);
  assert.deepEqual(log.filter((l) => l.startsWith('bad')), ['bad:0', 'bad:1', 'bad:2']);
  assert.deepEqual(log.filter((l) => l.startsWith('good')), ['good:0', 'good:1']);
  assert.equal((await client.consumers.get(group)).lagEvents, 0);
});

test('stop() is graceful: a handler in flight finishes and is acknowledged', async () => {
  const cat = unique('stop');
  const group = unique('g-');
  await client.consumers.create(group, { category: cat });
  await client.append(`${cat}-1`, { type: 'Slow' });
  let started = false;
  let finished = false;
  const w = client.worker(group, async () => {
    started = true;
    await sleep(300);
    finished = true;
  }, { waitMs: 100 });
  while (!started) await sleep(10);
  await w.stop();
  assert.equal(finished, true);
  const status = await client.consumers.get(group);
  assert.equal(status.inFlight, 0);
  assert.equal(status.lagEvents, 0);
});

test('a worker’s signal stops it as stop() does; an aborted one never pulls', async () => {
  const cat = unique('wsig');
  const group = unique('g-');
  await client.consumers.create(group, { category: cat });
  await client.append(`${cat}-1`, { type: 'Slow' });
  let started = false;
  let finished = false;
  const stop = new AbortController();
  const w = client.worker(group, async () => {
    started = true;
    await sleep(300);
    finished = true;
  }, { waitMs: 100, signal: stop.signal });
  while (!started) await sleep(10);
  stop.abort();
  await w.done;
  assert.equal(finished, true, 'the event in hand was handled');
  assert.equal((await client.consumers.get(group)).lagEvents, 0, 'and acknowledged');

  await client.append(`${cat}-1`, { type: 'Later' });
  let handled = 0;
  const never = client.worker(group, async () => void handled++, { waitMs: 100, signal: AbortSignal.abort() });
  await never.done;
  assert.equal(handled, 0);
  assert.equal((await client.consumers.get(group)).inFlight, 0, 'nothing leased to it');
});

test('a worker of a group that does not exist ends, done rejecting with NotFoundError', async () => {
  const w = client.worker(unique('none-'), async () => {}, { waitMs: 50 });
  await assert.rejects(w.done, NotFoundError);
  await assert.rejects(w.stop(), NotFoundError);
});
