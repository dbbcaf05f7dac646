// Credentials (`serve --auth --bootstrap-key-file`) and https with a
// private CA made here by openssl (`serve --tls-cert/--tls-key`).

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { Client, ForbiddenError, IndelibleError, UnauthorizedError, type RecordedEvent } from './subject.js';
import { Server, collect, sleep, startTlsServer, tempDir, unique } from './server.js';

describe('credentials', () => {
  let server: Server;
  let adminKey: string;
  let readerKey: string;

  before(async () => {
    const dir = tempDir();
    // The file does not exist: the server makes an admin key and writes it there.
    server = await Server.start({ data: dir, args: ['--auth', '--bootstrap-key-file', path.join(dir, 'admin.key')] });
    adminKey = readFileSync(path.join(dir, 'admin.key'), 'utf8').trim();
    const res = await fetch(`${server.url}/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: unique('reader-'), roles: ['reader'] }),
    });
    assert.equal(res.status, 201);
    readerKey = ((await res.json()) as { key: string }).key;
  });
  after(async () => {
    await server.stop();
    rmSync(server.data, { recursive: true, force: true });
  });

  test('no credentials: 401 UnauthorizedError, on calls and on subscriptions (not retried)', async () => {
    const anonymous = new Client(server.url);
    const err = await anonymous.append(unique('s-'), { type: 'A' }).catch((e: unknown) => e);
    assert.ok(err instanceof UnauthorizedError, String(err));
    assert.equal(err.status, 401);
    assert.equal(err.code, 'unauthorized');
    await assert.rejects(collect(anonymous.subscribeAll()), UnauthorizedError);
    await assert.rejects(new Client(server.url, { apiKey: 'idl_0000000000000000_nope' }).head('x'), UnauthorizedError);
    // /health needs none.
    assert.equal((await anonymous.health()).status, 'ok');
  });

  test('an admin key (apiKey) does everything; a token function is asked before each request', async () => {
    const admin = new Client(server.url, { apiKey: adminKey });
    const stream = unique('acct-');
    await admin.append(stream, { type: 'Opened' });
    let asked = 0;
    const viaToken = new Client(server.url, {
      token: async () => {
        asked++;
        return adminKey;
      },
    });
    await viaToken.append(stream, { type: 'Deposited' });
    assert.equal((await collect(viaToken.readStream(stream))).length, 2);
    assert.ok(asked >= 2);
    const group = unique('g-');
    await admin.consumers.create(group, { prefix: stream });
    const seen: RecordedEvent[] = [];
    const w = admin.worker(group, async (e) => void seen.push(e), { waitMs: 100 });
    while (seen.length < 2) await sleep(20);
    await w.stop();
    assert.equal((await new Client(server.url, { token: adminKey }).head(stream)).version, 1);
    // A token function that fails: its error, at once, not retried as a network one.
    let calls = 0;
    const broken = new Client(server.url, {
      token: () => {
        calls++;
        throw new Error('identity provider down');
      },
    });
    await assert.rejects(broken.head(stream), /identity provider down/);
    await assert.rejects(collect(broken.subscribeStream(stream)), /identity provider down/);
    assert.equal(calls, 2);
  });

  test('a reader key reads and subscribes, and gets 403 ForbiddenError on a write', async () => {
    const admin = new Client(server.url, { apiKey: adminKey });
    const reader = new Client(server.url, { apiKey: readerKey });
    const stream = unique('acct-');
    await admin.append(stream, { type: 'Opened' });
    assert.equal((await collect(reader.readStream(stream))).length, 1);
    const [e] = await takeOne(reader.subscribeStream(stream));
    assert.equal(e!.type, 'Opened');
    const err = await reader.append(stream, { type: 'Hacked' }).catch((x: unknown) => x);
    assert.ok(err instanceof ForbiddenError, String(err));
    assert.equal(err.status, 403);
    assert.equal(err.code, 'unauthorized');
    await assert.rejects(reader.delete(stream), ForbiddenError);
    await assert.rejects(reader.consumers.create(unique('g-')), ForbiddenError);
    await assert.rejects(reader.commit([{ stream, events: [{ type: 'Hacked' }] }]), ForbiddenError);
    await assert.rejects(reader.append(stream, { type: 'Hacked' }, { state: { data: {} } }), ForbiddenError);
    // Reads of the new routes are allowed.
    assert.equal(await reader.getState(stream), null);
    assert.ok((await collect(reader.listStreams({ prefix: stream }))).some((s) => s.stream === stream));
    assert.equal((await collect(admin.readStream(stream))).length, 1, 'nothing written');
  });
});

async function takeOne(it: AsyncIterable<RecordedEvent>): Promise<RecordedEvent[]> {
  for await (const e of it) return [e];
  return [];
}

describe('https with a private CA', () => {
  let server: Server;
  let dir: string;

  before(async () => {
    ({ server, dir } = await startTlsServer());
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:/);
  });
  after(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('with `ca`: append, read, head, subscribe, consumers, worker', async () => {
    const client = new Client(server.url, { ca: readFileSync(path.join(dir, 'ca.pem')) });
    const stream = unique('tls-');
    const sub = takeOne(client.subscribeStream(stream));
    const r = await client.append(stream, [{ type: 'A', data: { secret: true } }, { type: 'B' }], { expected: 'no_stream' });
    assert.equal(r.lastVersion, 1);
    const stored = await collect(client.readStream(stream));
    const again = await client.append(stream, stored.map((e) => ({ id: e.id, type: e.type, data: e.data })));
    assert.equal(again.replayed, true);
    assert.deepEqual((await collect(client.readStream(stream))).map((e) => e.type), ['A', 'B']);
    assert.equal((await sub)[0]!.type, 'A');
    const group = unique('g-');
    await client.consumers.create(group, { prefix: stream });
    const seen: string[] = [];
    const w = client.worker(group, async (e) => void seen.push(e.type), { waitMs: 100 });
    while (seen.length < 2) await sleep(20);
    await w.stop();
    assert.deepEqual(seen, ['A', 'B']);
    assert.equal(await client.consumers.waitFor(group, r.position, 2000), true);
  });

  test('without the CA the certificate does not verify: a `tls` error, not retried', async () => {
    const client = new Client(server.url, { retries: 3 });
    const t0 = Date.now();
    const err = await client.head('x').catch((e: unknown) => e);
    assert.ok(err instanceof IndelibleError, String(err));
    assert.equal(err.code, 'tls');
    assert.equal(err.status, 0);
    assert.ok(Date.now() - t0 < 1000, 'no back-off: not retried');
  });
});
