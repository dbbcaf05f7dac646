// Typed events (README, "Typed events"): codecs applied both ways on every
// path against the real server (append, commit, reads, findEvent,
// subscriptions, pulls, workers), `raw` reads without them, a codec's throw
// as a CodecError that names the event and leaves nothing half written,
// untyped use unchanged; and the compile-time tests of
// typed-events.types.ts (and the README's example) checked to fail for the
// reason each `@ts-expect-error` names.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { Client, CodecError, InvalidError, NotFoundError, dateCodec, type Codecs, type EventCodec, type RecordedEvent } from './subject.js';
import { Server, collect, sleep, unique } from './server.js';

type OrderEvents =
  | { type: 'OrderPlaced'; data: { orderId: string; placedAt: Date; delivery?: { at: Date | null } } }
  | { type: 'OrderShipped'; data: { orderId: string } }
  | { type: 'Note'; data: string };

const text = new TextEncoder();
const fromBytes = new TextDecoder();
/** Stores a Note's text as bytes (a codec may make byte data): shows both directions at a glance. */
const noteCodec: EventCodec<string, Uint8Array> = {
  encode: (note) => {
    if (typeof note !== 'string') throw new TypeError(`a note is text, not ${typeof note}`);
    return text.encode(note);
  },
  decode: (bytes) => fromBytes.decode(bytes),
};
const codecs: Codecs<OrderEvents> = { OrderPlaced: dateCodec('placedAt', 'delivery.at'), Note: noteCodec };

const placedAt = new Date('2024-05-01T10:00:00.000Z');
const deliveredAt = new Date('2024-05-03T16:30:00.000Z');

let server: Server;
/** With the codecs. */
let typed: Client;
/** Without: sees what is stored. */
let plain: Client;

before(async () => {
  server = await Server.start();
  typed = new Client(server.url, { codecs });
  plain = new Client(server.url);
});
after(async () => {
  typed.close();
  plain.close();
  await server.stop();
});

/** The first event of a subscription, then it is left (its connection closed). */
async function first<T>(it: AsyncGenerator<T>): Promise<T> {
  for await (const e of it) return e;
  throw new Error('the subscription ended without an event');
}

/** Events by their version, for comparisons that ignore ids and positions. */
const dataOf = (events: RecordedEvent[]) => events.map((e) => [e.type, e.data]);

test('append and readStream: Dates go out as ISO strings and come back as Dates; the input is not changed', async () => {
  const stream = unique('order-');
  const input = { type: 'OrderPlaced', data: { orderId: '1', placedAt, delivery: { at: deliveredAt } } } as const;
  await typed.append<OrderEvents>(stream, input, { expected: 'no_stream' });
  await typed.append<OrderEvents>(stream, [{ type: 'OrderShipped', data: { orderId: '1' } }, { type: 'Note', data: 'left at the door' }]);
  assert.equal(input.data.placedAt, placedAt, 'the codec copied, it did not change the event');

  const stored = await collect(plain.readStream(stream));
  assert.deepEqual(stored[0]!.data, { orderId: '1', placedAt: '2024-05-01T10:00:00.000Z', delivery: { at: '2024-05-03T16:30:00.000Z' } });
  assert.equal(stored[2]!.contentType, 'application/octet-stream', 'the Note codec made byte data');
  assert.deepEqual([...(stored[2]!.data as Uint8Array)], [...text.encode('left at the door')]);

  const read = await collect(typed.readStream<OrderEvents>(stream));
  const [placed, shipped, note] = read;
  assert.ok(placed?.type === 'OrderPlaced' && placed.data.placedAt instanceof Date);
  assert.equal(placed.data.placedAt.getTime(), placedAt.getTime());
  assert.equal(placed.data.delivery?.at?.getTime(), deliveredAt.getTime());
  assert.deepEqual(shipped?.data, { orderId: '1' }, 'a type without a codec passes as it is');
  assert.equal(note?.data, 'left at the door');
  // Backward too, and with a page size that splits the stream.
  const backward = await collect(typed.readStream<OrderEvents>(stream, { direction: 'backward', pageSize: 1 }));
  assert.deepEqual(dataOf(backward).reverse(), dataOf(read));
});

