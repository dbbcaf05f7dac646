// What the client refuses on its own, before anything is sent (a member it
// does not know, a number that is not a safe integer), and what it refuses
// in an answer (a position or version past 2^53-1, which a JS number would
// round). A stand-in server records the requests, so "nothing was sent" is
// checked, and gives the answers the real server cannot (its positions are
// far from 2^53). Tests against the real server are in client.test.ts and
// new-routes.test.ts.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ConflictError, IndelibleError, InvalidError, Worker } from './subject.js';
import { StandIn, type Answer } from './standin.js';

/** The error a call ends with: thrown at the call, rejected, or thrown while iterating (iterables are read to the end). */
async function refusal(call: () => unknown): Promise<unknown> {
  try {
    const r = call();
    if (r instanceof Worker) {
      await r.stop();
    } else if (r instanceof Promise) {
      await r;
    } else if (r !== null && typeof r === 'object' && Symbol.asyncIterator in r) {
      for await (const _ of r as AsyncIterable<unknown>) void _;
    }
  } catch (err) {
    return err;
  }
  return undefined;
}

const ok = (body: unknown): Answer => ({ body: JSON.stringify(body) });
const EVENT = { id: '5f0c2f6e-0000-4000-8000-000000000001', stream: 's', version: 0, position: 1, type: 'A', metadata: {}, timestamp: 1 };
const STATUS = { group: 'g', checkpoint: 0, lastPosition: 0, lagEvents: 0, lagSeconds: 0, inFlight: 0, redeliveries: 0, blocked: null, parked: { streams: 0, events: 0, replaying: false } };

// Valid answers for every route, so a call that is not refused goes through (and is counted).
function validAnswer(method: string, url: string): Answer {
  const path = url.split('?')[0]!;
  if (path === '/health') return ok({ status: 'ok', lastPosition: 1 });
  if (path === '/commits') return ok({ position: 1, appends: [{ stream: 's', firstVersion: 0, lastVersion: 0, position: 1, replayed: false }] });
  if (path === '/all') return ok({ events: [EVENT], next: null });
  if (path === '/streams') return ok({ streams: [], next: null });
  if (path.startsWith('/subscribe/')) return { contentType: 'text/event-stream', body: `id: 1\ndata: ${JSON.stringify(EVENT)}\n\n` };
  if (path.startsWith('/consumers/') && path.endsWith('/pull')) return ok({ deliveries: [] });
  if (path.startsWith('/consumers')) return ok(STATUS);
  if (path.endsWith('/head')) return ok({ stream: 's', version: 0, position: 1, deleted: false, firstVersion: 0 });
  if (method === 'GET') return ok({ stream: 's', events: [EVENT], nextVersion: null });
  return ok({ stream: 's', firstVersion: 0, lastVersion: 0, position: 1 });
}

let standin: StandIn;
let client: Client;

before(async () => {
  standin = await new StandIn(validAnswer).listen();
  client = new Client(standin.url, { retries: 0 });
});
after(async () => {
  client.close();
  await standin.close();
});

// JavaScript callers and casts: members TypeScript would refuse.
type Any = any;

test('the stand-in answers what every call needs: the checks below are not refusals by the transport', async () => {
  const before = standin.requests.length;
  await client.append('s', { type: 'A' }, { expected: 0, state: { data: 1, schema: 1 } });
  await client.commit([{ stream: 's', expected: 'any', events: [{ type: 'A' }], state: { data: 1 } }]);
  await client.delete('s', { expected: 'exists' });
  for await (const _ of client.readStream('s', { from: 0, pageSize: 10 })) void _;
  for await (const _ of client.readAll({ from: 1, pageSize: 10, category: 'c' })) void _;
  for await (const _ of client.listStreams({ prefix: 'p', pageSize: 10 })) void _;
  for await (const _ of client.subscribeAll({ from: 1, category: 'c' })) break;
  for await (const _ of client.subscribeStream('s', { from: 0 })) break;
  await client.consumers.create('g', { start: 0, maxAttempts: 3, leaseMs: 1000 });
  await client.consumers.pull('g', { max: 10, waitMs: 0 });
  await client.consumers.ack('g', [1, 2]);
  await client.consumers.nack('g', 1, 'why');
  assert.equal(await client.consumers.waitFor('g', 1, 10), false);
  assert.equal(standin.requests.length - before, 13);
});

