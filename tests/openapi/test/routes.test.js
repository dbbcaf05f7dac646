// Every operation of docs/openapi.json against a real `indelible serve`:
// each answer's status, headers and body are checked against the
// operation's response in the document (lib/oas.js check()). One server
// without credentials (with --allow-origin, for CORS) and one with --auth
// (401, 403, keys). At the end: every operation must have had a validated
// success answer, and the main errors a validated answer each.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { doc, check, checkComponent, covered, componentCovered, errorAnswers, operations, validate, deref } from '../lib/oas.js';
import { startServer, request, rawRequest, subscribe } from '../lib/server.js';

const ALLOWED_ORIGIN = 'http://allowed.example';
// Small limits make 413 and the group cap cheap to reach.
const LIMITS = ['--max-append-bytes', '65536', '--max-event-bytes', '16384', '--max-consumer-groups', '6'];

// A request checked against the document's operation METHOD template.
async function call(server, method, template, target, opts = {}) {
  const res = await request(server, method, target, opts);
  const body = check(method, template, res);
  return { res, body };
}

// As call(), and the status must be `status`.
async function expect(status, server, method, template, target, opts = {}) {
  const { res, body } = await call(server, method, template, target, opts);
  assert.equal(res.status, status, `${method} ${target}: expected ${status}, got ${res.status} ${res.body.slice(0, 300)}`);
  return { res, body };
}

// Runs fn for each item, collecting failures, so that one route's failure
// does not hide the others'; fails at the end listing them all.
async function each(items, fn) {
  const failures = [];
  for (const item of items) {
    try {
      await fn(item);
    } catch (e) {
      failures.push(`${Array.isArray(item) ? item[0] : item}: ${e.message.split('\n')[0]}`);
    }
  }
  if (failures.length > 0) assert.fail(`${failures.length} failed:\n${failures.join('\n')}`);
}

const event = (type = 'Thing.Happened', extra = {}) => ({ id: randomUUID(), type, data: { n: 1 }, metadata: { by: 'test' }, ...extra });
const enc = encodeURIComponent;

// A concrete target for a path template.
const sample = (template) =>
  template
    .replace('{stream}', 'order-1').replace('{group}', 'g1').replace('{key}', 'k').replace('{file}', 'app.js').replace('{subject}', 'user-1').replace('{id}', '5f0c0a4e-0000-4000-8000-000000000001')
    .replace('{type}', 'Order.Placed').replace('{version}', 'V1').replace('{category}', 'order');

// A stream's 409 says which kind it is (`reason`). version: the expectation
// failed, with the stream's version (and its ETag on single-stream routes).
function versionConflict({ res, body }, { stream, actual, etag = true }) {
  assert.equal(body.reason, 'version', JSON.stringify(body));
  assert.equal(body.stream, stream);
  assert.equal(body.actualVersion, actual);
  assert.equal(res.headers.etag, etag && actual !== null ? `"${actual}"` : undefined, 'ETag of a version conflict');
}

// event_id: an id written before by another append, or a retry mixed with
// new ids; no version (no actualVersion, no ETag).
function eventIdConflict({ res, body }, { stream, id }) {
  assert.equal(body.reason, 'event_id', JSON.stringify(body));
  assert.equal(body.eventId, id);
  assert.equal(body.stream, stream);
  assert.ok(!('actualVersion' in body), `no actualVersion on an event id conflict: ${JSON.stringify(body)}`);
  assert.equal(res.headers.etag, undefined);
}

// A conflict that is not about a stream: no reason, actualVersion null.
function otherConflict({ body }) {
  assert.equal(body.error, 'conflict');
  assert.equal(body.reason, undefined);
  assert.equal(body.actualVersion, null);
}

// Checks an SSE answer: the head against the document, then each message:
// `id:` is the event's position, `data:` one line of an Event.
function checkSse(template, sub, { stream } = {}) {
  check('GET', template, sub);
  const media = deref(doc.paths[template].get.responses['200']).content['text/event-stream'];
  const events = [];
  for (const m of sub.messages.filter((x) => x.data !== undefined)) {
    assert.ok(!m.data.includes('\n'), 'data: is one line');
    assert.equal(m.other, undefined, `unexpected SSE line ${m.other}`);
    const value = JSON.parse(m.data);
    validate(media['x-event-data'], value, `${template} SSE data`);
    assert.equal(m.id, String(value.position), 'id: is the event position');
    if (stream) assert.equal(value.stream, stream);
    events.push(value);
  }
  return events;
}