test('commit: every append\'s events encoded; readAll, readQuery, readQueryAll and findEvent decode', async () => {
  const category = unique('shop');
  const tag = unique('order:');
  const result = await typed.commit<OrderEvents>([
    { stream: `${category}-1`, expected: 'no_stream', events: [{ type: 'OrderPlaced', data: { orderId: '1', placedAt }, tags: [tag] }] },
    { stream: `${category}-2`, events: [{ type: 'OrderPlaced', data: { orderId: '2', placedAt: deliveredAt } }, { type: 'Note', data: 'gift' }] },
  ]);
  const stored = await collect(plain.readAll({ category, from: result.position - 2 }));
  assert.deepEqual(
    stored.map((e) => (e.type === 'OrderPlaced' ? (e.data as { placedAt: string }).placedAt : e.data instanceof Uint8Array)),
    ['2024-05-01T10:00:00.000Z', '2024-05-03T16:30:00.000Z', true],
  );

  const all = await collect(typed.readAll<OrderEvents>({ category, from: result.position - 2 }));
  assert.deepEqual(
    all.map((e) => (e.type === 'OrderPlaced' ? e.data.placedAt.toISOString() : e.data)),
    ['2024-05-01T10:00:00.000Z', '2024-05-03T16:30:00.000Z', 'gift'],
  );
  const query = { items: [{ types: ['OrderPlaced'], tags: [tag] }] };
  const page = await typed.readQuery<OrderEvents>(query);
  assert.equal(page.events.length, 1);
  const [only] = page.events;
  assert.ok(only?.type === 'OrderPlaced' && only.data.placedAt.getTime() === placedAt.getTime());
  const pages = await collect(typed.readQueryAll<OrderEvents>({ items: [{ types: ['Note'] }] }, { direction: 'backward', pageSize: 1 }));
  assert.equal(pages[0]?.data, 'gift');
  const found = await typed.findEvent<OrderEvents>(only.id);
  assert.ok(found?.type === 'OrderPlaced' && found.data.placedAt instanceof Date);
  assert.equal(await typed.findEvent(crypto.randomUUID()), null);
});

test('raw reads and subscriptions skip the codecs: the events as stored', async () => {
  const stream = unique('order-');
  const { position } = await typed.append<OrderEvents>(stream, { type: 'OrderPlaced', data: { orderId: '1', placedAt } });
  const [raw] = await collect(typed.readStream(stream, { raw: true }));
  assert.deepEqual(raw!.data, { orderId: '1', placedAt: '2024-05-01T10:00:00.000Z' });
  const [rawAll] = await collect(typed.readAll({ from: position, raw: true }));
  assert.equal((rawAll!.data as { placedAt: unknown }).placedAt, '2024-05-01T10:00:00.000Z');
  const { events } = await typed.readQuery({ items: [{ types: ['OrderPlaced'] }] }, { from: position, raw: true });
  assert.equal((events[0]!.data as { placedAt: unknown }).placedAt, '2024-05-01T10:00:00.000Z');
  const stop = new AbortController();
  try {
    const sub = await first(typed.subscribeStream(stream, { raw: true, signal: stop.signal }));
    assert.equal((sub.data as { placedAt: unknown }).placedAt, '2024-05-01T10:00:00.000Z');
  } finally {
    stop.abort();
  }
});

