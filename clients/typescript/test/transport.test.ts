// The transport itself: keep-alive connections reused, the maxConnections
// cap, the per-request timeout, and close().

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, IndelibleError, InvalidError, UnavailableError } from '../src/index.js';
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
    assert.equal(proxy.accepted, 1);
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
    assert.ok(proxy.maxOpen <= 3, `at most 3 connections at once, saw ${proxy.maxOpen}`);
    assert.ok(proxy.accepted <= 3, `connections reused, ${proxy.accepted} opened`);
    assert.ok(proxy.accepted >= 2, `more than one used in parallel, ${proxy.accepted} opened`);
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
    await client.health(); // a connection to freeze
    proxy.freeze();
    const t0 = Date.now();
    const err = await client.head('nowhere').catch((e: unknown) => e);
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
  await waitUntil(() => proxy.open === 0);
  assert.equal(seen, 0);
  const err = await client.head(`${stream}-0`).catch((e: unknown) => e);
  assert.ok(err instanceof IndelibleError, String(err));
  assert.equal(err.code, 'closed');
  assert.equal(err.status, 0);
  assert.ok(!(err instanceof UnavailableError), 'not retried');
  client.close(); // twice is harmless
  await proxy.close();
});