test('a member the client does not know is refused, naming it and the call, before any request', async () => {
  const cases: Array<[string, string, () => unknown]> = [
    ['append', 'expectedVersion', () => client.append('s', { type: 'A' }, { expectedVersion: 0 } as Any)],
    ['append', 'event.dat', () => client.append('s', { type: 'A', dat: 1 } as Any)],
    ['append', 'events[1].metdata', () => client.append('s', [{ type: 'A' }, { type: 'B', metdata: {} } as Any])],
    ['append', 'state.schemaVersion', () => client.append('s', { type: 'A' }, { state: { data: 1, schemaVersion: 2 } as Any })],
    ['commit', 'appends[0].expectedVersion', () => client.commit([{ stream: 's', expectedVersion: 3, events: [{ type: 'A' }] } as Any])],
    ['commit', 'appends[1].events[0].typ', () => client.commit([{ stream: 'a', events: [] , state: { data: 1 } }, { stream: 'b', events: [{ type: 'A', typ: 'B' } as Any] }])],
    ['commit', 'appends[0].state.snapshot', () => client.commit([{ stream: 's', events: [], state: { data: 1, snapshot: true } as Any }])],
    ['delete', 'expectedVersion', () => client.delete('s', { expectedVersion: 3 } as Any)],
    ['readStream', 'form', () => client.readStream('s', { form: 3 } as Any)],
    ['readAll', 'categories', () => client.readAll({ categories: ['c'] } as Any)],
    ['listStreams', 'limit', () => client.listStreams({ limit: 3 } as Any)],
    ['subscribeAll', 'streams', () => client.subscribeAll({ streams: 'c', signal: AbortSignal.timeout(500) } as Any)],
    ['subscribeStream', 'idleTimeout', () => client.subscribeStream('s', { idleTimeout: 5, signal: AbortSignal.timeout(500) } as Any)],
    ['consumers.create', 'maxAttempt', () => client.consumers.create('g', { maxAttempt: 3 } as Any)],
    ['consumers.pull', 'maximum', () => client.consumers.pull('g', { maximum: 3 } as Any)],
    ['worker', 'concurency', () => client.worker('g', async () => {}, { concurency: 4, waitMs: 0 } as Any)],
    ['new Client', 'apikey', () => new Client(standin.url, { apikey: 'idl_x' } as Any)],
  ];
  const sent = standin.requests.length;
  for (const [call, field, run] of cases) {
    const err = await refusal(run);
    assert.ok(err instanceof InvalidError, `${call} ${field}: ${String(err)}`);
    assert.equal(err.status, 0, field);
    assert.equal(err.code, 'invalid', field);
    assert.equal(err.field, field);
    assert.ok(err.message.includes(`${call}: ${field} is not a member the client knows`), err.message);
  }
  assert.deepEqual(standin.requests.slice(sent), [], 'nothing was sent');
  // Not an object at all.
  const notObject = await refusal(() => client.append('s', { type: 'A' }, 'no_stream' as Any));
  assert.ok(notObject instanceof InvalidError && notObject.field === 'options', String(notObject));
  const noType = await refusal(() => client.commit([{ stream: 's', events: [{ data: 1 }] } as Any]));
  assert.ok(noType instanceof InvalidError && noType.field === 'appends[0].events[0].type', String(noType));
  assert.deepEqual(standin.requests.slice(sent), [], 'nothing was sent');
});

