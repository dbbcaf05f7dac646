// Event schemas (docs/SCHEMAS.md, "HTTP"): every route through the client,
// against the real server, and `raw` on reads and subscriptions.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ConflictError, InvalidError, NotFoundError, RejectedError } from './subject.js';
import { Server, collect, unique } from './server.js';

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

const V1 = { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'], additionalProperties: false };
// V1 plus an optional currency: backward compatible (V1 allowed no other member).
const V2 = { type: 'object', properties: { amount: { type: 'number' }, currency: { type: 'string' } }, required: ['amount'], additionalProperties: false };
// A field V1 did not require: breaks backward.
const BREAKING = { type: 'object', properties: { amount: { type: 'number' }, sku: { type: 'string' } }, required: ['amount', 'sku'], additionalProperties: false };

test('registerSchema: 201 then 200 for the same version; another schema under the label is a ConflictError', async () => {
  const type = unique('Order.Placed.');
  const first = await client.registerSchema(type, 'V1', V1);
  assert.equal(first.created, true);
  assert.equal(first.version.type, type);
  assert.equal(first.version.version, 'V1');
  assert.equal(first.version.number, 1);
  assert.deepEqual(first.version.schema, V1);
  assert.ok(first.version.registeredAt > 0);
  const again = await client.registerSchema(type, 'V1', V1);
  assert.equal(again.created, false);
  assert.equal(again.version.number, 1);
  const taken = await client.registerSchema(type, 'V1', V2).catch((e: unknown) => e);
  assert.ok(taken instanceof ConflictError, String(taken));
  assert.equal(taken.status, 409);
  const notASchema = await client.registerSchema(type, 'V9', { type: 'no-such-type' }).catch((e: unknown) => e);
  assert.ok(notASchema instanceof InvalidError, String(notASchema));
  assert.equal(notASchema.status, 400);
  assert.equal((await client.getSchemaType(type)).versions.length, 1);
});

test('checkSchema is a dry run; registerSchema refuses what it calls incompatible with a RejectedError', async () => {
  const type = unique('Order.Checked.');
  await client.registerSchema(type, 'V1', V1);
  assert.deepEqual(await client.checkSchema(type, V2), { compatible: true });
  const breaking = await client.checkSchema(type, BREAKING);
  assert.equal(breaking.compatible, false);
  assert.ok(!breaking.compatible && breaking.reason.includes('V1'), JSON.stringify(breaking));
  assert.equal((await client.getSchemaType(type)).versions.length, 1);
  const rejected = await client.registerSchema(type, 'V2', BREAKING).catch((e: unknown) => e);
  assert.ok(rejected instanceof RejectedError, String(rejected));
  assert.equal(rejected.status, 422);
  assert.equal(rejected.code, 'rejected');
});

test('getSchemaType, getSchemaVersion and listSchemas; unknown ones are NotFoundError', async () => {
  const type = unique('Order.Listed.');
  await client.registerSchema(type, 'V1', V1);
  await client.registerSchema(type, 'V2', V2);
  const found = await client.getSchemaType(type);
  assert.equal(found.type, type);
  assert.deepEqual(found.versions.map((v) => [v.version, v.number]), [['V1', 1], ['V2', 2]]);
  assert.deepEqual(found.settings, {});
  assert.deepEqual(found.upcasters, []);
  const v2 = await client.getSchemaVersion(type, 'V2');
  assert.deepEqual({ ...v2, registeredAt: 0 }, { type, version: 'V2', number: 2, schema: V2, registeredAt: 0 });
  const listed = await client.listSchemas();
  const entry = listed.types.find((t) => t.type === type);
  assert.ok(entry !== undefined, JSON.stringify(listed.types.map((t) => t.type)));
  assert.equal(entry.versions.length, 2);
  assert.equal(typeof listed.categories, 'object');
  assert.equal(typeof listed.default, 'object');

  const noType = await client.getSchemaType(unique('Nope.')).catch((e: unknown) => e);
  assert.ok(noType instanceof NotFoundError, String(noType));
  const noVersion = await client.getSchemaVersion(type, 'V7').catch((e: unknown) => e);
  assert.ok(noVersion instanceof NotFoundError, String(noVersion));
  // Checked before sending anything.
  const empty = await client.getSchemaType('').catch((e: unknown) => e);
  assert.ok(empty instanceof InvalidError && empty.status === 0, String(empty));
});

test('settings of a type, a category and the default; getSchemaSettings reads them back', async () => {
  const type = unique('Order.Set.');
  await client.registerSchema(type, 'V1', V1);
  assert.deepEqual(await client.setSchemaSettings(type, { mode: 'warn' }), { mode: 'warn' });
  // Set members replace, absent ones stay.
  assert.deepEqual(await client.setSchemaSettings(type, { compatibility: 'full' }), { mode: 'warn', compatibility: 'full' });
  assert.deepEqual((await client.getSchemaType(type)).settings, { mode: 'warn', compatibility: 'full' });
  const category = unique('cat');
  assert.deepEqual(await client.setCategorySchemaSettings(category, { mode: 'warn' }), { mode: 'warn' });
  const before = (await client.getSchemaSettings()).default;
  await client.setDefaultSchemaSettings({ compatibility: 'backward_transitive' });
  const settings = await client.getSchemaSettings();
  assert.deepEqual(settings.categories[category], { mode: 'warn' });
  assert.equal(settings.default.compatibility, 'backward_transitive');
  assert.deepEqual((await client.listSchemas()).categories[category], { mode: 'warn' });
  await client.setDefaultSchemaSettings({ compatibility: before.compatibility ?? 'backward' });

  const bad = await client.setSchemaSettings(type, { mode: 'loud' as never }).catch((e: unknown) => e);
  assert.ok(bad instanceof InvalidError && bad.status === 400, String(bad));
  const typo = await client.setSchemaSettings(type, { mod: 'warn' } as never).catch((e: unknown) => e);
  assert.ok(typo instanceof InvalidError && typo.status === 0 && typo.field === 'settings.mod', String(typo));
});

test('enforce refuses an invalid event with an InvalidError naming it; validateEvent answers without writing', async () => {
  const type = unique('Order.Enforced.');
  await client.registerSchema(type, 'V1', V1);
  await client.setSchemaSettings(type, { mode: 'enforce' });
  const stream = unique('order-');
  const refused = await client.append(stream, { type, data: { amount: 'five' } }).catch((e: unknown) => e);
  assert.ok(refused instanceof InvalidError && refused.status === 400, String(refused));
  assert.match(refused.message, /amount/);
  const ok = await client.append(stream, { type, data: { amount: 5 } });
  assert.equal(ok.firstVersion, 0);
  // Labelled with the newest version when it named none.
  assert.equal((await collect(client.readStream(stream)))[0]!.schema, 'V1');

  assert.deepEqual(await client.validateEvent(type, { amount: 5 }), { valid: true });
  const invalid = await client.validateEvent(type, { amount: 'five' }, { version: 'V1' });
  assert.equal(invalid.valid, false);
  assert.ok(!invalid.valid && invalid.pointer.includes('amount') && invalid.rule !== '', JSON.stringify(invalid));
  const unknown = await client.validateEvent(type, {}, { version: 'V7' }).catch((e: unknown) => e);
  assert.ok(unknown instanceof NotFoundError, String(unknown));
});

test('addUpcaster: reads upcast to the newest version, raw reads and subscriptions see the stored event', async () => {
  const type = unique('Order.Upcast.');
  await client.registerSchema(type, 'V1', V1);
  const stream = unique('upcast-');
  await client.append(stream, { type, schema: 'V1', data: { amount: 5 } });
  await client.registerSchema(type, 'V2', V2);
  const bad = await client.addUpcaster(type, { from: 'V1', to: 'V9' }).catch((e: unknown) => e);
  assert.ok(bad instanceof InvalidError && bad.status === 400, String(bad));
  await client.addUpcaster(type, { from: 'V1', to: 'V2', defaults: { '/currency': 'EUR' } });
  assert.deepEqual((await client.getSchemaType(type)).upcasters.map((u) => [u.from, u.to, u.defaults]), [['V1', 'V2', { '/currency': 'EUR' }]]);

  const [upcast] = await collect(client.readStream(stream));
  assert.equal(upcast!.schema, 'V2');
  assert.deepEqual(upcast!.data, { amount: 5, currency: 'EUR' });
  const [raw] = await collect(client.readStream(stream, { raw: true }));
  assert.equal(raw!.schema, 'V1');
  assert.deepEqual(raw!.data, { amount: 5 });
  const fromAll = await collect(client.readAll({ from: upcast!.position, type }));
  assert.deepEqual(fromAll[0]!.data, { amount: 5, currency: 'EUR' });
  const rawAll = await collect(client.readAll({ from: upcast!.position, type, raw: true }));
  assert.deepEqual(rawAll[0]!.data, { amount: 5 });

  const first = async (it: AsyncGenerator<{ data: unknown; schema: string }>) => {
    for await (const e of it) return e;
    throw new Error('the subscription ended');
  };
  const controller = new AbortController();
  try {
    assert.deepEqual((await first(client.subscribeStream(stream, { signal: controller.signal })))!.data, { amount: 5, currency: 'EUR' });
    assert.deepEqual((await first(client.subscribeStream(stream, { raw: true, signal: controller.signal })))!.data, { amount: 5 });
    const all = await first(client.subscribeAll({ from: upcast!.position - 1, type, signal: controller.signal }));
    assert.equal(all.schema, 'V2');
    const rawSub = await first(client.subscribeAll({ from: upcast!.position - 1, type, raw: true, signal: controller.signal }));
    assert.equal(rawSub.schema, 'V1');
  } finally {
    controller.abort();
  }
});
