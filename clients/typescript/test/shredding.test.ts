// Crypto-shredding (issue 37) through the client: events tagged
// subject:<id> read back as written from a server with a master key;
// shredSubject() makes them read as redacted on every read, and only an
// admin may shred.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, ForbiddenError, InvalidError, type ShredReport } from './subject.js';
import { Server, collect, startAuthServer, tempDir, unique, type AuthServer } from './server.js';

describe('crypto-shredding', () => {
  let server: Server;
  let client: Client;

  before(async () => {
    const keyFile = path.join(tempDir('indelible-ts-key-'), 'master.key');
    writeFileSync(keyFile, randomBytes(32).toString('hex') + '\n', { mode: 0o600 });
    server = await Server.start({ args: ['--master-key-file', keyFile] });
    client = new Client(server.url);
  });
  after(async () => {
    client.close();
    await server.stop();
  });

  test('a subject reads as written, then as redacted once shredded', async () => {
    const subject = unique('user-');
    const stream = unique('person-');
    const other = unique('person-');
    await client.append(stream, [{ type: 'Registered', data: { name: 'Ada' }, tags: [`subject:${subject}`] }]);
    await client.append(other, [{ type: 'Registered', data: { name: 'Bob' }, tags: [`subject:${subject}-x`] }]);
    assert.deepEqual((await collect(client.readStream(stream))).map((e) => e.data), [{ name: 'Ada' }]);

    const report: ShredReport = await client.shredSubject(subject);
    assert.deepEqual(report, { subject, keys: 1 });

    assert.deepEqual((await collect(client.readStream(stream))).map((e) => e.data), [{ $redacted: true }]);
    const all = (await collect(client.readAll())).filter((e) => e.stream === stream || e.stream === other);
    assert.deepEqual(all.map((e) => e.data), [{ $redacted: true }, { name: 'Bob' }]);
    assert.deepEqual((await client.shredSubject(subject)).keys, 0);
  });
});

describe('crypto-shredding needs a master key and the admin role', () => {
  let auth: AuthServer;
  let plain: Server;

  before(async () => {
    auth = await startAuthServer();
    plain = await Server.start();
  });
  after(async () => {
    await auth.close();
    await plain.stop();
  });

  test('a server without a master key refuses subjects and shredding', async () => {
    const client = new Client(plain.url);
    try {
      await assert.rejects(client.append(unique('person-'), [{ type: 'Registered', data: {}, tags: ['subject:u-1'] }]), InvalidError);
      await assert.rejects(client.shredSubject('u-1'), InvalidError);
    } finally {
      client.close();
    }
  });

  test('a writer cannot shred', async () => {
    await assert.rejects(auth.writer.shredSubject('u-1'), ForbiddenError);
  });
});