test('a position, version or limit that is not a safe integer is refused before any request', async () => {
  const big = 2 ** 53 + 1; // already 2^53 once JS has it: the server would get ...992
  const cases: Array<[string, string, () => unknown]> = [
    ['readAll', 'from', () => client.readAll({ from: big })],
    ['readAll', 'pageSize', () => client.readAll({ pageSize: 2.5 })],
    ['readStream', 'from', () => client.readStream('s', { from: -1 })],
    ['readStream', 'pageSize', () => client.readStream('s', { pageSize: Number.NaN })],
    ['append', 'expected', () => client.append('s', { type: 'A' }, { expected: big })],
    ['append', 'state.schema', () => client.append('s', { type: 'A' }, { state: { data: 1, schema: 1.5 } })],
    ['commit', 'appends[1].expected', () => client.commit([{ stream: 'a', events: [{ type: 'A' }] }, { stream: 'b', expected: 2 ** 60, events: [{ type: 'B' }] }])],
    ['delete', 'expected', () => client.delete('s', { expected: Number.MAX_SAFE_INTEGER + 2 })],
    ['listStreams', 'pageSize', () => client.listStreams({ pageSize: 1e21 })],
    ['subscribeAll', 'from', () => client.subscribeAll({ from: big, signal: AbortSignal.timeout(500) })],
    ['subscribeStream', 'from', () => client.subscribeStream('s', { from: '7' as Any, signal: AbortSignal.timeout(500) })],
    ['consumers.create', 'start', () => client.consumers.create('g', { start: big })],
    ['consumers.pull', 'max', () => client.consumers.pull('g', { max: 1.5 })],
    ['consumers.ack', 'positions[1]', () => client.consumers.ack('g', [1, big])],
    ['consumers.ack', 'position', () => client.consumers.ack('g', -3)],
    ['consumers.nack', 'position', () => client.consumers.nack('g', big)],
    ['consumers.waitFor', 'position', () => client.consumers.waitFor('g', big)],
  ];
  const sent = standin.requests.length;
  for (const [call, field, run] of cases) {
    const err = await refusal(run);
    assert.ok(err instanceof InvalidError, `${call} ${field}: ${String(err)}`);
    assert.equal(err.status, 0, field);
    assert.equal(err.field, field);
    assert.ok(err.message.startsWith(`indelible: ${call}: ${field} must be`), err.message);
    assert.match(err.message, /TypeScript client handles positions and versions up to 2\^53-1/);
  }
  assert.deepEqual(standin.requests.slice(sent), [], 'nothing was sent');
  // The largest safe integer goes out as it is.
  await client.consumers.waitFor('g', Number.MAX_SAFE_INTEGER, 10);
  assert.match(standin.requests.at(-1)!, /waitFor=9007199254740991&/);
});

// An answer with one number past 2^53-1, as raw JSON text: JSON.parse gives 2^53 for it.
const PAST = '9007199254740993';

test('an answer holding a position or version past 2^53-1 fails the call instead of returning a rounded number', async () => {
  const event = (version: string, position: string) =>
    `{"id":"5f0c2f6e-0000-4000-8000-000000000001","stream":"s","version":${version},"position":${position},"type":"A","metadata":{},"timestamp":1}`;
  const status = (checkpoint: string) =>
    `{"group":"g","checkpoint":${checkpoint},"lastPosition":${checkpoint},"lagEvents":0,"lagSeconds":0,"inFlight":0,"redeliveries":0,"blocked":null,"parked":{"streams":0,"events":0,"replaying":false}}`;
  // Each case: the field the error names, the answer, the call.
  const cases: Array<[string, Answer, (c: Client) => unknown]> = [
    ['position', { body: `{"stream":"s","firstVersion":0,"lastVersion":0,"position":${PAST}}` }, (c) => c.append('s', { type: 'A' })],
    ['lastVersion', { body: `{"stream":"s","firstVersion":0,"lastVersion":${PAST},"position":1}` }, (c) => c.delete('s')],
    ['position', { body: `{"position":${PAST},"appends":[]}` }, (c) => c.commit([{ stream: 's', events: [{ type: 'A' }] }])],
    ['firstVersion', { body: `{"position":5,"appends":[{"stream":"s","firstVersion":${PAST},"lastVersion":0,"position":5}]}` }, (c) => c.commit([{ stream: 's', events: [{ type: 'A' }] }])],
    ['event position', { body: `{"events":[${event('0', PAST)}],"next":null}` }, (c) => c.readAll({ from: 1 })],
    ['next', { body: `{"events":[${event('0', '1')}],"next":${PAST}}` }, (c) => c.readAll({ from: 1 })],
    ['event version', { body: `{"stream":"s","events":[${event(PAST, '1')}],"nextVersion":null}` }, (c) => c.readStream('s')],
    ['nextVersion', { body: `{"stream":"s","events":[${event('0', '1')}],"nextVersion":${PAST}}` }, (c) => c.readStream('s')],
    ['version', { body: `{"stream":"s","version":${PAST},"position":1,"deleted":false,"firstVersion":0}` }, (c) => c.head('s')],
    ['position', { body: `{"stream":"s","version":1,"position":${PAST},"schema":0,"data":null}` }, (c) => c.getState('s')],
    ['event position', { body: event('0', PAST) }, (c) => c.findEvent('5f0c2f6e-0000-4000-8000-000000000001')],
    ['stream version', { body: `{"streams":[{"stream":"s","version":${PAST},"position":1,"deleted":false,"lastWrite":1}],"next":null}` }, (c) => c.listStreams()],
    ['lastPosition', { body: `{"status":"ok","lastPosition":${PAST}}` }, (c) => c.health()],
    ['checkpoint', { body: status(PAST) }, (c) => c.consumers.get('g')],
    ['checkpoint', { body: `{"consumers":[${status('0')},${status(PAST)}]}` }, (c) => c.consumers.list()],
    ['checkpoint', { body: status(PAST) }, (c) => c.consumers.ack('g', 1)],
    ['parkedVersion', { body: `{"deliveries":[{"attempt":1,"parkedVersion":${PAST},"event":${event('0', '1')}}]}` }, (c) => c.consumers.pull('g')],
    ['event position', { body: `{"deliveries":[{"attempt":1,"event":${event('0', PAST)}}]}` }, (c) => c.consumers.pull('g')],
    ['SSE id', { contentType: 'text/event-stream', body: `id: ${PAST}\ndata: ${event('0', '1')}\n\n` }, (c) => c.subscribeAll({ signal: AbortSignal.timeout(2000) })],
    ['event position', { contentType: 'text/event-stream', body: `id: 1\ndata: ${event('0', PAST)}\n\n` }, (c) => c.subscribeStream('s', { signal: AbortSignal.timeout(2000) })],
    ['lastPosition', { body: `{"status":"ok","lastPosition":${PAST}}` }, (c) => c.subscribeAll({ from: 'end', signal: AbortSignal.timeout(2000) })],
    ['actualVersion', { status: 409, body: `{"error":"conflict","reason":"version","message":"m","actualVersion":${PAST},"stream":"s"}` }, (c) => c.append('s', { type: 'A' }, { expected: 0 })],
  ];
  for (const [field, answer, call] of cases) {
    const fake = await new StandIn(() => answer).listen();
    const c = new Client(fake.url, { retries: 0 });
    try {
      const err = await refusal(() => call(c));
      assert.ok(err instanceof IndelibleError, `${field}: ${String(err)}`);
      assert.ok(!(err instanceof ConflictError), `${field}: not a conflict with a rounded version`);
      assert.equal(err.code, 'unsafe_integer', `${field}: ${err.message}`);
      assert.equal(err.status, answer.status ?? 200);
      assert.equal(err.requestId, 'standin-1');
      assert.equal(err.field, field);
      assert.ok(err.message.includes(`the answer's ${field} is 9007199254740992, past 2^53-1`), err.message);
      assert.equal(fake.requests.length, 1, `${field}: failed at once, not retried or reconnected`);
    } finally {
      c.close();
      await fake.close();
    }
  }
});