test('decode applies to the upcast shape: a field the upcaster adds is decoded too, a raw read has neither', async () => {
  const type = unique('Order.Dated.');
  const V1 = { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'], additionalProperties: false };
  const V2 = { type: 'object', properties: { orderId: { type: 'string' }, placedAt: { type: 'string' } }, required: ['orderId'], additionalProperties: false };
  await plain.registerSchema(type, 'V1', V1);
  const stream = unique('upcast-');
  await plain.append(stream, { type, schema: 'V1', data: { orderId: '7' } });
  await plain.registerSchema(type, 'V2', V2);
  await plain.addUpcaster(type, { from: 'V1', to: 'V2', defaults: { '/placedAt': '2020-01-01T00:00:00.000Z' } });
  const client = new Client(server.url, { codecs: { [type]: dateCodec('placedAt') } });
  try {
    const [upcast] = await collect(client.readStream(stream));
    assert.equal(upcast!.schema, 'V2');
    const data = upcast!.data as { orderId: string; placedAt: Date };
    assert.ok(data.placedAt instanceof Date && data.placedAt.getTime() === Date.UTC(2020, 0, 1));
    const [raw] = await collect(client.readStream(stream, { raw: true }));
    assert.deepEqual([raw!.schema, raw!.data], ['V1', { orderId: '7' }]);
  } finally {
    client.close();
  }
});

test('subscribeStream, subscribeAll and subscribeQuery decode, catch-up and live alike', async () => {
  const category = unique('sub');
  const stream = `${category}-1`;
  const { position } = await typed.append<OrderEvents>(stream, { type: 'OrderPlaced', data: { orderId: '1', placedAt } });
  const stop = new AbortController();
  try {
    const fromStream = await first(typed.subscribeStream<OrderEvents>(stream, { from: 0, signal: stop.signal }));
    assert.ok(fromStream.type === 'OrderPlaced' && fromStream.data.placedAt.getTime() === placedAt.getTime());
    const fromAll = await first(typed.subscribeAll<OrderEvents>({ category, from: position, signal: stop.signal }));
    assert.ok(fromAll.type === 'OrderPlaced' && fromAll.data.placedAt instanceof Date);
    // Live: the subscription is open before the event is written.
    const live = first(typed.subscribeQuery<OrderEvents>({ items: [{ types: ['Note'] }] }, { from: 'end', signal: stop.signal }));
    await sleep(200);
    await typed.append<OrderEvents>(stream, { type: 'Note', data: 'live' });
    const note = await live;
    assert.deepEqual([note.type, note.data], ['Note', 'live']);
  } finally {
    stop.abort();
  }
});

test('consumers.pull and worker decode; the handler gets the same event in its delivery', async () => {
  const category = unique('cg');
  const group = unique('g-');
  await typed.consumers.create(group, { category });
  await typed.append<OrderEvents>(`${category}-1`, [
    { type: 'OrderPlaced', data: { orderId: '1', placedAt } },
    { type: 'Note', data: 'n1' },
  ]);
  const pulled = await typed.consumers.pull<OrderEvents>(group, { consumer: 'p', waitMs: 2000 });
  assert.deepEqual(
    pulled.map((d) => (d.event.type === 'OrderPlaced' ? d.event.data.placedAt.getTime() : d.event.data)),
    [placedAt.getTime(), 'n1'],
  );
  await typed.consumers.ack(group, pulled.map((d) => d.event.position));

  await typed.append<OrderEvents>(`${category}-2`, [{ type: 'OrderPlaced', data: { orderId: '2', placedAt: deliveredAt } }, { type: 'Note', data: 'n2' }]);
  const seen: unknown[] = [];
  const worker = typed.worker<OrderEvents>(
    group,
    async (event, delivery) => {
      assert.equal(delivery.event, event);
      seen.push(event.type === 'OrderPlaced' ? event.data.placedAt : event.data);
    },
    { waitMs: 200, onError: (err) => seen.push(err) },
  );
  const t0 = Date.now();
  while (seen.length < 2 && Date.now() - t0 < 10000) await sleep(20);
  await worker.stop();
  assert.equal(seen.length, 2, String(seen));
  assert.ok(seen[0] instanceof Date && seen[0].getTime() === deliveredAt.getTime(), String(seen[0]));
  assert.equal(seen[1], 'n2');
});

test("an encoder's throw is a CodecError naming the event; nothing of the append or commit is written", async () => {
  const stream = unique('order-');
  const bad = { type: 'OrderPlaced', data: { orderId: '2', placedAt: new Date('not a date') } } as const;
  const err = await typed.append<OrderEvents>(stream, [{ type: 'OrderPlaced', data: { orderId: '1', placedAt } }, bad]).catch((e: unknown) => e);
  assert.ok(err instanceof CodecError, String(err));
  assert.equal(err.code, 'codec');
  assert.equal(err.status, 0);
  assert.equal(err.operation, 'encode');
  assert.equal(err.eventType, 'OrderPlaced');
  assert.equal(err.field, 'events[1].data');
  assert.ok(err.cause instanceof RangeError);
  assert.match(err.message, /append: events\[1\]\.data: the codec of event type "OrderPlaced" could not encode it: placedAt is an invalid Date; nothing was sent/);
  await assert.rejects(plain.head(stream), NotFoundError);

  // A commit: the first append's events were fine, the second's codec threw.
  const other = unique('order-');
  const wrong = { type: 'Note', data: 42 } as unknown as { type: 'Note'; data: string };
  const commitErr = await typed
    .commit<OrderEvents>([
      { stream: other, events: [{ type: 'OrderShipped', data: { orderId: '1' } }] },
      { stream, events: [{ type: 'Note', data: 'fine' }, wrong] },
    ])
    .catch((e: unknown) => e);
  assert.ok(commitErr instanceof CodecError, String(commitErr));
  assert.equal(commitErr.field, 'appends[1].events[1].data');
  assert.equal(commitErr.eventType, 'Note');
  assert.match(commitErr.message, /^indelible: commit: appends\[1\]\.events\[1\]\.data: the codec of event type "Note" could not encode it: a note is text, not number; nothing was sent$/);
  await assert.rejects(plain.head(other), NotFoundError);
  await assert.rejects(plain.head(stream), NotFoundError);
  // The lone event of an append is `event`.
  const lone = await typed.append<OrderEvents>(stream, bad).catch((e: unknown) => e);
  assert.ok(lone instanceof CodecError && lone.field === 'event.data', String(lone));
});

test("a decoder's throw is a CodecError naming the type, stream, version and position, on every read path", async () => {
  const category = unique('poison');
  const stream = `${category}-1`;
  // Written without the codecs: a date the decoder refuses.
  await plain.append(stream, [{ type: 'OrderShipped', data: { orderId: '0' } }, { type: 'OrderPlaced', data: { orderId: '1', placedAt: 'yesterday' } }]);
  const [, poison] = await collect(plain.readStream(stream));
  const check = (err: unknown, where: RegExp) => {
    assert.ok(err instanceof CodecError, String(err));
    assert.equal(err.operation, 'decode');
    assert.equal(err.eventType, 'OrderPlaced');
    assert.equal(err.stream, stream);
    assert.equal(err.version, 1);
    assert.equal(err.position, poison!.position);
    assert.equal(err.status, 200);
    assert.ok(err.cause instanceof RangeError);
    assert.ok(err.message.includes(`could not decode event ${stream}@1 (position ${poison!.position}): placedAt is "yesterday", not a date`), err.message);
    assert.match(err.message, where);
  };
  check(await collect(typed.readStream(stream)).catch((e: unknown) => e), /GET \/streams\//);
  check(await collect(typed.readAll({ category })).catch((e: unknown) => e), /GET \/all/);
  check(await typed.readQuery({ items: [{ types: ['OrderPlaced'] }] }, { from: poison!.position }).catch((e: unknown) => e), /\/query/);
  check(await typed.findEvent(poison!.id).catch((e: unknown) => e), /GET \/events\//);

  // A subscription ends with it (the same event would come again), after the events before it.
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 10000);
  const before: string[] = [];
  try {
    const err = await (async () => {
      for await (const e of typed.subscribeStream(stream, { from: 0, signal: stop.signal })) before.push(e.type);
    })().catch((e: unknown) => e);
    assert.ok(!stop.signal.aborted, 'the subscription threw rather than reconnecting');
    check(err, /GET \/subscribe\/streams\//);
    assert.deepEqual(before, ['OrderShipped']);
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
  // Raw: no codec, no error.
  assert.equal((await collect(typed.readStream(stream, { raw: true }))).length, 2);

  // A pull fails whole.
  const group = unique('g-');
  await typed.consumers.create(group, { category });
  check(await typed.consumers.pull(group, { consumer: 'p', waitMs: 2000 }).catch((e: unknown) => e), /POST \/consumers\/.*\/pull/);
});

test('a worker nacks an event it cannot decode, tells onError with the event as stored, and goes on with other streams', async () => {
  const category = unique('wpoison');
  const group = unique('g-');
  await typed.consumers.create(group, { category, policy: 'park', maxAttempts: 1 });
  await plain.append(`${category}-a`, [
    { type: 'OrderShipped', data: { orderId: 'a0' } },
    { type: 'OrderPlaced', data: { orderId: 'a1', placedAt: 12 } },
    { type: 'OrderShipped', data: { orderId: 'a2' } },
  ]);
  await typed.append<OrderEvents>(`${category}-b`, { type: 'OrderPlaced', data: { orderId: 'b0', placedAt } });
  const handled: string[] = [];
  const errors: Array<[unknown, RecordedEvent | undefined]> = [];
  const worker = typed.worker<OrderEvents>(
    group,
    async (event) => {
      if (event.type === 'OrderPlaced') handled.push(`${event.data.orderId}:${event.data.placedAt.toISOString()}`);
      else if (event.type === 'OrderShipped') handled.push(event.data.orderId);
    },
    { waitMs: 200, onError: (err, event) => errors.push([err, event]) },
  );
  const t0 = Date.now();
  while ((handled.length < 2 || errors.length < 1) && Date.now() - t0 < 10000) await sleep(20);
  // Long enough for a2 to come, were it (wrongly) handled after a1's failure.
  await sleep(500);
  await worker.stop();
  assert.deepEqual(handled.sort(), ['a0', 'b0:2024-05-01T10:00:00.000Z']);
  assert.equal(errors.length, 1, String(errors.map((e) => e[0])));
  const [err, event] = errors[0]!;
  assert.ok(err instanceof CodecError && err.operation === 'decode' && err.version === 1, String(err));
  assert.match(err.message, /POST \/consumers\/.*\/pull: the codec of event type "OrderPlaced" could not decode event .*-a@1 .*: placedAt is 12, not a date string/);
  assert.deepEqual(event?.data, { orderId: 'a1', placedAt: 12 }, 'onError gets the event as stored');
  // Nacked with the codec's message: parked (maxAttempts 1), a2 behind it.
  const status = await typed.consumers.get(group);
  assert.equal(status.parked.streams, 1);
  assert.equal(status.inFlight, 0);
});

test('untyped use is unchanged: no codecs, nothing encoded or decoded, with or without a type argument', async () => {
  const stream = unique('plain-');
  // JSON.stringify makes the Date a string, as it always did; it reads back as that string.
  await plain.append(stream, [{ type: 'OrderPlaced', data: { orderId: '1', placedAt } }, { type: 'Note', data: 'text' }]);
  const events = await collect(plain.readStream(stream));
  assert.deepEqual(dataOf(events), [
    ['OrderPlaced', { orderId: '1', placedAt: '2024-05-01T10:00:00.000Z' }],
    ['Note', 'text'],
  ]);
  // A type argument changes types only: the same events, the same values.
  const typedRead = await collect(plain.readStream<OrderEvents>(stream));
  assert.deepEqual(dataOf(typedRead), dataOf(events));
  // The codecs only touch their own types; other types pass through a client that has some.
  await plain.append(stream, { type: 'Untyped', data: { placedAt: 'not touched' } });
  const [last] = await collect(typed.readStream(stream, { from: 2 }));
  assert.deepEqual(last!.data, { placedAt: 'not touched' });
});

test('codecs are checked when the client is made', () => {
  const bad = (codecs: unknown, field: string) => {
    assert.throws(
      () => new Client(server.url, { codecs } as never),
      (err: unknown) => err instanceof InvalidError && err.status === 0 && err.field === field,
      field,
    );
  };
  bad([], 'codecs');
  bad({ A: null }, 'codecs["A"]');
  bad({ A: {} }, 'codecs["A"]');
  bad({ A: { decod: () => 1 } }, 'codecs["A"].decod');
  bad({ A: { encode: 'x' } }, 'codecs["A"].encode');
  // A class's instance may hold members of its own; `undefined` members are left out.
  class Upper {
    readonly calls = 0;
    encode(s: string) {
      return s.toUpperCase();
    }
  }
  const ok = new Client(server.url, { codecs: { A: new Upper(), B: undefined } as never });
  ok.close();
  assert.throws(() => dateCodec('a..b' as never), (err: unknown) => err instanceof InvalidError && err.field === 'fields[0]');
});

test('dateCodec: copies, leaves missing fields and data alone, refuses what is not a date', () => {
  const codec = dateCodec<{ at: Date; more?: { at?: Date | null } }>('at', 'more.at');
  const data = { at: placedAt, more: { at: null } };
  const stored = codec.encode!(data);
  assert.deepEqual(stored, { at: '2024-05-01T10:00:00.000Z', more: { at: null } });
  assert.equal(data.at, placedAt);
  assert.deepEqual(codec.decode!({ at: '2024-05-01T10:00:00.000Z' }), { at: placedAt });
  assert.equal(codec.decode!(null), null);
  assert.throws(() => codec.encode!({ at: '2024-05-01' as never }), /at is "2024-05-01", not a Date/);
  assert.throws(() => codec.decode!({ at: 'soon' }), /at is "soon", not a date/);
  assert.throws(() => codec.decode!({ at: '2024-05-01T10:00:00.000Z', more: 5 }), /more is 5, not an object/);
  assert.throws(() => codec.decode!([1]), /the data is an array, not an object/);
  assert.throws(() => codec.decode!(new Uint8Array(1)), /the data is bytes/);
});

// -- compile-time tests, checked for their reasons ---------------------------

// build-test/test/typed-events.test.js -> the package folder is two levels up.
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The diagnostics of `files` (path -> text, in test/), compiled as the test
 * build compiles (test/tsconfig.json) with the texts given in place of the files.
 */
function diagnose(files: Map<string, string>): readonly ts.Diagnostic[] {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(packageRoot, 'test', 'tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  })!;
  const options: ts.CompilerOptions = { ...config.options, noEmit: true };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, onError, create) => {
    const given = files.get(path.resolve(name));
    return given !== undefined ? ts.createSourceFile(name, given, language) : getSourceFile.call(host, name, language, onError, create);
  };
  host.fileExists = (name) => files.has(path.resolve(name)) || fileExists.call(host, name);
  host.readFile = (name) => files.get(path.resolve(name)) ?? readFile.call(host, name);
  const program = ts.createProgram([...files.keys()], options, host);
  return ts.getPreEmitDiagnostics(program).filter((d) => d.file !== undefined && files.has(path.resolve(d.file.fileName)));
}

/** `file:line: message` for each diagnostic. */
function describeDiagnostics(list: readonly ts.Diagnostic[]): string[] {
  return list.map((d) => {
    const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
    return `${path.basename(d.file!.fileName)}:${line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
}

test("typed-events.types.ts: each @ts-expect-error line fails for the reason it names, and nothing else fails", () => {
  const file = path.join(packageRoot, 'test', 'typed-events.types.ts');
  const source = readFileSync(file, 'utf8').split('\n');
  // Line numbers (1-based) of the lines below a directive, and what their error must say.
  const expected = new Map<number, string>();
  const stripped = source.map((line, i) => {
    const m = /^\s*\/\/ @ts-expect-error expects: (.*)$/.exec(line);
    if (!m) {
      assert.ok(!line.includes('@ts-expect-error '), `line ${i + 1}: a directive without "expects:"`);
      return line;
    }
    expected.set(i + 2, m[1]!.trim());
    return '';
  });
  assert.ok(expected.size >= 15, `only ${expected.size} directives found`);
  const byLine = new Map<number, string[]>();
  for (const d of diagnose(new Map([[file, stripped.join('\n')]]))) {
    const line = d.file!.getLineAndCharacterOfPosition(d.start ?? 0).line + 1;
    byLine.set(line, [...(byLine.get(line) ?? []), ts.flattenDiagnosticMessageText(d.messageText, ' ')]);
  }
  for (const [line, why] of expected) {
    const messages = byLine.get(line) ?? [];
    assert.ok(messages.some((m) => m.includes(why)), `typed-events.types.ts:${line}: expected an error saying ${JSON.stringify(why)}, got ${JSON.stringify(messages)}`);
  }
  const unexpected = [...byLine.keys()].filter((line) => !expected.has(line));
  assert.deepEqual(unexpected.map((line) => `${line}: ${byLine.get(line)!.join('; ')}`), []);
});

test('the README\'s "Typed events" examples type-check', () => {
  const readme = readFileSync(path.join(packageRoot, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Typed events\n');
  assert.ok(start >= 0, 'README.md has a "Typed events" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
  assert.ok(blocks.length >= 2, `${blocks.length} ts examples in the section`);
  // Each as a program of the package would import it; these find the sources.
  const files = new Map(blocks.map((code, i) => [path.join(packageRoot, 'test', `readme-typed-events-${i}.ts`), code.replaceAll("from '@indelible/client'", "from '../src/index.js'")]));
  assert.deepEqual(describeDiagnostics(diagnose(files)), []);
});
