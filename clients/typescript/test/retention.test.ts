// Scavenging and erasure (issue 37): scavenge() removes what retention
// hides and reports it; erase() leaves the tombstone alone on every read;
// errors mapped as for the other calls; with --auth, only an admin
// scavenges and erasing needs the delete right.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ConflictError, ForbiddenError, InvalidError, NotFoundError, type ScavengeReport } from './subject.js';
import { Server, collect, startAuthServer, unique, type AuthServer } from './server.js';

describe('scavenge and erase', () => {
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

  test('scavenge removes what maxCount hides, then finds nothing', async () => {
    const stream = unique('sensor-');
    await client.append(stream, Array.from({ length: 30 }, (_, n) => ({ type: 'Read', data: n })));
    await client.writeStreamMetadata(stream, { maxCount: 5 });
    const report: ScavengeReport = await client.scavenge();
    assert.deepEqual(Object.keys(report).sort(), ['bytes', 'diskBytesAfter', 'diskBytesBefore', 'events', 'streams', 'tookMs']);
    assert.equal(report.streams, 1);
    assert.equal(report.events, 25);
    assert.ok(report.bytes > 0 && report.diskBytesBefore > 0 && report.diskBytesAfter > 0, JSON.stringify(report));
    assert.ok(report.tookMs >= 0);
    // Removed, not hidden: with the setting lifted, the newest five are all.
    await client.writeStreamMetadata(stream, {});
    assert.deepEqual((await collect(client.readStream(stream))).map((e) => e.version), [25, 26, 27, 28, 29]);
    const again = await client.scavenge();
    assert.equal(again.events, 0);
    assert.equal(again.streams, 0);
  });

  test('erase leaves the tombstone alone; delete keeps the events', async () => {
    const erased = unique('erased-');
    const deleted = unique('deleted-');
    const first = await client.append(erased, [1, 2, 3].map((n) => ({ type: 'Placed', data: n })));
    await client.append(deleted, [{ type: 'Placed' }, { type: 'Placed' }]);

    const result = await client.erase(erased, { expected: 2 });
    assert.equal(result.stream, erased);
    assert.equal(result.firstVersion, 3);
    assert.equal(result.lastVersion, 3);
    assert.equal(result.replayed, false);
    const gone = await client.readStream(erased).next().catch((e: unknown) => e);
    assert.ok(gone instanceof NotFoundError && gone.deleted === true, String(gone));
    const left = await collect(client.readStream(erased, { includeDeleted: true }));
    assert.deepEqual(left.map((e) => [e.version, e.type, e.data]), [[3, '$deleted', { erased: true }]]);
    const all = await collect(client.readAll({ from: first.position - 2, prefix: erased }));
    assert.deepEqual(all.map((e) => e.version), [3], 'only the tombstone is in $all');

    await client.delete(deleted);
    assert.equal((await collect(client.readStream(deleted, { includeDeleted: true }))).length, 3);
  });

  test('erase errors: a stale expectation, a stream never written, bad options', async () => {
    const stream = unique('e-');
    await client.append(stream, [{ type: 'A' }, { type: 'B' }]);
    const stale = await client.erase(stream, { expected: 0 }).catch((e: unknown) => e);
    assert.ok(stale instanceof ConflictError, String(stale));
    assert.equal(stale.actualVersion, 1);
    const never = await client.erase(unique('never-')).catch((e: unknown) => e);
    assert.ok(never instanceof NotFoundError, String(never));
    const noStream = await client.erase(stream, { expected: 'no_stream' }).catch((e: unknown) => e);
    assert.ok(noStream instanceof InvalidError && noStream.status === 400, String(noStream));
    const option = await client.erase(stream, { expectedVersion: 1 } as never).catch((e: unknown) => e);
    assert.ok(option instanceof InvalidError && option.field === 'expectedVersion', String(option));
    const reserved = await client.erase('$audit').catch((e: unknown) => e);
    assert.ok(reserved instanceof InvalidError && reserved.status === 400, String(reserved));
    assert.equal((await collect(client.readStream(stream))).length, 2, 'nothing was erased');
  });
});

describe('scavenge on a store that cannot', () => {
  test('a memory store answers InvalidError with its reason', async () => {
    const server = await Server.start({ args: ['--store', 'memory:'] });
    const client = new Client(server.url);
    try {
      const refused = await client.scavenge().catch((e: unknown) => e);
      assert.ok(refused instanceof InvalidError, String(refused));
      assert.equal(refused.status, 400);
      assert.match(refused.message, /cannot remove events/);
    } finally {
      client.close();
      await server.stop();
    }
  });
});

describe('scavenge and erase with --auth', () => {
  let auth: AuthServer;
  let admin: Client;
  let writer: Client;

  before(async () => {
    auth = await startAuthServer();
    ({ admin, writer } = auth);
  });
  after(async () => {
    await auth.close();
  });

  test('only an admin scavenges; erasing needs delete: ForbiddenError, nothing done', async () => {
    const notAdmin = await writer.scavenge().catch((e: unknown) => e);
    assert.ok(notAdmin instanceof ForbiddenError, String(notAdmin));
    assert.match(notAdmin.message, /admin role/);
    assert.equal((await admin.scavenge()).events, 0);

    const stream = unique('orders-');
    await writer.append(stream, { type: 'Placed' });
    const denied = await writer.erase(stream).catch((e: unknown) => e);
    assert.ok(denied instanceof ForbiddenError, String(denied));
    assert.match(denied.message, /delete right/);
    assert.equal((await collect(admin.readStream(stream))).length, 1);
    assert.equal((await admin.erase(stream)).lastVersion, 1);
  });
});
