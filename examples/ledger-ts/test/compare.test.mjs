// The TypeScript ledger against the C++ one (node --test).
//
// Starts `indelible serve` on a free port with a temporary data folder, runs
// ledger-ts against it for account X, runs the C++ `indelible-ledger` for the
// same X on its own temporary store, and asserts:
//   - both print the same lines, byte for byte;
//   - on the server: BANK_ACCOUNT/X holds the six accepted events of the
//     story (Transaction F, rejected, is not there), outbox-BANK_ACCOUNT/X
//     holds the one accountOverdrawn, written in the commit of its cause,
//     with the causation metadata and the id the C++ library derives, and
//     the state record (GET /streams/BANK_ACCOUNT%2FX/state) is the
//     "Final balance" line at the stream's last version;
//   - what the server holds is what the C++ ledger stored in its own store
//     (same events, data, metadata and outbox, ids and times aside);
//   - the entity helper on the real server: a stale appendTo meets the
//     conflict, reloads and commits again; a command retried with the
//     caller's event ids is reported replayed and writes nothing.
//
// Binaries: INDELIBLE_BIN (default build/dev/src/cli/indelible) and
// INDELIBLE_LEDGER_BIN (default build/dev/examples/ledger/indelible-ledger);
// the server must have POST /commits and GET /streams/{s}/state.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { Client } from '@indelible/client';

import { accountProcessor } from '../dist/account.js';
import { Entity, Event, outboundId } from '../dist/entity.js';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const example = resolve(here, '..');
const root = resolve(example, '../..');
const indelible = process.env.INDELIBLE_BIN || join(root, 'build/dev/src/cli/indelible');
const ledger =
  process.env.INDELIBLE_LEDGER_BIN || join(root, 'build/dev/examples/ledger/indelible-ledger');

const accountId = String(100000 + Math.floor(Math.random() * 900000));
const stream = `BANK_ACCOUNT/${accountId}`;
const outbox = `outbox-${stream}`;

let folder;
let server;
let base;
let tsLines;
let cppLines;

function lines(text) {
  return text.split('\n').filter((line, i, all) => line !== '' || i < all.length - 1);
}

async function startServer() {
  const child = spawn(
    indelible,
    ['serve', '--store', `file:${join(folder, 'server')}`, '--listen', '127.0.0.1:0'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const url = await new Promise((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`indelible serve did not start: ${err}`)), 10000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1]);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`indelible serve exited (${code}): ${err}`));
    });
  });
  return { child, url };
}

async function get(path) {
  const res = await fetch(base + path);
  const body = await res.json();
  return { status: res.status, etag: res.headers.get('etag'), body };
}

async function readStream(name) {
  const { status, body } = await get(`/streams/${encodeURIComponent(name)}?limit=1000`);
  assert.equal(status, 200, `GET ${name}: ${JSON.stringify(body)}`);
  assert.equal(body.nextVersion, null);
  return body.events;
}

