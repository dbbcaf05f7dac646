// The transport itself: keep-alive connections reused, the maxConnections
// cap, the per-request timeout, and close(). Under fetch
// (INDELIBLE_TEST_TRANSPORT=fetch) the runtime owns the connections: what
// these tests say of connections holds for the node transport only, and
// fetch is held to the same number of requests in flight instead.

import * as http from 'node:http';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client as PackageClient } from '../src/index.js';
import { Client, IndelibleError, InvalidError, UnavailableError } from './subject.js';
import { CuttingProxy } from './proxy.js';
import { Server, sleep, unique } from './server.js';

let server: Server;

before(async () => {
  server = await Server.start();
});
after(async () => {
  await server.stop();
});

async function waitUntil(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) assert.fail('timed out waiting');
    await sleep(10);
  }
}

test('one after another, requests share one keep-alive connection', async () => {
  const proxy = await new CuttingProxy(server.port).listen();
  const client = new Client(proxy.url);
  try {
    const stream = unique('ka-');
    for (let i = 0; i < 10; i++) await client.append(stream, { type: 'E' }, { expected: i === 0 ? 'no_stream' : i - 1 });
    assert.equal((await client.head(stream)).version, 9);
    if (client.transportKind === 'node') assert.equal(proxy.accepted, 1);
    // undici may open a second connection when a request follows the last answer within the same tick.
    else assert.ok(proxy.accepted <= 2, `connections reused, ${proxy.accepted} opened`);
  } finally {
    client.close();
    await proxy.close();
  }
});

test('maxConnections caps the connections; the requests beyond it wait their turn', async () => {
  const proxy = await new CuttingProxy(server.port).listen();
  const client = new Client(proxy.url, { maxConnections: 3 });
  try {
    const run = unique('cap-');
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => client.append(`${run}-${i % 8}`, { type: 'E', data: { i } })));
    assert.equal(results.length, 40);
    if (client.transportKind === 'node') {
      assert.ok(proxy.maxOpen <= 3, `at most 3 connections at once, saw ${proxy.maxOpen}`);
      assert.ok(proxy.accepted <= 3, `connections reused, ${proxy.accepted} opened`);
      assert.ok(proxy.accepted >= 2, `more than one used in parallel, ${proxy.accepted} opened`);
    }
    assert.throws(() => new Client(server.url, { maxConnections: 0 }), InvalidError);
  } finally {
    client.close();
    await proxy.close();
  }
});

test('timeoutMs: a server that never answers is an UnavailableError after that long', async () => {
  const proxy = await new CuttingProxy(server.port).listen();
  const client = new Client(proxy.url, { timeoutMs: 300, retries: 0 });
  try {
    if (client.transportKind === 'node') {
      await client.health(); // a connection to freeze: the pooled one the next request takes
      proxy.freeze();
    } else {
      // fetch picks its connection itself: no idle one to freeze, every new one silent.
      proxy.freezeNew = true;
    }
    const t0 = Date.now();
    const err = await client.head('nowhere').catch((e: unknown) => e);
    proxy.freezeNew = false;
    assert.ok(err instanceof UnavailableError, String(err));
    assert.equal(err.status, 0);
    assert.match(err.message, /no answer within 300 ms/);
    assert.ok(Date.now() - t0 >= 280 && Date.now() - t0 < 3000, `took ${Date.now() - t0} ms`);
    // The timed-out connection is gone; the next request opens a new one.
    assert.equal((await client.health()).status, 'ok');
  } finally {
    client.close();
    await proxy.close();
  }
});

test('maxConnections: at most that many requests on the wire at once, the others queued', async () => {
  // A server that holds each request a little and counts those it holds.
  let inFlight = 0;
  let most = 0;
  let served = 0;
  const slow = http.createServer((req, res) => {
    inFlight++;
    most = Math.max(most, inFlight);
    req.resume();
    setTimeout(() => {
      inFlight--;
      served++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"status":"ok","lastPosition":0}');
    }, 20);
  });
  await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
  const client = new Client(`http://127.0.0.1:${(slow.address() as { port: number }).port}`, { maxConnections: 3 });
  try {
    await Promise.all(Array.from({ length: 20 }, () => client.health()));
    assert.equal(served, 20);
    assert.ok(most <= 3, `at most 3 requests at once, saw ${most}`);
    assert.ok(most >= 2, `more than one in parallel, saw ${most}`);
  } finally {
    client.close();
    await new Promise<void>((resolve) => slow.close(() => resolve()));
  }
});

test('close(): idle and busy connections closed, a subscription ends, later calls throw `closed`', async () => {
  const proxy = await new CuttingProxy(server.port).listen();
  const client = new Client(proxy.url);
  const stream = unique('close-');
  await Promise.all(Array.from({ length: 4 }, (_, i) => client.append(`${stream}-${i}`, { type: 'E' })));
  await client.consumers.create(stream, { category: 'nothing' + stream.replace(/[^a-z0-9]/gi, '') });
  assert.ok(proxy.open >= 1);
  // A subscription and a long pull in progress.
  let seen = 0;
  const subscription = (async () => {
    for await (const _ of client.subscribeAll({ from: 'end' })) seen++;
  })();
  const pull = client.consumers.pull(stream, { waitMs: 10000 }).catch((e: unknown) => e);
  await sleep(300);
  const t0 = Date.now();
  client.close();
  await subscription; // ends quietly
  const pullErr = await pull;
  assert.ok(pullErr instanceof IndelibleError && pullErr.code === 'closed', String(pullErr));
  assert.ok(Date.now() - t0 < 2000, 'the long pull did not wait its 10 s');
  // fetch's idle connections are the runtime's pool: close() cannot end them (they go after its keep-alive timeout).
  if (client.transportKind === 'node') await waitUntil(() => proxy.open === 0);
  assert.equal(seen, 0);
  const err = await client.head(`${stream}-0`).catch((e: unknown) => e);
  assert.ok(err instanceof IndelibleError, String(err));
  assert.equal(err.code, 'closed');
  assert.equal(err.status, 0);
  assert.ok(!(err instanceof UnavailableError), 'not retried');
  client.close(); // twice is harmless
  await proxy.close();
});

test('the transport option: either transport on Node, node:http unless told; a bad value, or a ca with fetch, refused at once', async () => {
  const stream = unique('kind-');
  for (const transport of ['node', 'fetch'] as const) {
    const client = new Client(server.url, { transport });
    try {
      assert.equal(client.transportKind, transport);
      await client.append(stream, { type: transport });
    } finally {
      client.close();
    }
  }
  // The package's own Client, not the suite's (which may force a transport).
  const plain = new PackageClient(server.url);
  assert.equal(plain.transportKind, 'node');
  assert.equal((await plain.head(stream)).version, 1);
  plain.close();
  for (const [options, field] of [
    [{ transport: 'xhr' }, 'transport'],
    [{ transport: 'fetch', ca: '-----BEGIN CERTIFICATE-----' }, 'ca'],
    [{ ca: 42 }, 'ca'],
  ] as const) {
    assert.throws(() => new PackageClient(server.url, options as never), (err: unknown) => err instanceof InvalidError && err.field === field && err.status === 0, JSON.stringify(options));
  }
});
