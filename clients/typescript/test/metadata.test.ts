// Stream metadata (issue 37): readStreamMetadata and writeStreamMetadata
// against a real server; retention hiding events from reads; errors mapped
// as for the other calls; with --auth, writing needs the delete right.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ConflictError, ForbiddenError, InvalidError, type StreamMetadata } from './subject.js';
import { Server, collect, startAuthServer, unique, type AuthServer } from './server.js';

describe('stream metadata', () => {
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

  test('never written, then written and read back with its version', async () => {
    const stream = unique('BANK/');
    assert.deepEqual(await client.readStreamMetadata(stream), { stream, version: null, metadata: {} });
    const metadata: StreamMetadata = { maxCount: 10, custom: { owner: 'billing' } };
    assert.deepEqual(await client.writeStreamMetadata(stream, metadata, { expected: 'no_stream' }), { stream, version: 0 });
    assert.deepEqual(await client.readStreamMetadata(stream), { stream, version: 0, metadata });
    // The whole document is replaced; null unsets.
    assert.deepEqual(await client.writeStreamMetadata(stream, { maxAge: 86400, maxCount: null, truncateBefore: 2 }, { expected: 0 }), { stream, version: 1 });
    assert.deepEqual((await client.readStreamMetadata(stream)).metadata, { maxAge: 86400, truncateBefore: 2 });
    assert.equal((await client.writeStreamMetadata(stream, {})).version, 2);
  });

  test('maxCount hides the older events from readStream and readAll', async () => {
    const stream = unique('r-');
    const appended = await client.append(stream, [1, 2, 3, 4, 5].map((n) => ({ type: 'Counted', data: n })));
    await client.writeStreamMetadata(stream, { maxCount: 2 });
    assert.deepEqual((await collect(client.readStream(stream))).map((e) => e.version), [3, 4]);
    const all = await collect(client.readAll({ from: appended.position - 4, prefix: stream }));
    assert.deepEqual(all.map((e) => e.version), [3, 4]);
  });

  test('errors: a stale expectation is a ConflictError with the actual version; bad input is InvalidError, nothing written', async () => {
    const stream = unique('e-');
    await client.writeStreamMetadata(stream, { maxCount: 3 });
    const stale = await client.writeStreamMetadata(stream, {}, { expected: 5 }).catch((e: unknown) => e);
    assert.ok(stale instanceof ConflictError, String(stale));
    assert.equal(stale.status, 409);
    assert.equal(stale.reason, 'version');
    assert.equal(stale.actualVersion, 0);
    const exists = await client.writeStreamMetadata(stream, {}, { expected: 'no_stream' }).catch((e: unknown) => e);
    assert.ok(exists instanceof ConflictError && exists.actualVersion === 0, String(exists));

    // Refused by the client before sending: an unknown member, a bad number, a bad option.
    const typo = await client.writeStreamMetadata(stream, { maxcount: 1 } as never).catch((e: unknown) => e);
    assert.ok(typo instanceof InvalidError, String(typo));
    assert.equal(typo.status, 0);
    assert.equal(typo.field, 'metadata.maxcount');
    const zero = await client.writeStreamMetadata(stream, { maxCount: 0 }).catch((e: unknown) => e);
    assert.ok(zero instanceof InvalidError && zero.field === 'metadata.maxCount', String(zero));
    const custom = await client.writeStreamMetadata(stream, { custom: [1] as never }).catch((e: unknown) => e);
    assert.ok(custom instanceof InvalidError && custom.field === 'metadata.custom', String(custom));
    const option = await client.writeStreamMetadata(stream, {}, { expectedVersion: 0 } as never).catch((e: unknown) => e);
    assert.ok(option instanceof InvalidError && option.field === 'expectedVersion', String(option));
    // Refused by the server: a metadata stream has no metadata of its own.
    const reserved = await client.readStreamMetadata(`$$${stream}`).catch((e: unknown) => e);
    assert.ok(reserved instanceof InvalidError && reserved.status === 400 && reserved.field === 'stream', String(reserved));
    const past = await client.writeStreamMetadata(stream, { maxAge: 2 ** 53 }).catch((e: unknown) => e);
    assert.ok(past instanceof InvalidError && past.status === 0, String(past));

    assert.deepEqual(await client.readStreamMetadata(stream), { stream, version: 0, metadata: { maxCount: 3 } });
  });
});

describe('stream metadata with --auth', () => {
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

  test('reading needs read; writing needs delete: ForbiddenError, nothing written', async () => {
    const stream = unique('orders-');
    await writer.append(stream, { type: 'Placed' });
    assert.equal((await writer.readStreamMetadata(stream)).version, null);
    const denied = await writer.writeStreamMetadata(stream, { maxCount: 1 }).catch((e: unknown) => e);
    assert.ok(denied instanceof ForbiddenError, String(denied));
    assert.equal(denied.status, 403);
    assert.match(denied.message, /delete right/);
    assert.equal((await admin.readStreamMetadata(stream)).version, null);
    assert.equal((await admin.writeStreamMetadata(stream, { maxCount: 1 })).version, 0);
  });
});