// The C++ ledger's store, read with the CLI after it ran.
async function readCppStream(name) {
  const { stdout } = await run(indelible, [
    '--data',
    `file:${join(folder, 'cpp')}`,
    '--json',
    'read',
    name,
  ]);
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

// An event without what differs from store to store and run to run: ids
// and times; an id in the metadata becomes the version of the event it names.
function portable(e, versionOf) {
  const metadata = Object.fromEntries(
    Object.entries(e.metadata).map(([k, v]) => [
      k,
      versionOf.has(v) ? `<id of version ${versionOf.get(v)}>` : v,
    ]),
  );
  return { stream: e.stream, version: e.version, type: e.type, data: e.data, metadata };
}

before(async () => {
  for (const [what, path] of [
    ['INDELIBLE_BIN', indelible],
    ['INDELIBLE_LEDGER_BIN', ledger],
  ])
    assert.ok(existsSync(path), `${what}: ${path} does not exist (build it, or set ${what})`);
  assert.ok(existsSync(join(example, 'dist/main.js')), 'dist/main.js: run npm run build first');
  folder = mkdtempSync(join(tmpdir(), 'ledger-ts-test-'));
  ({ child: server, url: base } = await startServer());

  const ts = await run(process.execPath, [
    join(example, 'dist/main.js'),
    '--url',
    base,
    '--account-id',
    accountId,
  ]);
  tsLines = lines(ts.stdout);
  const cpp = await run(ledger, [
    '--store',
    `file:${join(folder, 'cpp')}`,
    '--account-id',
    accountId,
  ]);
  cppLines = lines(cpp.stdout);
});

after(() => {
  server?.kill('SIGTERM');
  if (folder) rmSync(folder, { recursive: true, force: true });
});

test('ledger-ts prints exactly what indelible-ledger prints', () => {
  assert.ok(cppLines.length >= 6, `the C++ ledger printed: ${cppLines.join('\n')}`);
  assert.deepEqual(tsLines, cppLines);
  assert.equal(tsLines.at(-1), 'complete');
});

test('the account stream holds the accepted events, and not the rejected one', async () => {
  const events = await readStream(stream);
  const tx = (desc, amount) => ({ type: 'TRANSACTION_ACCEPTED', data: { desc, amount } });
  assert.deepEqual(
    events.map((e) => ({ type: e.type, data: e.data })),
    [
      { type: 'ACCOUNT_CREATION', data: { id: accountId } },
      { type: 'ACCOUNT_UPDATE', data: { ownerFirst: 'John', ownerLast: 'Brown' } },
      tx('Transaction A', 200),
      tx('Transaction B', -300),
      tx('Transaction C', 50),
      tx('Transaction D', 25),
      tx('Transaction E', 25),
    ],
  );
  assert.deepEqual(
    events.map((e) => e.version),
    [0, 1, 2, 3, 4, 5, 6],
  );
  // A and B were one append: one commit, contiguous positions.
  assert.equal(events[3].position, events[2].position + 1);

  const head = await get(`/streams/${encodeURIComponent(stream)}/head`);
  assert.equal(head.status, 200);
  assert.equal(head.body.version, 6);
  const rejected = tsLines.find((l) => l.startsWith('Rejected transaction: '));
  assert.equal(
    rejected,
    `Rejected transaction: insufficient funds (${stream} stays at version ${head.body.version})`,
  );

  // Nothing anywhere in the log mentions Transaction F.
  const all = await get('/all?limit=10000');
  assert.equal(all.status, 200);
  assert.ok(all.body.events.length > 0);
  assert.ok(!JSON.stringify(all.body.events).includes('Transaction F'));
});

test('the outbox holds accountOverdrawn, committed with its cause', async () => {
  const events = await readStream(stream);
  const cause = events[3]; // Transaction B: 200 -> -100
  const out = await readStream(outbox);
  assert.equal(out.length, 1);
  const [overdrawn] = out;
  assert.equal(overdrawn.type, 'accountOverdrawn');
  assert.deepEqual(overdrawn.data, { accountId });
  assert.deepEqual(overdrawn.metadata, {
    causationId: cause.id,
    correlationId: cause.id,
    entityStream: stream,
    entityVersion: 3,
  });
  assert.equal(overdrawn.id, outboundId(cause.id, 0));
  // The same commit as its cause: the next position after it.
  assert.equal(overdrawn.position, cause.position + 1);

  const published = tsLines.filter((l) => l.startsWith('Published event: '));
  assert.deepEqual(published, [
    `Published event: ${JSON.stringify({ type: 'accountOverdrawn', data: overdrawn.data })}`,
  ]);
});

test('the state record is the final balance, at the last version', async () => {
  const state = await get(`/streams/${encodeURIComponent(stream)}/state`);
  assert.equal(state.status, 200, JSON.stringify(state.body));
  assert.equal(state.etag, '"6"');
  assert.equal(state.body.stream, stream);
  assert.equal(state.body.version, 6);
  assert.equal(state.body.schema, 1);
  const final = tsLines.find((l) => l.startsWith('Final balance: '));
  assert.ok(final, 'no Final balance line');
  assert.equal(JSON.stringify(state.body.data), final.slice('Final balance: '.length));
  assert.deepEqual(state.body.data, {
    id: accountId,
    ownerFirst: 'John',
    ownerLast: 'Brown',
    balance: 0,
    minimumBalance: -1000,
  });
});

test('the server holds what the C++ ledger stored', async () => {
  const cppEvents = await readCppStream(stream);
  const tsEvents = await readStream(stream);
  const cppVersions = new Map(cppEvents.map((e) => [e.id, e.version]));
  const tsVersions = new Map(tsEvents.map((e) => [e.id, e.version]));
  assert.deepEqual(
    tsEvents.map((e) => portable(e, tsVersions)),
    cppEvents.map((e) => portable(e, cppVersions)),
    stream,
  );
  assert.deepEqual(
    (await readStream(outbox)).map((e) => portable(e, tsVersions)),
    (await readCppStream(outbox)).map((e) => portable(e, cppVersions)),
    outbox,
  );
  // The C++ outbox id follows from its cause's id as ours does.
  const [cppCause] = (await readCppStream(stream)).filter((e) => e.version === 3);
  const [cppOut] = await readCppStream(outbox);
  assert.equal(cppOut.id, outboundId(cppCause.id, 0));
  // Neither wrote anything but the account and its outbox.
  const all = await get('/all?limit=10000');
  assert.deepEqual(
    [...new Set(all.body.events.map((e) => e.stream))].sort(),
    [stream, outbox].sort(),
  );
});

// After the tests above: these write other streams.
test('a stale appendTo reloads and retries; a retried command is replayed', async () => {
  const client = new Client(base);
  const accounts = new Entity(client, 'BANK_ACCOUNT', accountProcessor());
  const id = `${accountId}-retry`;
  const name = accounts.streamOf(id);
  const created = await accounts.append(id, new Event('ACCOUNT_CREATION', { id }));
  assert.equal(created.version, 0);
  // Another writer, around the entity.
  await client.append(name, { type: 'TRANSACTION_ACCEPTED', data: { desc: 'side', amount: 10 } });
  const stale = await accounts.appendTo(
    created,
    new Event('TRANSACTION_ACCEPTED', { desc: 'overdraw', amount: -20 }),
  );
  assert.equal(stale.attempts, 2);
  assert.equal(stale.version, 2);
  assert.equal(stale.state.balance, -10);
  assert.equal(created.state.balance, 0, 'the state in hand is not changed');
  assert.deepEqual(
    stale.newOutboundEvents.map((e) => [e.type, e.event]),
    [['accountOverdrawn', { accountId: id }]],
  );
  const record = await get(`/streams/${encodeURIComponent(name)}/state`);
  assert.equal(record.body.version, 2);
  assert.equal(record.body.data.balance, -10);

  const eventId = '0b6f2a55-3c1d-4e8f-9a7b-6c5d4e3f2a1b';
  const command = () =>
    accounts.append(id, new Event('TRANSACTION_ACCEPTED', { desc: 'once', amount: -5 }, {}, eventId));
  const first = await command();
  assert.equal(first.replayed, false);
  assert.equal(first.version, 3);
  const again = await command();
  assert.equal(again.replayed, true);
  assert.equal(again.version, 3);
  assert.equal(again.state.balance, -15);
  const head = await get(`/streams/${encodeURIComponent(name)}/head`);
  assert.equal(head.body.version, 3);
});