test('2^53-1 itself, the largest position the client handles, comes back exactly', async () => {
  const max = String(Number.MAX_SAFE_INTEGER);
  const fake = await new StandIn(() => ({ body: `{"stream":"s","version":${max},"position":${max},"deleted":false,"firstVersion":${max}}` })).listen();
  const c = new Client(fake.url);
  try {
    assert.deepEqual(await c.head('s'), { stream: 's', version: Number.MAX_SAFE_INTEGER, position: Number.MAX_SAFE_INTEGER, deleted: false, firstVersion: Number.MAX_SAFE_INTEGER });
  } finally {
    c.close();
    await fake.close();
  }
});

test('conflict answers: a version conflict, an event-id conflict, and an older server without `reason`', async () => {
  const bodies: string[] = [
    '{"error":"conflict","reason":"version","message":"v","actualVersion":4,"stream":"a"}',
    '{"error":"conflict","reason":"event_id","message":"e","eventId":"5f0c2f6e-0000-4000-8000-000000000001","stream":"b"}',
    '{"error":"conflict","message":"old","actualVersion":null}',
    '{"error":"conflict","message":"old","actualVersion":7,"stream":"c"}',
  ];
  let next = 0;
  const fake = await new StandIn(() => ({ status: 409, body: bodies[next++]! })).listen();
  const c = new Client(fake.url);
  const conflict = async (): Promise<ConflictError> => {
    const err = await c.append('s', { type: 'A' }).catch((e: unknown) => e);
    assert.ok(err instanceof ConflictError, String(err));
    return err;
  };
  try {
    const version = await conflict();
    assert.deepEqual([version.reason, version.actualVersion, version.stream, version.eventId], ['version', 4, 'a', undefined]);
    const id = await conflict();
    assert.deepEqual([id.reason, id.actualVersion, id.stream, id.eventId], ['event_id', undefined, 'b', '5f0c2f6e-0000-4000-8000-000000000001']);
    const oldNoStream = await conflict();
    assert.deepEqual([oldNoStream.reason, oldNoStream.actualVersion], ['version', null]);
    const old = await conflict();
    assert.deepEqual([old.reason, old.actualVersion, old.stream], ['version', 7, 'c']);
  } finally {
    c.close();
    await fake.close();
  }
});