describe('without credentials', () => {
  let s;
  before(async () => {
    // A master key, so that subjects can be sealed and shredded (issue 37).
    const keyFile = path.join(mkdtempSync(path.join(tmpdir(), 'indelible-openapi-key-')), 'master.key');
    writeFileSync(keyFile, randomBytes(32).toString('hex') + '\n', { mode: 0o600 });
    s = await startServer(['--allow-origin', ALLOWED_ORIGIN, '--master-key-file', keyFile, ...LIMITS]);
  });
  after(async () => {
    await s?.stop();
  });

  test('POST /streams/{stream}: append, replay, conflicts, invalid, 413, 415', async () => {
    const T = '/streams/{stream}';
    const { res, body } = await expect(201, s, 'POST', T, '/streams/order-1', { json: event() });
    assert.equal(res.headers.etag, '"0"');
    assert.equal(res.headers.location, '/streams/order-1');
    assert.deepEqual([body.firstVersion, body.lastVersion], [0, 0]);
    const batch = [event(), event('Other.Thing')];
    await expect(201, s, 'POST', T, '/streams/order-1', { json: batch });
    const replay = await expect(201, s, 'POST', T, '/streams/order-1', { json: batch });
    assert.equal(replay.res.headers['idempotent-replay'], 'true');
    // An encoded name, base64 data.
    const bin = await expect(201, s, 'POST', T, `/streams/${enc('order/2')}`, {
      json: { type: 'Blob', contentType: 'application/octet-stream', dataEncoding: 'base64', data: Buffer.from([0, 1, 2, 255]).toString('base64') },
    });
    assert.equal(bin.body.stream, 'order/2');
    assert.equal(bin.res.headers.location, '/streams/order%2F2');
    await expect(201, s, 'POST', T, '/streams/order-1', { json: event(), headers: { 'If-Match': '"2"' } });
    await expect(201, s, 'POST', T, '/streams/fresh-1', { json: event(), headers: { 'If-None-Match': '*' } });
    await expect(201, s, 'POST', T, '/streams/fresh-1', { json: event(), headers: { 'If-Match': '*' } });

    const c1 = await expect(409, s, 'POST', T, '/streams/order-1', { json: event(), headers: { 'If-Match': '"0"' } });
    versionConflict(c1, { stream: 'order-1', actual: 3 });
    const c2 = await expect(409, s, 'POST', T, '/streams/nothing-here', { json: event(), headers: { 'If-Match': '"0"' } });
    versionConflict(c2, { stream: 'nothing-here', actual: null });
    versionConflict(await expect(409, s, 'POST', T, '/streams/order-1', { json: event(), headers: { 'If-None-Match': '*' } }), { stream: 'order-1', actual: 3 });

    const missingType = await expect(400, s, 'POST', T, '/streams/order-1', { json: { data: {} } });
    assert.equal(missingType.body.field, 'type');
    await expect(400, s, 'POST', T, '/streams/order-1', { json: [] });
    await expect(400, s, 'POST', T, '/streams/order-1', { body: '{"type":', headers: { 'Content-Type': 'application/json' } });
    await expect(400, s, 'POST', T, `/streams/${enc('$reserved')}`, { json: event() });
    const weak = await expect(400, s, 'POST', T, '/streams/order-1', { json: event(), headers: { 'If-Match': 'W/"1"' } });
    assert.equal(weak.body.field, 'If-Match');
    await expect(400, s, 'POST', T, '/streams/order-1', { json: event(), headers: { 'If-Match': '"1"', 'If-None-Match': '*' } });

    await expect(413, s, 'POST', T, '/streams/order-1', { json: event('Big', { data: 'x'.repeat(20000) }) });
    // Over --max-append-events (1000), over --max-append-bytes (65536).
    const many = await expect(413, s, 'POST', T, '/streams/order-1', { json: Array.from({ length: 1001 }, () => ({ type: 'T', data: 1 })) });
    assert.equal(many.body.field, 'events');
    const heavy = await expect(413, s, 'POST', T, '/streams/order-1', { json: Array.from({ length: 5 }, () => ({ type: 'T', data: 'x'.repeat(15000) })) });
    assert.equal(heavy.body.field, 'events');
    // Bad events: each names its field.
    for (const [bad, field] of [
      [{ type: '$mine', data: 1 }, 'type'],
      [{ id: 'not-a-uuid', type: 'A', data: 1 }, 'id'],
      ['{"type":"A","type":"B","data":1}', 'type'],
      [{ type: 'A', data: 1, metadata: [] }, 'metadata'],
      [{ type: 'A', data: '@@', dataEncoding: 'base64', contentType: 'application/octet-stream' }, 'data'],
    ]) {
      const body = typeof bad === 'string' ? { body: bad, headers: { 'Content-Type': 'application/json' } } : { json: bad };
      const r = await expect(400, s, 'POST', T, '/streams/bad-1', body);
      assert.ok(r.body.field?.endsWith(field), `field ${r.body.field} for ${JSON.stringify(bad)}`);
    }
    // A stream name that is not one, on every stream route.
    const badName = `/streams/${enc('bad\u0001name')}`;
    for (const [method, suffix, json] of [['POST', '', event()], ['GET', ''], ['DELETE', ''], ['GET', '/head'], ['GET', '/state'], ['GET', '/metadata'], ['PUT', '/metadata', {}]]) {
      const r = await expect(400, s, method, `${T}${suffix}`, `${badName}${suffix}`, { json });
      assert.equal(r.body.field, 'stream');
    }
    const m415 = await expect(415, s, 'POST', T, '/streams/order-1', { body: '{"type":"A"}', headers: { 'Content-Type': 'text/plain' } });
    assert.equal(m415.body.field, 'Content-Type');
    await expect(415, s, 'POST', T, '/streams/order-1', { body: '{"type":"A"}' });
    // Over twice --max-append-bytes: refused on the headers, the body unread.
    const big = await rawRequest(
      s,
      `POST /streams/order-1 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n`,
    );
    assert.equal(big.status, 413);
    check('POST', T, big);
  });

  test('POST /streams/{stream} with the envelope and a state record (issue 20)', async () => {
    const T = '/streams/{stream}';
    const { res } = await expect(201, s, 'POST', T, '/streams/acct-1', {
      json: { events: [event('Opened')], state: { data: { balance: 0 }, schema: 1 } },
    });
    assert.equal(res.headers.etag, '"0"');
    await expect(201, s, 'POST', T, '/streams/acct-1', {
      json: { events: [event('Deposited')], state: { data: Buffer.from('raw').toString('base64'), dataEncoding: 'base64', schema: 2 } },
    });
    // State only: no events, the version the state covers named by If-Match.
    await expect(201, s, 'POST', T, '/streams/acct-3', { json: { events: [event('Opened')] } });
    await expect(201, s, 'POST', T, '/streams/acct-3', { json: { events: [], state: { data: { n: 3 }, schema: 1 } }, headers: { 'If-Match': '"0"' } });
    await expect(400, s, 'POST', T, '/streams/acct-3', { json: { events: [] } });
    await expect(400, s, 'POST', T, '/streams/acct-3', { json: { events: [event()], state: { schema: 1 } } });
  });

  test('GET /streams/{stream}: pages, directions, deleted, 400, 404', async () => {
    const T = '/streams/{stream}';
    const { res, body } = await expect(200, s, 'GET', T, '/streams/order-1');
    assert.equal(res.headers.etag, '"3"');
    assert.equal(body.events.length, 4);
    assert.equal(body.nextVersion, null);
    const page = await expect(200, s, 'GET', T, '/streams/order-1?from=1&limit=2');
    assert.deepEqual(page.body.events.map((e) => e.version), [1, 2]);
    assert.equal(page.body.nextVersion, 3);
    const back = await expect(200, s, 'GET', T, '/streams/order-1?direction=backward&limit=2');
    assert.deepEqual(back.body.events.map((e) => e.version), [3, 2]);
    const bin = await expect(200, s, 'GET', T, `/streams/${enc('order/2')}`);
    assert.equal(bin.body.events[0].dataEncoding, 'base64');
    assert.equal(bin.body.events[0].data, Buffer.from([0, 1, 2, 255]).toString('base64'));
    for (const q of ['limit=0', 'limit=10001', 'from=-1', 'direction=up', 'includeDeleted=yes', 'from=x'])
      await expect(400, s, 'GET', T, `/streams/order-1?${q}`);
    const nf = await expect(404, s, 'GET', T, '/streams/never-written');
    assert.equal(nf.body.deleted, undefined);
  });

  test('GET /streams/{stream}/head', async () => {
    const T = '/streams/{stream}/head';
    const { res, body } = await expect(200, s, 'GET', T, '/streams/order-1/head');
    assert.equal(res.headers.etag, `"${body.version}"`);
    assert.equal(body.deleted, false);
    await expect(404, s, 'GET', T, '/streams/never-written/head');
  });

  test('DELETE /streams/{stream}, then reads of a deleted stream', async () => {
    const T = '/streams/{stream}';
    await expect(201, s, 'POST', T, '/streams/gone-1', { json: event() });
    await expect(409, s, 'DELETE', T, '/streams/gone-1', { headers: { 'If-Match': '"7"' } });
    await expect(400, s, 'DELETE', T, '/streams/gone-1', { headers: { 'If-None-Match': '*' } });
    const { res } = await expect(200, s, 'DELETE', T, '/streams/gone-1', { headers: { 'If-Match': '"0"' } });
    assert.ok(res.headers.etag);
    const deleted = await expect(404, s, 'GET', T, '/streams/gone-1');
    assert.equal(deleted.body.deleted, true);
    const withTombstone = await expect(200, s, 'GET', T, '/streams/gone-1?includeDeleted=true');
    assert.ok(withTombstone.body.events.length >= 1);
    const head = await expect(200, s, 'GET', '/streams/{stream}/head', '/streams/gone-1/head');
    assert.equal(head.body.deleted, true);
    const never = await expect(404, s, 'DELETE', T, '/streams/never-written');
    assert.equal(never.body.deleted, undefined);
    const again = await expect(404, s, 'DELETE', T, '/streams/gone-1');
    assert.equal(again.body.deleted, true);
    await expect(200, s, 'DELETE', T, '/streams/fresh-1');
  });

  test('GET /streams/{stream}/state (issue 20)', async () => {
    const T = '/streams/{stream}/state';
    await expect(201, s, 'POST', '/streams/{stream}', '/streams/acct-2', {
      json: { events: [event('Opened')], state: { data: { balance: 5 }, schema: 3 } },
    });
    const { res, body } = await expect(200, s, 'GET', T, '/streams/acct-2/state');
    assert.equal(res.headers.etag, '"0"');
    assert.deepEqual([body.data, body.schema, body.version], [{ balance: 5 }, 3, 0]);
    const raw = await expect(200, s, 'GET', T, '/streams/acct-1/state');
    assert.equal(raw.body.dataEncoding, 'base64');
    assert.equal(raw.body.data, Buffer.from('raw').toString('base64'));
    const only = await expect(200, s, 'GET', T, '/streams/acct-3/state');
    assert.deepEqual([only.body.data, only.body.version], [{ n: 3 }, 0]);
    // Deleted since: no state.
    await expect(201, s, 'POST', '/streams/{stream}', '/streams/acct-4', { json: { events: [event()], state: { data: 1, schema: 1 } } });
    await expect(200, s, 'DELETE', '/streams/{stream}', '/streams/acct-4');
    await expect(404, s, 'GET', T, '/streams/acct-4/state');
    await expect(404, s, 'GET', T, '/streams/order-1/state');
    await expect(404, s, 'GET', T, '/streams/never-written/state');
  });

  test('GET and PUT /streams/{stream}/metadata (issue 37)', async () => {
    const T = '/streams/{stream}/metadata';
    const none = await expect(200, s, 'GET', T, '/streams/meta-1/metadata');
    assert.deepEqual(none.body, { stream: 'meta-1', version: null, metadata: {} });
    assert.equal(none.res.headers.etag, undefined, 'never written: no ETag');
    const first = await expect(200, s, 'PUT', T, '/streams/meta-1/metadata', { json: { maxCount: 2, custom: { owner: 'ops' } }, headers: { 'If-None-Match': '*' } });
    assert.deepEqual(first.body, { stream: 'meta-1', version: 0 });
    assert.equal(first.res.headers.etag, '"0"');
    const got = await expect(200, s, 'GET', T, '/streams/meta-1/metadata');
    assert.equal(got.res.headers.etag, '"0"');
    assert.deepEqual(got.body.metadata, { maxCount: 2, custom: { owner: 'ops' } });
    await expect(200, s, 'PUT', T, '/streams/meta-1/metadata', { json: { maxAge: 60, maxCount: null, truncateBefore: 1 }, headers: { 'If-Match': '"0"' } });
    // The expectation is on the metadata's version, kept in the stream $$meta-1.
    versionConflict(await expect(409, s, 'PUT', T, '/streams/meta-1/metadata', { json: {}, headers: { 'If-Match': '"0"' } }), { stream: '$$meta-1', actual: 1 });
    versionConflict(await expect(409, s, 'PUT', T, '/streams/meta-1/metadata', { json: {}, headers: { 'If-None-Match': '*' } }), { stream: '$$meta-1', actual: 1 });
    const typo = await expect(400, s, 'PUT', T, '/streams/meta-1/metadata', { json: { maxcount: 1 } });
    assert.equal(typo.body.field, 'metadata');
    assert.match(typo.body.message, /maxcount/);
    const zero = await expect(400, s, 'PUT', T, '/streams/meta-1/metadata', { json: { maxCount: 0 } });
    assert.equal(zero.body.field, 'maxCount');
    await expect(400, s, 'PUT', T, '/streams/meta-1/metadata', { json: [] });
    await expect(400, s, 'GET', T, `/streams/${enc('$$meta-1')}/metadata`);
    await expect(400, s, 'PUT', T, `/streams/${enc('$$meta-1')}/metadata`, { json: {} });
    const after = await expect(200, s, 'GET', T, '/streams/meta-1/metadata');
    assert.deepEqual(after.body, { stream: 'meta-1', version: 1, metadata: { maxAge: 60, truncateBefore: 1 } });
  });

  test('DELETE /subjects/{subject}: crypto-shredding (issue 37)', async () => {
    const T = '/subjects/{subject}';
    await expect(201, s, 'POST', '/streams/{stream}', '/streams/person-1', { json: event('Registered', { data: { name: 'Ada' }, tags: ['subject:user-1'] }) });
    const before = await expect(200, s, 'GET', '/streams/{stream}', '/streams/person-1');
    assert.deepEqual(before.body.events[0].data, { name: 'Ada' });
    const raw = await expect(200, s, 'GET', '/streams/{stream}', '/streams/person-1?raw=1');
    assert.equal(raw.body.events[0].contentType, 'application/vnd.indelible.sealed');
    const shred = await expect(200, s, 'DELETE', T, '/subjects/user-1');
    assert.deepEqual(shred.body, { subject: 'user-1', keys: 1 });
    const after = await expect(200, s, 'GET', '/streams/{stream}', '/streams/person-1');
    assert.deepEqual(after.body.events[0].data, { $redacted: true });
    const again = await expect(200, s, 'DELETE', T, '/subjects/user-1');
    assert.equal(again.body.keys, 0);
    const long = await expect(400, s, 'DELETE', T, '/subjects/' + 'u'.repeat(121));
    assert.equal(long.body.field, 'subject');
  });

  test('POST /scavenge and DELETE /streams/{stream}?erase=true (issue 37)', async () => {
    const T = '/streams/{stream}';
    await expect(201, s, 'POST', T, '/streams/scav-1', { json: [1, 2, 3, 4, 5].map((n) => event('Counted', { data: n })) });
    await expect(200, s, 'PUT', '/streams/{stream}/metadata', '/streams/scav-1/metadata', { json: { maxCount: 2 } });
    const done = await expect(200, s, 'POST', '/scavenge', '/scavenge');
    assert.equal(done.body.streams, 1);
    assert.equal(done.body.events, 3);
    assert.ok(done.body.diskBytesAfter > 0);
    const again = await expect(200, s, 'POST', '/scavenge', '/scavenge', { json: {} });
    assert.equal(again.body.events, 0);
    const options = await expect(400, s, 'POST', '/scavenge', '/scavenge', { json: { maxCount: 1 } });
    assert.equal(options.body.field, 'body');

    const maybe = await expect(400, s, 'DELETE', T, '/streams/scav-1?erase=maybe');
    assert.equal(maybe.body.field, 'erase');
    versionConflict(await expect(409, s, 'DELETE', T, '/streams/scav-1?erase=true', { headers: { 'If-Match': '"0"' } }), { stream: 'scav-1', actual: 4 });
    await expect(400, s, 'DELETE', T, '/streams/scav-1?erase=true', { headers: { 'If-None-Match': '*' } });
    await expect(404, s, 'DELETE', T, '/streams/never-written?erase=true');
    const erased = await expect(200, s, 'DELETE', T, '/streams/scav-1?erase=true', { headers: { 'If-Match': '"4"' } });
    assert.equal(erased.res.headers.etag, '"5"');
    assert.deepEqual([erased.body.firstVersion, erased.body.lastVersion], [5, 5]);
    const gone = await expect(404, s, 'GET', T, '/streams/scav-1');
    assert.equal(gone.body.deleted, true);
    const left = await expect(200, s, 'GET', T, '/streams/scav-1?includeDeleted=true');
    assert.deepEqual(left.body.events.map((e) => [e.version, e.type, e.data]), [[5, '$deleted', { erased: true }]]);
  });

  test('GET /streams (issue 20)', async () => {
    const T = '/streams';
    const all = await expect(200, s, 'GET', T, '/streams');
    const names = all.body.streams.map((x) => x.stream);
    assert.deepEqual(names, [...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
    assert.ok(names.includes('order-1'));
    const page = await expect(200, s, 'GET', T, '/streams?prefix=order&limit=1');
    assert.equal(page.body.streams.length, 1);
    assert.equal(typeof page.body.next, 'string');
    const rest = await expect(200, s, 'GET', T, `/streams?prefix=order&after=${enc(page.body.next)}`);
    assert.ok(rest.body.streams.every((x) => x.stream > page.body.next));
    await expect(200, s, 'GET', T, '/streams?category=acct');
    assert.ok(all.body.streams.every((x) => !('last' in x)));
    const withLast = await expect(200, s, 'GET', T, '/streams?last=true');
    assert.ok(withLast.body.streams.some((x) => x.last !== null && typeof x.last.type === 'string'));
    await expect(200, s, 'GET', T, '/streams?last=false');
    for (const q of ['limit=0', 'limit=1001', 'category=a-b', 'category=a%2Fb', 'last=yes']) await expect(400, s, 'GET', T, `/streams?${q}`);
  });

  test('POST /commits (issue 20)', async () => {
    const T = '/commits';
    const commit = {
      appends: [
        { stream: 'bank-1', expected: 'no_stream', events: [event('Opened')], state: { data: { balance: 0 }, schema: 1 } },
        { stream: 'outbox-bank-1', events: [event('Notify')] },
      ],
    };
    const { body } = await expect(201, s, 'POST', T, '/commits', { json: commit });
    assert.deepEqual(body.appends.map((a) => a.stream), ['bank-1', 'outbox-bank-1']);
    const again = await expect(201, s, 'POST', T, '/commits', { json: commit });
    assert.equal(again.res.headers['idempotent-replay'], 'true');
    assert.ok(again.body.appends.every((a) => a.replayed === true));
    assert.deepEqual(again.body, { ...body, appends: body.appends.map((a) => ({ ...a, replayed: true })) });
    const unknown = await expect(400, s, 'POST', T, '/commits', { json: { appends: [{ stream: 'bank-3', expectd: 'any', events: [event()] }] } });
    assert.equal(unknown.body.field, 'appends[0].expectd');
    const badEvent = await expect(400, s, 'POST', T, '/commits', { json: { appends: [{ stream: 'bank-3' }, { stream: 'bank-4', events: [{ data: 1 }] }] } });
    assert.equal(badEvent.body.field, 'appends[1].events[0].type');
    const conflict = await expect(409, s, 'POST', T, '/commits', {
      json: { appends: [{ stream: 'outbox-bank-1', events: [event()] }, { stream: 'bank-1', expected: 7, events: [event()] }] },
    });
    versionConflict(conflict, { stream: 'bank-1', actual: 0, etag: false });
    const bad = await expect(400, s, 'POST', T, '/commits', { json: { appends: [{ stream: 'bank-1', expected: 'sometimes', events: [event()] }] } });
    assert.equal(bad.body.field, 'appends[0].expected');
    await expect(400, s, 'POST', T, '/commits', { json: { appends: [] } });
    await expect(413, s, 'POST', T, '/commits', { json: { appends: [{ stream: 'bank-2', events: [event('Big', { data: 'x'.repeat(20000) })] }] } });
    await expect(415, s, 'POST', T, '/commits', { body: JSON.stringify(commit), headers: { 'Content-Type': 'text/plain' } });
  });

  test('409 of each kind on POST /streams/{stream}, DELETE /streams/{stream}, POST /commits', async () => {
    const T = '/streams/{stream}';
    const C = '/commits';
    await expect(201, s, 'POST', T, '/streams/k409-a', { json: [event(), event()] });
    // version: If-Match, If-None-Match, If-Match: * on no stream, a state-only write, a delete.
    versionConflict(await expect(409, s, 'POST', T, '/streams/k409-a', { json: event(), headers: { 'If-Match': '"0"' } }), { stream: 'k409-a', actual: 1 });
    versionConflict(await expect(409, s, 'POST', T, '/streams/k409-a', { json: event(), headers: { 'If-None-Match': '*' } }), { stream: 'k409-a', actual: 1 });
    versionConflict(await expect(409, s, 'POST', T, '/streams/k409-none', { json: event(), headers: { 'If-Match': '*' } }), { stream: 'k409-none', actual: null });
    versionConflict(
      await expect(409, s, 'POST', T, '/streams/k409-a', { json: { events: [], state: { data: { n: 1 } } }, headers: { 'If-Match': '"0"' } }),
      { stream: 'k409-a', actual: 1 },
    );
    versionConflict(await expect(409, s, 'DELETE', T, '/streams/k409-a', { headers: { 'If-Match': '"0"' } }), { stream: 'k409-a', actual: 1 });
    // version on a deleted stream: deleted: true, the tombstone's version.
    await expect(201, s, 'POST', T, '/streams/k409-d', { json: event() });
    await expect(200, s, 'DELETE', T, '/streams/k409-d');
    for (const h of [{ 'If-Match': '"0"' }, { 'If-Match': '*' }]) {
      const gone = await expect(409, s, 'POST', T, '/streams/k409-d', { json: event(), headers: h });
      versionConflict(gone, { stream: 'k409-d', actual: 1 });
      assert.equal(gone.body.deleted, true);
    }

    // event_id on an append: an id already in another stream; an append that
    // mixes a written id with a new one; ids written by two earlier appends.
    const e1 = event();
    const e2 = event();
    await expect(201, s, 'POST', T, '/streams/k409-b', { json: e1 });
    eventIdConflict(await expect(409, s, 'POST', T, '/streams/k409-c', { json: e1 }), { stream: 'k409-c', id: e1.id });
    const fresh = event();
    eventIdConflict(await expect(409, s, 'POST', T, '/streams/k409-b', { json: [e1, fresh] }), { stream: 'k409-b', id: fresh.id });
    await expect(201, s, 'POST', T, '/streams/k409-b', { json: e2 });
    eventIdConflict(await expect(409, s, 'POST', T, '/streams/k409-b', { json: [e1, e2] }), { stream: 'k409-b', id: e2.id });
    eventIdConflict(
      await expect(409, s, 'POST', T, '/streams/k409-c', { json: { events: [e2], state: { data: 1 } } }),
      { stream: 'k409-c', id: e2.id },
    );

    // POST /commits: version (no ETag: a commit names several streams) and
    // both event id cases: an id already in another stream (or an append
    // mixing written and new ids), and a commit that mixes an append already
    // written with a new one.
    versionConflict(
      await expect(409, s, 'POST', C, '/commits', { json: { appends: [{ stream: 'k409-a', expected: 0, events: [event()] }] } }),
      { stream: 'k409-a', actual: 1, etag: false },
    );
    versionConflict(
      await expect(409, s, 'POST', C, '/commits', { json: { appends: [{ stream: 'k409-x', events: [event()] }, { stream: 'k409-d', expected: 'exists', events: [event()] }] } }),
      { stream: 'k409-d', actual: 1, etag: false },
    );
    eventIdConflict(
      await expect(409, s, 'POST', C, '/commits', { json: { appends: [{ stream: 'k409-x', events: [event()] }, { stream: 'k409-e', events: [e1] }] } }),
      { stream: 'k409-e', id: e1.id },
    );
    const newer = event();
    eventIdConflict(
      await expect(409, s, 'POST', C, '/commits', { json: { appends: [{ stream: 'k409-b', events: [e1, newer] }] } }),
      { stream: 'k409-b', id: newer.id },
    );
    const first = { stream: 'k409-f', events: [event(), event()] };
    await expect(201, s, 'POST', C, '/commits', { json: { appends: [first] } });
    eventIdConflict(
      await expect(409, s, 'POST', C, '/commits', { json: { appends: [{ stream: 'k409-g', events: [event()] }, first] } }),
      { stream: 'k409-f', id: first.events[0].id },
    );
    // Nothing of a refused commit was written.
    await expect(404, s, 'GET', T, '/streams/k409-g');
    await expect(404, s, 'GET', T, '/streams/k409-x');
  });

  test('GET /all: pages, filters, long poll, 400', async () => {
    const T = '/all';
    const { body } = await expect(200, s, 'GET', T, '/all');
    assert.ok(body.events.length >= 5);
    const page = await expect(200, s, 'GET', T, '/all?from=2&limit=2');
    assert.deepEqual(page.body.events.map((e) => e.position), [2, 3]);
    assert.equal(page.body.next, 4);
    const filtered = await expect(200, s, 'GET', T, '/all?category=order&type=Other.Thing,Thing.Happened&prefix=order-');
    assert.ok(filtered.body.events.length >= 1);
    assert.ok(filtered.body.events.every((e) => e.stream.startsWith('order-')));
    const waited = await expect(200, s, 'GET', T, `/all?from=${body.next + 1000}&waitMs=50`);
    assert.deepEqual(waited.body.events, []);
    for (const q of ['limit=0', 'limit=10001', 'from=-1', 'waitMs=60001', 'waitMs=x']) await expect(400, s, 'GET', T, `/all?${q}`);
  });

  test('tags, GET and POST /query, conditional and stream-less commits (docs/DCB.md)', async () => {
    const T = '/query';
    const C = '/commits';
    const tag = `course:${randomUUID()}`;
    const written = await expect(201, s, 'POST', '/streams/{stream}', '/streams/course-q1', { json: event('Course.Defined', { tags: [tag, 'b:1', tag] }) });
    const mine = { items: [{ tags: [tag] }] };
    const q = `/query?q=${enc(JSON.stringify(mine))}`;
    const got = await expect(200, s, 'GET', T, q);
    assert.deepEqual(got.body.events.map((e) => e.tags), [['b:1', tag].sort()]);
    assert.equal(got.body.next, written.body.position + 1);
    // Stream-less (to $dcb) and conditional: the condition holds at the last position read.
    const ok = await expect(201, s, 'POST', C, '/commits', {
      json: { appends: [{ events: [event('Seat.Taken', { tags: [tag] })] }], condition: { failIfEventsMatch: mine, after: written.body.position } },
    });
    assert.equal(ok.body.appends[0].stream, '$dcb');
    const refused = await expect(409, s, 'POST', C, '/commits', {
      json: { appends: [{ stream: 'course-q2', events: [event()] }], condition: { failIfEventsMatch: mine, after: written.body.position } },
    });
    assert.equal(refused.body.reason, 'condition');
    assert.equal(refused.body.position, ok.body.position);
    await expect(404, s, 'GET', '/streams/{stream}', '/streams/course-q2');
    // Backward, paged by next; POST the same.
    const back = await expect(200, s, 'GET', T, `${q}&direction=backward&limit=1`);
    assert.deepEqual(back.body.events.map((e) => e.stream), ['$dcb']);
    const rest = await expect(200, s, 'GET', T, `${q}&direction=backward&limit=1&from=${back.body.next}`);
    assert.deepEqual(rest.body.events.map((e) => e.stream), ['course-q1']);
    const posted = await expect(200, s, 'POST', T, '/query', { json: { query: mine, from: 1, limit: 10, direction: 'forward', raw: false } });
    assert.equal(posted.body.events.length, 2);
    await expect(200, s, 'GET', T, '/query?limit=2&raw=1');
    for (const bad of ['q=%7B', `q=${enc('{"items":[{}]}')}`, 'limit=1001', 'direction=up', 'from=-1', 'raw=2'])
      await expect(400, s, 'GET', T, `/query?${bad}`);
    for (const bad of [{ query: { items: [{ tags: [''] }] } }, { limit: 0 }, { from: 'x' }, { query: [] }, { other: 1 }])
      await expect(400, s, 'POST', T, '/query', { json: bad });
    const badTag = await expect(400, s, 'POST', '/streams/{stream}', '/streams/course-q3', { json: event('X', { tags: ['a\u0001'] }) });
    assert.match(badTag.body.field, /tags/);
    const badAfter = await expect(400, s, 'POST', C, '/commits', { json: { appends: [{ stream: 'course-q3', events: [event()] }], condition: { failIfEventsMatch: {}, after: 'x' } } });
    assert.equal(badAfter.body.field, 'condition.after');
    await expect(415, s, 'POST', T, '/query', { body: '{}', headers: { 'Content-Type': 'text/plain' } });
  });

  test('GET /subscribe/query (SSE)', async () => {
    const T = '/subscribe/query';
    const tag = `sub:${randomUUID()}`;
    await expect(201, s, 'POST', '/streams/{stream}', '/streams/subq-1', { json: [event('A', { tags: [tag] }), event('B'), event('C', { tags: [tag] })] });
    const sub = await subscribe(s, `/subscribe/query?q=${enc(JSON.stringify({ items: [{ tags: [tag] }] }))}`, { count: 2 });
    assert.equal(sub.status, 200);
    const events = checkSse(T, sub);
    assert.deepEqual(events.map((e) => e.type), ['A', 'C']);
    const all = await subscribe(s, '/subscribe/query?from=1', { count: 1 });
    checkSse(T, all);
    await expect(400, s, 'GET', T, `/subscribe/query?q=${enc('{"items":[{}]}')}`);
    await expect(400, s, 'GET', T, '/subscribe/query?from=-5');
  });

  test('GET /subscribe/all (SSE)', async () => {
    const T = '/subscribe/all';
    const sub = await subscribe(s, '/subscribe/all?from=1', { count: 3 });
    assert.equal(sub.status, 200);
    const events = checkSse(T, sub);
    assert.deepEqual(events.slice(0, 3).map((e) => e.position), [1, 2, 3]);
    const resumed = await subscribe(s, '/subscribe/all?category=order', { headers: { 'Last-Event-ID': '2' }, count: 1 });
    const after2 = checkSse(T, resumed);
    assert.ok(after2[0].position > 2);
    // from=end: nothing stored is sent; a commit comes live.
    // (Appends until one arrives: the subscription finds "end" on its first read, whenever that runs.)
    let done = false;
    const live = subscribe(s, '/subscribe/all?from=end', { count: 1, ms: 10000 }).finally(() => (done = true));
    for (let i = 0; i < 40 && !done; i++) {
      await expect(201, s, 'POST', '/streams/{stream}', '/streams/live-1', { json: event('Live') });
      await Promise.race([live, new Promise((r) => setTimeout(r, 250))]);
    }
    const liveEvents = checkSse(T, await live);
    assert.equal(liveEvents[0]?.stream, 'live-1');
    for (const h of [{ 'Last-Event-ID': 'abc' }, { 'Last-Event-ID': '-1' }])
      await expect(400, s, 'GET', T, '/subscribe/all', { headers: h });
    await expect(400, s, 'GET', T, '/subscribe/all?from=-5');
  });

  test('GET /subscribe/streams/{stream} (SSE)', async () => {
    const T = '/subscribe/streams/{stream}';
    const sub = await subscribe(s, '/subscribe/streams/order-1?from=1', { count: 2 });
    const events = checkSse(T, sub, { stream: 'order-1' });
    assert.deepEqual(events.slice(0, 2).map((e) => e.version), [1, 2]);
    const enc2 = await subscribe(s, `/subscribe/streams/${enc('order/2')}`, { count: 1 });
    checkSse(T, enc2, { stream: 'order/2' });
    await expect(400, s, 'GET', T, '/subscribe/streams/order-1?from=x');
    await expect(400, s, 'GET', T, '/subscribe/streams/order-1', { headers: { 'Last-Event-ID': 'x' } });
    await expect(400, s, 'GET', T, `/subscribe/streams/${enc('bad\u0001name')}`);
  });

  test('GET /health, GET /metrics', async () => {
    const h = await expect(200, s, 'GET', '/health', '/health');
    assert.equal(h.body.status, 'ok');
    const m = await expect(200, s, 'GET', '/metrics', '/metrics');
    assert.match(m.body, /^# (HELP|TYPE) /m);
  });

  test('GET /openapi.json (issue 20) serves docs/openapi.json', async () => {
    const o = await expect(200, s, 'GET', '/openapi.json', '/openapi.json');
    assert.deepEqual(o.body, doc, 'GET /openapi.json serves docs/openapi.json');
  });

  test('consumer groups: create, describe, list, pull, ack, nack, delete, errors', async () => {
    const G = '/consumers/{group}';
    const created = await expect(201, s, 'PUT', G, '/consumers/g1?category=order&maxAttempts=3&initialBackoffMs=0&leaseMs=60000');
    assert.equal(created.body.group, 'g1');
    await expect(200, s, 'PUT', G, '/consumers/g1?category=order&maxAttempts=3&initialBackoffMs=0&leaseMs=60000');
    otherConflict(await expect(409, s, 'PUT', G, '/consumers/g1?category=other'));
    for (const q of ['maxAttempts=0', 'leaseMs=0', 'start=-1', 'policy=drop', 'maxBackoffMs=86400001'])
      await expect(400, s, 'PUT', G, `/consumers/gx?${q}`);
    await expect(400, s, 'PUT', G, `/consumers/${enc('bad name')}`);
    // Not a group name, on every group route.
    for (const [method, template, json] of [
      ['GET', G],
      ['DELETE', G],
      ['POST', '/consumers/{group}/pull'],
      ['POST', '/consumers/{group}/ack', { positions: [1] }],
      ['POST', '/consumers/{group}/nack', { position: 1 }],
      ['POST', '/consumers/{group}/retry'],
      ['POST', '/consumers/{group}/skip'],
      ['POST', '/consumers/{group}/replay'],
      ['GET', '/consumers/{group}/parked'],
      ['POST', '/consumers/{group}/parked/{version}/retry'],
      ['POST', '/consumers/{group}/parked/{version}/skip'],
    ]) {
      const target = template.replace('{group}', enc('bad name')).replace('{version}', '0') + (template.endsWith('/pull') ? '?consumer=w' : '');
      const r = await expect(400, s, method, template, target, { json });
      assert.equal(r.body.field, 'group');
    }

    const list = await expect(200, s, 'GET', '/consumers', '/consumers');
    assert.ok(list.body.consumers.some((c) => c.group === 'g1'));
    const d = await expect(200, s, 'GET', G, '/consumers/g1');
    assert.equal(d.body.waiting, 0);
    const w = await expect(200, s, 'GET', G, '/consumers/g1?waitFor=1000000&timeout=50');
    assert.equal(w.body.reached, false);
    for (const q of ['waitFor=-1', 'timeout=60001']) await expect(400, s, 'GET', G, `/consumers/g1?${q}`);
    await expect(404, s, 'GET', G, '/consumers/nope');

    const P = '/consumers/{group}/pull';
    const pulled = await expect(200, s, 'POST', P, '/consumers/g1/pull?consumer=w1&max=2&ordered=true');
    assert.equal(pulled.body.deliveries.length, 2);
    const [first, second] = pulled.body.deliveries.map((x) => x.event.position);
    await expect(400, s, 'POST', P, '/consumers/g1/pull');
    for (const q of ['max=0', 'waitMs=60001', 'ordered=maybe']) await expect(400, s, 'POST', P, `/consumers/g1/pull?consumer=w1&${q}`);
    await expect(404, s, 'POST', P, '/consumers/nope/pull?consumer=w1');

    const A = '/consumers/{group}/ack';
    const acked = await expect(200, s, 'POST', A, '/consumers/g1/ack', { json: { positions: [first] } });
    assert.ok(acked.body.checkpoint >= first);
    await expect(400, s, 'POST', A, '/consumers/g1/ack', { json: { positions: [] } });
    await expect(400, s, 'POST', A, '/consumers/g1/ack', { json: { positions: [0] } });
    await expect(400, s, 'POST', A, '/consumers/g1/ack', { json: [1] });
    await expect(415, s, 'POST', A, '/consumers/g1/ack', { body: '{"positions":[1]}', headers: { 'Content-Type': 'text/plain' } });
    await expect(404, s, 'POST', A, '/consumers/nope/ack', { json: { positions: [1] } });

    const N = '/consumers/{group}/nack';
    await expect(200, s, 'POST', N, '/consumers/g1/nack', { json: { position: second, reason: 'test' } });
    await expect(400, s, 'POST', N, '/consumers/g1/nack', { json: { position: second } }); // no longer in flight
    await expect(400, s, 'POST', N, '/consumers/g1/nack', { json: {} });
    await expect(400, s, 'POST', N, '/consumers/g1/nack', { json: { position: second, reason: 5 } });
    await expect(404, s, 'POST', N, '/consumers/nope/nack', { json: { position: 1 } });

    const del = await expect(200, s, 'DELETE', G, '/consumers/g1');
    assert.equal(del.body.deleted, 'g1');
    await expect(404, s, 'DELETE', G, '/consumers/g1');
  });

  test('consumer groups: blocked (retry, skip), parked (replay), the group cap', async () => {
    const G = '/consumers/{group}';
    await expect(201, s, 'PUT', G, '/consumers/gb?prefix=order-1&maxAttempts=1&initialBackoffMs=0');
    const pull = async (g) => (await expect(200, s, 'POST', '/consumers/{group}/pull', `/consumers/${g}/pull?consumer=w&max=1&waitMs=2000`)).body.deliveries;
    let [d] = await pull('gb');
    await expect(400, s, 'POST', '/consumers/{group}/retry', '/consumers/gb/retry'); // not blocked
    await expect(400, s, 'POST', '/consumers/{group}/skip', '/consumers/gb/skip');
    await expect(200, s, 'POST', '/consumers/{group}/nack', '/consumers/gb/nack', { json: { position: d.event.position } });
    const blocked = await expect(200, s, 'GET', G, '/consumers/gb');
    assert.equal(blocked.body.blocked?.position, d.event.position);
    await expect(200, s, 'POST', '/consumers/{group}/retry', '/consumers/gb/retry');
    [d] = await pull('gb');
    await expect(200, s, 'POST', '/consumers/{group}/nack', '/consumers/gb/nack', { json: { position: d.event.position } });
    const skipped = await expect(200, s, 'POST', '/consumers/{group}/skip', '/consumers/gb/skip');
    assert.equal(skipped.body.blocked, null);
    for (const v of ['retry', 'skip', 'replay']) await expect(404, s, 'POST', `/consumers/{group}/${v}`, `/consumers/nope/${v}`);

    await expect(201, s, 'PUT', G, '/consumers/gp?prefix=order-1&maxAttempts=1&initialBackoffMs=0&policy=park');
    [d] = await pull('gp');
    await expect(200, s, 'POST', '/consumers/{group}/nack', '/consumers/gp/nack', { json: { position: d.event.position, reason: 'park it' } });
    let status;
    for (let i = 0; i < 100; i++) {
      status = (await expect(200, s, 'GET', G, '/consumers/gp')).body;
      if (status.parked.events > 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(status.parked.events, 1);
    const parked = await expect(200, s, 'GET', '/streams/{stream}', `/streams/${enc('$parked-gp')}`);
    assert.equal(parked.body.events[0].metadata.$parked.group, 'gp');
    const replaying = await expect(200, s, 'POST', '/consumers/{group}/replay', '/consumers/gp/replay');
    assert.equal(replaying.body.parked.replaying, true);
    const again = await pull('gp');
    assert.equal(again[0].parkedVersion, 0);
    assert.equal(again[0].event.position, d.event.position);

    // Parked events one by one: the list, retry and skip by parked version
    // (a group and a stream of their own, so that nothing else is parked).
    const L = '/consumers/{group}/parked';
    const R = '/consumers/{group}/parked/{version}/retry';
    const K = '/consumers/{group}/parked/{version}/skip';
    await expect(201, s, 'PUT', G, '/consumers/gq?prefix=parkq-&maxAttempts=1&initialBackoffMs=0&policy=park');
    const parkOne = async () => {
      await expect(201, s, 'POST', '/streams/{stream}', '/streams/parkq-1', { json: event() });
      const [p] = await pull('gq');
      await expect(200, s, 'POST', '/consumers/{group}/nack', '/consumers/gq/nack', { json: { position: p.event.position, reason: 'park it' } });
      for (let i = 0; i < 100; i++) {
        const page = (await expect(200, s, 'GET', L, '/consumers/gq/parked')).body;
        const pending = page.events.find((x) => x.state === 'pending');
        if (pending) return pending;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.fail('nothing parked');
    };
    const one = await parkOne();
    const listed = await expect(200, s, 'GET', L, '/consumers/gq/parked?from=0&limit=10');
    assert.equal(listed.body.events.length, 1);
    assert.equal(listed.body.events[0].parkedVersion, one.parkedVersion);
    assert.equal(listed.body.events[0].event.metadata.$parked.reason.includes('park it'), true);
    assert.equal(listed.body.nextVersion, null);
    const retried = await expect(200, s, 'POST', R, `/consumers/gq/parked/${one.parkedVersion}/retry`);
    assert.equal(retried.body.parked.events, 1);
    const [redelivered] = await pull('gq');
    assert.equal(redelivered.parkedVersion, one.parkedVersion);
    const inFlight = await expect(409, s, 'POST', K, `/consumers/gq/parked/${one.parkedVersion}/skip`);
    assert.match(inFlight.body.message, /being delivered/);
    await expect(200, s, 'POST', '/consumers/{group}/ack', '/consumers/gq/ack', { json: { positions: [redelivered.event.position] } });
    await expect(409, s, 'POST', R, `/consumers/gq/parked/${one.parkedVersion}/retry`); // resolved
    const two = await parkOne();
    const skippedOne = await expect(200, s, 'POST', K, `/consumers/gq/parked/${two.parkedVersion}/skip`);
    assert.equal(skippedOne.body.parked.events, 0);
    await expect(409, s, 'POST', K, `/consumers/gq/parked/${two.parkedVersion}/skip`);
    await expect(404, s, 'POST', R, '/consumers/gq/parked/99/retry');
    await expect(404, s, 'POST', K, '/consumers/gq/parked/99/skip');
    await expect(404, s, 'POST', K, '/consumers/nope/parked/0/skip');
    await expect(404, s, 'GET', L, '/consumers/nope/parked');
    await expect(400, s, 'POST', K, '/consumers/gq/parked/x/skip');
    await expect(400, s, 'POST', R, '/consumers/gb/parked/0/retry'); // gb blocks: nothing is parked
    for (const q of ['limit=0', 'from=-1']) await expect(400, s, 'GET', L, `/consumers/gq/parked?${q}`);
    await expect(200, s, 'DELETE', G, '/consumers/gq');

    // The cap (--max-consumer-groups 6): gb, gp and four more.
    const made = [];
    let capped;
    for (let i = 0; i < 6 && !capped; i++) {
      const { res, body } = await call(s, 'PUT', G, `/consumers/cap${i}`);
      if (res.status === 409) capped = body;
      else made.push(`cap${i}`);
    }
    assert.equal(capped?.error, 'too_large');
    for (const g of [...made, 'gb', 'gp']) await expect(200, s, 'DELETE', G, `/consumers/${g}`);
  });

  test('keys without --auth: listed, not made or revoked (403); whoami', async () => {
    const list = await expect(200, s, 'GET', '/keys', '/keys');
    assert.deepEqual(list.body.keys, []);
    await expect(403, s, 'POST', '/keys', '/keys', { json: { name: 'k', roles: ['reader'] } });
    await expect(403, s, 'DELETE', '/keys/{key}', '/keys/k');
    const who = await expect(200, s, 'GET', '/auth/whoami', '/auth/whoami');
    assert.deepEqual(who.body, { authentication: false });
  });

  // What http_session.cc and request_screen.cc answer before routing, on
  // every operation of the document: each answer validated as that
  // operation's (the document promises these statuses on all of them).
  test('the front door on every operation: 400, 403, 413, 415, 431', async () => {
    const raw = (method, target, lines = []) => `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${lines.map((l) => `${l}\r\n`).join('')}\r\n`;
    await each([...operations()], async ([key]) => {
      const [method, template] = key.split(' ');
      const target = sample(template);
      // Not a valid path and query (a bad percent-encoding).
      const badTarget = await rawRequest(s, raw(method, `${target}?q=%zz`));
      assert.equal(badTarget.status, 400, `bad target: ${badTarget.status} ${badTarget.body}`);
      assert.equal(check(method, template, badTarget).field, 'target');
      // Not HTTP: a header line without a colon.
      const malformed = await rawRequest(s, raw(method, target, ['Not a header']));
      assert.equal(malformed.status, 400, `malformed: ${malformed.status} ${malformed.body}`);
      assert.equal(check(method, template, malformed).field, 'request');
      const host = await expect(403, s, method, template, target, { headers: { Host: 'attacker.example' } });
      assert.equal(host.body.error, 'unauthorized');
      // A Content-Length over twice --max-append-bytes: refused on the headers.
      const tooBig = await rawRequest(s, raw(method, target, ['Content-Type: application/json', 'Content-Length: 1000000']));
      assert.equal(tooBig.status, 413, `too big: ${tooBig.status} ${tooBig.body}`);
      assert.equal(check(method, template, tooBig).field, 'body');
      const notJson = await expect(415, s, method, template, target, { body: 'x', headers: { 'Content-Type': 'text/plain' } });
      assert.equal(notJson.body.field, 'Content-Type');
      const huge = await rawRequest(s, raw(method, target, [`X-Big: ${'a'.repeat(70 * 1024)}`]));
      assert.equal(huge.status, 431, `huge headers: ${huge.status} ${huge.body}`);
      assert.equal(check(method, template, huge).field, 'headers');
    });
    // A chunked body that grows past the limit: refused while it is read.
    const chunk = 'x'.repeat(200000);
    const chunked = await rawRequest(
      s,
      `POST /streams/order-1 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`,
    );
    assert.equal(chunked.status, 413);
    check('POST', '/streams/{stream}', chunked);
    // A chunked body that is not chunked: malformed.
    const badChunks = await rawRequest(s, `POST /streams/order-1 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`);
    assert.equal(badChunks.status, 400);
    assert.equal(check('POST', '/streams/{stream}', badChunks).field, 'request');
  });

  test('before any route: Host and Origin (403), 431, unknown route (404), 405', async () => {
    const host = await expect(403, s, 'GET', '/health', '/health', { headers: { Host: 'attacker.example' } });
    assert.equal(host.body.error, 'unauthorized');
    await expect(200, s, 'GET', '/health', '/health', { headers: { Host: 'localhost:1' } });
    await expect(403, s, 'POST', '/streams/{stream}', '/streams/order-1', { json: event(), headers: { Origin: 'http://evil.example' } });
    await expect(201, s, 'POST', '/streams/{stream}', '/streams/order-1', { json: event(), headers: { Origin: ALLOWED_ORIGIN } });
    const same = `http://127.0.0.1:${s.port}`;
    await expect(201, s, 'POST', '/streams/{stream}', '/streams/order-1', { json: event(), headers: { Origin: same } });
    const cors = await expect(200, s, 'GET', '/streams/{stream}', '/streams/order-1', { headers: { Origin: ALLOWED_ORIGIN } });
    assert.equal(cors.res.headers['access-control-allow-origin'], ALLOWED_ORIGIN);

    const huge = await rawRequest(s, `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(70 * 1024)}\r\n\r\n`);
    assert.equal(huge.status, 431);
    check('GET', '/health', huge);

    checkComponent('UnknownRoute', 404, await request(s, 'GET', '/no/such/route'));
    checkComponent('UnknownRoute', 404, await request(s, 'GET', '/streams/a/b/c'));
    const m405 = checkComponent('MethodNotAllowed', 405, await request(s, 'PATCH', '/streams/order-1'));
    assert.equal(m405.field, 'method');
    // Every path: a method it does not describe is 405 with Allow = the described ones.
    await each(Object.entries(doc.paths), async ([template, item]) => {
      const target = sample(template);
      const res = await request(s, 'PATCH', target);
      checkComponent('MethodNotAllowed', 405, res);
      const described = Object.keys(item).filter((k) => ['get', 'put', 'post', 'delete'].includes(k)).map((k) => k.toUpperCase());
      if (described.includes('GET')) described.push('HEAD'); // HEAD is GET without the body (info.description)
      assert.deepEqual(res.headers.allow.split(', ').sort(), described.sort(), `Allow of ${template}`);
    });
  });

  test('GET /events/{id}: found, unknown, not an id', async () => {
    const T = '/events/{id}';
    const e = event('Order.Placed');
    await expect(201, s, 'POST', '/streams/{stream}', '/streams/byid-1', { json: e });
    const found = await expect(200, s, 'GET', T, `/events/${e.id}`);
    assert.equal(found.body.stream, 'byid-1');
    assert.equal(found.body.id, e.id);
    await expect(404, s, 'GET', T, `/events/${randomUUID()}`);
    await expect(400, s, 'GET', T, '/events/not-an-id');
  });

  test('GET /, /console and /console/{file}: the web console', async () => {
    for (const [template, target] of [['/', '/'], ['/console', '/console']]) {
      const { res } = await expect(302, s, 'GET', template, target);
      // Relative, so that a proxy's path prefix stays: /console/ from either.
      assert.equal(new URL(res.headers.location, `http://h${target}`).pathname, '/console/');
    }
    const T = '/console/{file}';
    const page = await expect(200, s, 'GET', T, '/console/');
    assert.match(page.res.headers['content-type'], /^text\/html/);
    const plain = await expect(200, s, 'GET', T, '/console/app.js');
    const gzipped = await expect(200, s, 'GET', T, '/console/app.js', { headers: { 'Accept-Encoding': 'gzip' } });
    assert.equal(gzipped.res.headers['content-encoding'], 'gzip');
    assert.notEqual(gzipped.res.headers.etag, plain.res.headers.etag);
    const css = await expect(200, s, 'GET', T, '/console/app.css');
    await expect(304, s, 'GET', T, '/console/app.css', { headers: { 'If-None-Match': css.res.headers.etag } });
    await expect(404, s, 'GET', T, '/console/nothing.js');
  });

  test('schemas: register, show, check, validate, settings, upcasters; raw reads (issue 35)', async () => {
    const V1 = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] };
    const V2 = { type: 'object', properties: { amount: { type: 'number' }, currency: { type: 'string' } }, required: ['amount', 'currency'] };
    const T = '/schemas/{type}/versions';
    const versions = '/schemas/Invoice.Sent/versions';
    const made = await expect(201, s, 'POST', T, versions, { json: { version: 'V1', schema: V1 } });
    assert.equal(made.body.number, 1);
    assert.deepEqual(made.body.schema, V1);
    await expect(200, s, 'POST', T, versions, { json: { version: 'V1', schema: V1 } });
    otherConflict(await expect(409, s, 'POST', T, versions, { json: { version: 'V1', schema: { type: 'object' } } }));
    await expect(422, s, 'POST', T, versions, { json: { version: 'V2', schema: V2 } });
    await expect(400, s, 'POST', T, versions, { json: { schema: V1 } });
    const list = await expect(200, s, 'GET', '/schemas', '/schemas');
    assert.ok(list.body.types.some((t) => t.type === 'Invoice.Sent'));
    await expect(200, s, 'GET', '/schemas/{type}', '/schemas/Invoice.Sent');
    await expect(404, s, 'GET', '/schemas/{type}', '/schemas/Nothing.Here');
    await expect(200, s, 'GET', '/schemas/{type}/versions/{version}', '/schemas/Invoice.Sent/versions/V1');
    await expect(404, s, 'GET', '/schemas/{type}/versions/{version}', '/schemas/Invoice.Sent/versions/V9');
    const C = '/schemas/{type}/check';
    assert.equal((await expect(200, s, 'POST', C, '/schemas/Invoice.Sent/check', { json: { schema: V1 } })).body.compatible, true);
    const no = await expect(200, s, 'POST', C, '/schemas/Invoice.Sent/check', { json: { schema: V2 } });
    assert.equal(no.body.compatible, false);
    await expect(400, s, 'POST', C, '/schemas/Invoice.Sent/check', { json: {} });
    const V = '/schemas/{type}/validate';
    assert.equal((await expect(200, s, 'POST', V, '/schemas/Invoice.Sent/validate', { json: { data: { total: 1 } } })).body.valid, true);
    const bad = await expect(200, s, 'POST', V, '/schemas/Invoice.Sent/validate', { json: { version: 'V1', data: { total: 'x' } } });
    assert.equal(bad.body.pointer, '/total');
    await expect(404, s, 'POST', V, '/schemas/Nothing.Here/validate', { json: { data: {} } });
    await expect(404, s, 'POST', V, '/schemas/Invoice.Sent/validate', { json: { version: 'V9', data: {} } });
    const S = '/schemas/{type}/settings';
    assert.deepEqual((await expect(200, s, 'PUT', S, '/schemas/Invoice.Sent/settings', { json: { compatibility: 'none' } })).body, { compatibility: 'none' });
    await expect(400, s, 'PUT', S, '/schemas/Invoice.Sent/settings', { json: { mode: 'loud' } });
    await expect(201, s, 'POST', T, versions, { json: { version: 'V2', schema: V2 } });
    const U = '/schemas/{type}/upcasters';
    const up = await expect(201, s, 'POST', U, '/schemas/Invoice.Sent/upcasters', { json: { from: 'V1', to: 'V2', renames: { '/total': '/amount' }, defaults: { '/currency': 'EUR' } } });
    assert.deepEqual(up.body.patch, []);
    otherConflict(await expect(409, s, 'POST', U, '/schemas/Invoice.Sent/upcasters', { json: { from: 'V1', to: 'V2', defaults: { '/currency': 'USD' } } }));
    await expect(400, s, 'POST', U, '/schemas/Invoice.Sent/upcasters', { json: { from: 'V2', to: 'V1' } });
    const CS = '/schema-settings/categories/{category}';
    assert.deepEqual((await expect(200, s, 'PUT', CS, '/schema-settings/categories/invoice', { json: { mode: 'warn' } })).body, { mode: 'warn' });
    await expect(400, s, 'PUT', CS, '/schema-settings/categories/invoice', { json: { strict: true } });
    await expect(200, s, 'PUT', '/schema-settings/default', '/schema-settings/default', { json: { compatibility: 'backward' } });
    const settings = await expect(200, s, 'GET', '/schema-settings', '/schema-settings');
    assert.deepEqual(settings.body.categories.invoice, { mode: 'warn' });

    // An event written as V1 reads as V2, and with raw=1 as stored.
    await expect(201, s, 'POST', '/streams/{stream}', '/streams/invoice-1', { json: { type: 'Invoice.Sent', schema: 'V1', data: { total: 5 } } });
    const upcast = { schema: 'V2', data: { amount: 5, currency: 'EUR' } };
    const stored = { schema: 'V1', data: { total: 5 } };
    const pick = (e) => ({ schema: e.schema, data: e.data });
    const R = '/streams/{stream}';
    assert.deepEqual(pick((await expect(200, s, 'GET', R, '/streams/invoice-1')).body.events[0]), upcast);
    assert.deepEqual(pick((await expect(200, s, 'GET', R, '/streams/invoice-1?raw=1')).body.events[0]), stored);
    assert.deepEqual(pick((await expect(200, s, 'GET', '/all', '/all?type=Invoice.Sent&raw=true')).body.events[0]), stored);
    assert.deepEqual(pick((await expect(200, s, 'GET', '/all', '/all?type=Invoice.Sent')).body.events[0]), upcast);
    const subStream = await subscribe(s, '/subscribe/streams/invoice-1?raw=1', { count: 1 });
    assert.deepEqual(pick(checkSse('/subscribe/streams/{stream}', subStream, { stream: 'invoice-1' })[0]), stored);
    const subAll = await subscribe(s, '/subscribe/all?type=Invoice.Sent', { count: 1 });
    assert.deepEqual(pick(checkSse('/subscribe/all', subAll)[0]), upcast);
    for (const [template, target] of [[R, '/streams/invoice-1'], ['/all', '/all'], ['/subscribe/all', '/subscribe/all'], ['/subscribe/streams/{stream}', '/subscribe/streams/invoice-1']]) {
      const refused = await expect(400, s, 'GET', template, `${target}?raw=yes`);
      assert.equal(refused.body.field, 'raw');
    }
  });

  test('CORS preflight (OPTIONS) on every path', async () => {
    await each(Object.entries(doc.paths), async ([template, item]) => {
      assert.ok(item.options, 'no OPTIONS operation');
      const target = sample(template);
      const pre = await expect(204, s, 'OPTIONS', template, target, {
        headers: { Origin: ALLOWED_ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
      });
      assert.equal(pre.res.headers['access-control-allow-origin'], ALLOWED_ORIGIN);
      assert.ok(pre.res.headers['access-control-allow-methods']);
      await expect(403, s, 'OPTIONS', template, target, { headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST' } });
      await expect(405, s, 'OPTIONS', template, target);
    });
  });
});

describe('with --auth', () => {
  let s;
  let reader;
  const bearer = (key) => ({ Authorization: `Bearer ${key}` });
  before(async () => {
    s = await startServer(LIMITS, { auth: true });
  });
  after(async () => {
    await s?.stop();
  });

  test('every operation but the open ones answers 401 without credentials', async () => {
    const guarded = [...operations()].filter(([, op]) => !(Array.isArray(op.security) && op.security.length === 0));
    await each(guarded, async ([key, op]) => {
      const [method, template] = key.split(' ');
      const target = sample(template);
      const opts = op.requestBody ? { json: template === '/commits' ? { appends: [] } : { type: 'T', positions: [1], position: 1, name: 'n', roles: ['reader'] } } : {};
      const { res } = await call(s, method, template, target, opts);
      assert.equal(res.status, 401, `${key} without credentials: ${res.status} ${res.body}`);
      assert.equal(res.headers['www-authenticate'], 'Bearer realm="indelible"');
    });
    await expect(401, s, 'GET', '/streams/{stream}', '/streams/order-1', { headers: bearer('idl_0000000000000000_' + 'a'.repeat(43)) });
    await expect(401, s, 'GET', '/streams/{stream}', '/streams/order-1', { headers: { Authorization: 'Basic dTpw' } });
    await expect(200, s, 'GET', '/health', '/health');
    await expect(200, s, 'GET', '/openapi.json', '/openapi.json');
  });

  test('keys: create, list, whoami, 403 for a reader, revoke', async () => {
    const admin = bearer(s.adminKey);
    const who = await expect(200, s, 'GET', '/auth/whoami', '/auth/whoami', { headers: admin });
    assert.equal(who.body.principal, 'key:bootstrap');
    const made = await expect(201, s, 'POST', '/keys', '/keys', { headers: admin, json: { name: 'reader-1', roles: ['reader'], expiresInSeconds: 3600 } });
    assert.equal(made.res.headers['cache-control'], 'no-store');
    reader = made.body;
    otherConflict(await expect(409, s, 'POST', '/keys', '/keys', { headers: admin, json: { name: 'reader-1', roles: ['reader'] } }));
    for (const bad of [{ name: 'x', roles: ['wizard'] }, { name: 'x', roles: [] }, { roles: ['reader'] }, { name: 'x', roles: ['reader'], expiresInSeconds: 0 }, [], { name: 'x', roles: [5] }, { name: 'no spaces', roles: ['reader'] }])
      await expect(400, s, 'POST', '/keys', '/keys', { headers: admin, json: bad });
    const writer = await expect(201, s, 'POST', '/keys', '/keys', { headers: admin, json: { name: 'writer-1', roles: ['writer'] } });
    const list = await expect(200, s, 'GET', '/keys', '/keys', { headers: { 'X-Api-Key': s.adminKey } });
    assert.ok(list.body.keys.some((k) => k.id === reader.id));

    const r = bearer(reader.key);
    const rwho = await expect(200, s, 'GET', '/auth/whoami', '/auth/whoami', { headers: r });
    assert.deepEqual(rwho.body.roles, ['reader']);
    await expect(403, s, 'POST', '/streams/{stream}', '/streams/order-1', { headers: r, json: event() });
    await expect(201, s, 'POST', '/streams/{stream}', '/streams/order-1', { headers: bearer(writer.body.key), json: event() });
    await expect(200, s, 'GET', '/streams/{stream}', '/streams/order-1', { headers: r });
    await expect(403, s, 'DELETE', '/streams/{stream}', '/streams/order-1', { headers: r });
    // Stream metadata: read with read, written with delete (retention hides events).
    await expect(200, s, 'GET', '/streams/{stream}/metadata', '/streams/order-1/metadata', { headers: r });
    const noDelete = await expect(403, s, 'PUT', '/streams/{stream}/metadata', '/streams/order-1/metadata', { headers: bearer(writer.body.key), json: { maxCount: 1 } });
    assert.match(noDelete.body.message, /delete right/);
    await expect(200, s, 'PUT', '/streams/{stream}/metadata', '/streams/order-1/metadata', { headers: admin, json: {} });
    // Erasing needs delete, as a delete does; scavenging the admin role, whatever the rights.
    await expect(403, s, 'DELETE', '/streams/{stream}', '/streams/order-1?erase=true', { headers: bearer(writer.body.key) });
    const notAdmin = await expect(403, s, 'POST', '/scavenge', '/scavenge', { headers: bearer(writer.body.key) });
    assert.match(notAdmin.body.message, /admin role/);
    await expect(200, s, 'POST', '/scavenge', '/scavenge', { headers: admin });
    await expect(403, s, 'GET', '/streams/{stream}', `/streams/${enc('$audit')}`, { headers: r });
    await expect(200, s, 'GET', '/streams/{stream}', `/streams/${enc('$audit')}`, { headers: admin });
    await expect(403, s, 'GET', '/metrics', '/metrics', { headers: r });
    await expect(403, s, 'GET', '/keys', '/keys', { headers: r });
    await expect(403, s, 'POST', '/keys', '/keys', { headers: r, json: { name: 'r2', roles: ['reader'] } });
    await expect(403, s, 'PUT', '/consumers/{group}', '/consumers/g1', { headers: r });
    await expect(403, s, 'GET', '/consumers', '/consumers', { headers: r });
    // A reader: no $ stream, no consumer group, no key.
    for (const template of ['/streams/{stream}/head', '/streams/{stream}/state', '/streams/{stream}/metadata', '/subscribe/streams/{stream}'])
      await expect(403, s, 'GET', template, template.replace('{stream}', enc('$audit')), { headers: r });
    for (const [method, template, json] of [
      ['GET', '/consumers/{group}'],
      ['DELETE', '/consumers/{group}'],
      ['POST', '/consumers/{group}/pull'],
      ['POST', '/consumers/{group}/ack', { positions: [1] }],
      ['POST', '/consumers/{group}/nack', { position: 1 }],
      ['POST', '/consumers/{group}/retry'],
      ['POST', '/consumers/{group}/skip'],
      ['POST', '/consumers/{group}/replay'],
      ['GET', '/consumers/{group}/parked'],
      ['POST', '/consumers/{group}/parked/{version}/retry'],
      ['POST', '/consumers/{group}/parked/{version}/skip'],
      ['DELETE', '/keys/{key}'],
    ])
      await expect(403, s, method, template, sample(template), { headers: r, json });
    const sub = await subscribe(s, '/subscribe/all', { headers: r, count: 1 });
    checkSse('/subscribe/all', sub);
    await expect(200, s, 'GET', '/query', '/query', { headers: r });
    await expect(200, s, 'POST', '/query', '/query', { headers: r, json: {} });
    checkSse('/subscribe/query', await subscribe(s, '/subscribe/query', { headers: r, count: 1 }));
    // Events without a stream go to $dcb: a '$' name, the admin's alone.
    const streamless = { appends: [{ events: [event()] }] };
    await expect(403, s, 'POST', '/commits', '/commits', { headers: bearer(writer.body.key), json: streamless });
    await expect(201, s, 'POST', '/commits', '/commits', { headers: admin, json: streamless });
    await expect(200, s, 'GET', '/all', '/all', { headers: r });
    await expect(200, s, 'GET', '/metrics', '/metrics', { headers: admin });

    const revoked = await expect(200, s, 'DELETE', '/keys/{key}', `/keys/${reader.id}`, { headers: admin });
    assert.equal(revoked.body.revoked, true);
    await expect(404, s, 'DELETE', '/keys/{key}', `/keys/${reader.id}`, { headers: admin });
    await expect(200, s, 'DELETE', '/keys/{key}', '/keys/writer-1', { headers: admin });
    await expect(401, s, 'GET', '/streams/{stream}', '/streams/order-1', { headers: r });
  });

  test('consumer groups with roles: a filter the caller may not read all of is 403', async () => {
    const admin = bearer(s.adminKey);
    const made = await expect(201, s, 'POST', '/keys', '/keys', { headers: admin, json: { name: 'operator-1', roles: ['operator'] } });
    const o = bearer(made.body.key);
    const denied = await expect(403, s, 'PUT', '/consumers/{group}', `/consumers/op1?prefix=${enc('$')}`, { headers: o });
    assert.match(denied.body.message, /may not read every stream/);
    await expect(201, s, 'PUT', '/consumers/{group}', `/consumers/dollar?prefix=${enc('$')}`, { headers: admin });
    await expect(403, s, 'POST', '/consumers/{group}/pull', '/consumers/dollar/pull?consumer=w', { headers: o });
    // Its parked copies hold those events: the same check.
    await expect(403, s, 'GET', '/consumers/{group}/parked', '/consumers/dollar/parked', { headers: o });
    await expect(200, s, 'DELETE', '/consumers/{group}', '/consumers/dollar', { headers: admin });
  });

  test('issue 20 routes with roles: commits need write, listings hide $ streams', async () => {
    const admin = bearer(s.adminKey);
    const made = await expect(201, s, 'POST', '/keys', '/keys', { headers: admin, json: { name: 'reader-2', roles: ['reader'] } });
    const r = bearer(made.body.key);
    const commit = { appends: [{ stream: 'order-9', events: [event()] }] };
    await expect(403, s, 'POST', '/commits', '/commits', { headers: r, json: commit });
    await expect(201, s, 'POST', '/commits', '/commits', { headers: admin, json: commit });
    await expect(403, s, 'POST', '/commits', '/commits', { headers: r, json: { appends: [{ stream: '$audit', events: [event()] }] } });
    await expect(404, s, 'GET', '/streams/{stream}/state', '/streams/order-9/state', { headers: r });
    const mine = await expect(200, s, 'GET', '/streams', '/streams', { headers: r });
    assert.ok(mine.body.streams.some((x) => x.stream === 'order-9'));
    assert.ok(mine.body.streams.every((x) => !x.stream.startsWith('$')), 'a reader sees no $ streams');
    const all = await expect(200, s, 'GET', '/streams', `/streams?prefix=${enc('$')}`, { headers: admin });
    assert.ok(all.body.streams.some((x) => x.stream === '$audit'), 'an admin sees $audit');
  });

  test('schemas with roles: any principal reads, only an admin changes (issue 35)', async () => {
    const admin = bearer(s.adminKey);
    const made = await expect(201, s, 'POST', '/keys', '/keys', { headers: admin, json: { name: 'reader-3', roles: ['reader'] } });
    const r = bearer(made.body.key);
    const T = '/schemas/{type}/versions';
    await expect(403, s, 'POST', T, '/schemas/Order.Placed/versions', { headers: r, json: { version: 'V1', schema: {} } });
    await expect(201, s, 'POST', T, '/schemas/Order.Placed/versions', { headers: admin, json: { version: 'V1', schema: {} } });
    await expect(403, s, 'PUT', '/schema-settings/default', '/schema-settings/default', { headers: r, json: { mode: 'warn' } });
    await expect(403, s, 'POST', '/schemas/{type}/upcasters', '/schemas/Order.Placed/upcasters', { headers: r, json: { from: 'V1', to: 'V2' } });
    await expect(200, s, 'GET', '/schemas', '/schemas', { headers: r });
    await expect(200, s, 'GET', '/schemas/{type}', '/schemas/Order.Placed', { headers: r });
    await expect(200, s, 'POST', '/schemas/{type}/check', '/schemas/Order.Placed/check', { headers: r, json: { schema: {} } });
  });
});

describe('at --max-connections', () => {
  let s;
  before(async () => {
    s = await startServer(['--max-connections', '1']);
  });
  after(async () => {
    await s?.stop();
  });

  test('a connection past the cap is 503 with Retry-After', async () => {
    // A subscriber holds the one place (busy: it is never evicted).
    const holder = net.connect(s.port, s.host);
    await new Promise((resolve, reject) => {
      holder.once('data', resolve);
      holder.once('error', reject);
      holder.write('GET /subscribe/all HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    });
    try {
      const health = await expect(503, s, 'GET', '/health', '/health');
      assert.equal(health.body.error, 'unavailable');
      assert.equal(health.res.headers['retry-after'], '1');
      await expect(503, s, 'POST', '/streams/{stream}', '/streams/order-1', { json: event() });
      // Refused on accept, before the request is read: every operation alike.
      await each([...operations()], async ([key]) => {
        const [method, template] = key.split(' ');
        const { res } = await expect(503, s, method, template, sample(template));
        assert.equal(res.headers['retry-after'], '1');
      });
    } finally {
      holder.destroy();
    }
  });
});

// Documented errors no request can cause on purpose here, and why; every
// other documented 4xx/5xx of every operation must have been validated.
function unprovokable(key, status) {
  if (status === '500') return 'a bug: an exception in a handler, or a response header the server made invalid';
  if (status === '404' && ['GET /', 'GET /console'].includes(key)) return 'only a build without the web console answers 404 here';
  if (status === '404' && key === 'PUT /consumers/{group}') return 'the group deleted by another request between its creation and the answer';
  return undefined;
}

test('coverage: every operation and every error it documents was exercised and validated', () => {
  const missing = [];
  const skipped = [];
  for (const [key, op] of operations()) {
    const statuses = covered.get(key) ?? new Set();
    if (statuses.size === 0) missing.push(`${key}: never exercised`);
    else if (![...statuses].some((x) => x >= 200 && x < 400))
      missing.push(`${key}: no validated success (got ${[...statuses].join(', ')})`);
    for (const status of Object.keys(op.responses ?? {}).filter((x) => Number(x) >= 400)) {
      if (statuses.has(Number(status))) continue;
      const why = unprovokable(key, status);
      if (why) skipped.push(`${key} ${status}: ${why}`);
      else missing.push(`${key}: documented ${status} never provoked and validated`);
    }
  }
  for (const name of ['UnknownRoute', 'MethodNotAllowed'])
    if (!componentCovered.has(name)) missing.push(`components.responses.${name}: never validated`);
  const report = [...operations().keys()].map((k) => `${k}: ${[...(covered.get(k) ?? [])].sort().join(' ')}`).join('\n');
  const pairs = [...covered.values()].reduce((n, set) => n + [...set].filter((x) => x >= 400).length, 0);
  console.log(`validated statuses per operation:\n${report}`);
  console.log(`${errorAnswers.count} error answers validated (${pairs} operation/status pairs); not provoked: ${skipped.length}\n${skipped.join('\n')}`);
  if (missing.length > 0) assert.fail(`not exercised and validated:\n${missing.join('\n')}`);
});
