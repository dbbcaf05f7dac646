// Compile-time tests of typed events (README, "Typed events"): the test
// build type-checks this file, so every line here without a directive must
// compile, and every `// @ts-expect-error` line must be an error (an unused
// directive is an error too). The text after `expects:` is a piece of the
// error TypeScript must give for the line below: typed-events.test.ts
// compiles this file again without the directives and checks each line
// fails for that reason, so a generic broken another way (a type argument
// refused, a type collapsed to `any`) cannot pass for the error. Nothing
// here runs.

import type {
  Client,
  Codecs,
  CodecError,
  CommitAppend,
  Delivery,
  EventCodec,
  EventInput,
  EventShape,
  Handler,
  QueryPage,
  RecordedEvent,
} from '../src/index.js';
import { dateCodec } from '../src/index.js';

/** true when X and Y are the same type (not merely assignable either way). */
type Equal<X, Y> = (<T>() => T extends X ? 1 : 2) extends <T>() => T extends Y ? 1 : 2 ? true : false;

type OrderEvents =
  | { type: 'OrderPlaced'; data: { orderId: string; placedAt: Date; delivery?: { at: Date | null; by: string } } }
  | { type: 'OrderShipped'; data: { orderId: string } }
  | { type: 'OrderPinged' };

type Placed = Extract<OrderEvents, { type: 'OrderPlaced' }>['data'];

// Untyped use: the defaults are today's shapes, exactly.
const untypedData: Equal<RecordedEvent['data'], unknown> = true;
const untypedType: Equal<RecordedEvent['type'], string> = true;
const untypedInput: Equal<EventInput['data'], unknown> = true;
const untypedDefault: Equal<RecordedEvent, RecordedEvent<EventShape>> = true;
const noData: EventInput = { type: 'Anything' };
const anyData: EventInput = { type: 'Anything', data: new Uint8Array([1]), contentType: 'application/x-thing', tags: ['t:1'] };
// @ts-expect-error expects: 'metdata' does not exist
const misspelt: EventInput = { type: 'Anything', metdata: {} };
// Interfaces may still extend them.
export interface Annotated extends RecordedEvent {
  note: string;
}
export interface Outgoing extends EventInput {
  note?: string;
}

// A typed event read is assignable to an untyped one (what onError, helpers and arrays of RecordedEvent take).
export function widen(e: RecordedEvent<OrderEvents>): RecordedEvent {
  return e;
}

export async function appends(client: Client): Promise<void> {
  await client.append<OrderEvents>('order-1', { type: 'OrderPlaced', data: { orderId: '1', placedAt: new Date() } });
  await client.append<OrderEvents>('order-1', [{ type: 'OrderShipped', data: { orderId: '1' } }, { type: 'OrderPinged' }], { expected: 1 });
  // @ts-expect-error expects: "Typo"
  await client.append<OrderEvents>('order-1', { type: 'Typo', data: {} });
  // @ts-expect-error expects: Type 'string' is not assignable to type 'Date'
  await client.append<OrderEvents>('order-1', { type: 'OrderPlaced', data: { orderId: '1', placedAt: '2024-01-01' } });
  // @ts-expect-error expects: 'extra' does not exist
  await client.append<OrderEvents>('order-1', { type: 'OrderShipped', data: { orderId: '1', extra: 1 } });
  // @ts-expect-error expects: Property 'data' is missing
  await client.append<OrderEvents>('order-1', { type: 'OrderShipped' });
  // @ts-expect-error expects: not assignable to type 'undefined'
  await client.append<OrderEvents>('order-1', { type: 'OrderPinged', data: { orderId: '1' } });
  // @ts-expect-error expects: "Typo"
  await client.append<OrderEvents>('order-1', [{ type: 'OrderPinged' }, { type: 'Typo' }]);
  // Untyped: anything, as before, without a type argument.
  await client.append('order-1', { type: 'Whatever', data: { placedAt: 'a string' } });
  await client.append('order-1', [{ type: 'A' }, { type: 'B', data: 1, schema: 'V1' }]);
}

export async function commits(client: Client): Promise<void> {
  await client.commit<OrderEvents>([
    { stream: 'order-1', expected: 'no_stream', events: [{ type: 'OrderPlaced', data: { orderId: '1', placedAt: new Date() } }] },
    { stream: 'order-2', events: [{ type: 'OrderShipped', data: { orderId: '2' } }] },
  ]);
  // @ts-expect-error expects: "Typo"
  await client.commit<OrderEvents>([{ stream: 'order-1', events: [{ type: 'Typo', data: {} }] }]);
  // Appends typed apart commit under the union of their types.
  const placed: CommitAppend<OrderEvents> = { stream: 'order-3', events: [{ type: 'OrderPinged' }] };
  const other: CommitAppend<{ type: 'Audited'; data: { by: string } }> = { events: [{ type: 'Audited', data: { by: 'ann' } }] };
  await client.commit<OrderEvents | { type: 'Audited'; data: { by: string } }>([placed, other]);
  await client.commit([{ stream: 'x', events: [{ type: 'Untyped', data: 1 }] }]);
}

export async function reads(client: Client): Promise<void> {
  for await (const e of client.readStream<OrderEvents>('order-1')) {
    if (e.type === 'OrderPlaced') {
      const at: Date = e.data.placedAt;
      const when: Date | null | undefined = e.data.delivery?.at;
      void at, when;
    } else if (e.type === 'OrderPinged') {
      const nothing: Equal<typeof e.data, null> = true;
      void nothing;
    } else {
      const shipped: Equal<typeof e.data, { orderId: string }> = true;
      void shipped;
      // @ts-expect-error expects: Property 'placedAt' does not exist
      void e.data.placedAt;
    }
    const version: number = e.version;
    void version;
  }
  for await (const e of client.readAll<OrderEvents>({ category: 'order', from: 1 })) {
    if (e.type === 'OrderShipped') {
      const id: string = e.data.orderId;
      void id;
    }
  }
  const page: QueryPage<OrderEvents> = await client.readQuery<OrderEvents>({ items: [{ types: ['OrderPlaced'] }] });
  const first = page.events[0];
  if (first?.type === 'OrderPlaced') first.data.placedAt.getTime();
  for await (const e of client.readQueryAll<OrderEvents>({ items: [] }, { direction: 'backward' })) {
    // @ts-expect-error expects: Property 'placedAt' does not exist
    void e.data.placedAt;
  }
  const found = await client.findEvent<OrderEvents>('id');
  if (found?.type === 'OrderPlaced') found.data.placedAt.toISOString();
  // Raw reads are as stored, not of the union: only an untyped read may ask.
  // @ts-expect-error expects: Type 'true' is not assignable to type 'false'
  client.readStream<OrderEvents>('order-1', { raw: true });
  // @ts-expect-error expects: Type 'true' is not assignable to type 'false'
  client.subscribeAll<OrderEvents>({ raw: true });
  client.readStream<OrderEvents>('order-1', { raw: false });
  for await (const e of client.readStream('order-1', { raw: true })) {
    const data: unknown = e.data;
    const type: string = e.type;
    void data, type;
  }
  // Untyped reads: data unknown, as before.
  for await (const e of client.readStream('order-1')) {
    // @ts-expect-error expects: is of type 'unknown'
    void e.data.placedAt;
  }
}

export async function subscriptions(client: Client, signal: AbortSignal): Promise<void> {
  for await (const e of client.subscribeStream<OrderEvents>('order-1', { from: 0, signal })) {
    if (e.type === 'OrderPlaced') e.data.placedAt.getTime();
  }
  for await (const e of client.subscribeAll<OrderEvents>({ category: 'order', from: 'end', signal })) {
    if (e.type === 'OrderShipped') e.data.orderId.toUpperCase();
  }
  for await (const e of client.subscribeQuery<OrderEvents>({ items: [{ types: ['OrderPlaced'] }] }, { signal })) {
    if (e.type === 'OrderPlaced') e.data.placedAt.getTime();
  }
}

export async function consumers(client: Client): Promise<void> {
  const deliveries: Delivery<OrderEvents>[] = await client.consumers.pull<OrderEvents>('orders', { max: 10 });
  for (const d of deliveries) if (d.event.type === 'OrderPlaced') d.event.data.placedAt.getTime();
  const handler: Handler<OrderEvents> = async (event, delivery) => {
    if (event.type === 'OrderPlaced') event.data.placedAt.getTime();
    const attempt: number = delivery.attempt;
    void attempt;
  };
  await client.worker<OrderEvents>('orders', handler).stop();
  await client
    .worker<OrderEvents>('orders', async (event) => {
      // @ts-expect-error expects: Property 'placedAt' does not exist
      void event.data.placedAt;
    })
    .stop();
  // Untyped: the handler's event is a RecordedEvent, as before.
  await client
    .worker('orders', async (event) => {
      const same: Equal<typeof event, RecordedEvent> = true;
      void same;
    })
    .stop();
}

// Codecs: checked against the union's types and data where it is given.
export const codecs: Codecs<OrderEvents> = {
  OrderPlaced: dateCodec('placedAt', 'delivery.at'),
  OrderShipped: { encode: (data) => ({ ...data, orderId: data.orderId.toUpperCase() }), decode: (stored: { orderId: string }) => stored },
};
export const notADate: Codecs<OrderEvents> = {
  // @ts-expect-error expects: Argument of type '"orderId"' is not assignable
  OrderPlaced: dateCodec('orderId'),
};
export const unknownType: Codecs<OrderEvents> = {
  // @ts-expect-error expects: 'Typo' does not exist
  Typo: dateCodec('x'),
};
export const wrongDecode: Codecs<OrderEvents> = {
  // @ts-expect-error expects: Type 'number' is not assignable to type 'string'
  OrderShipped: { decode: () => ({ orderId: 1 }) },
};
// Untyped codecs: any type, any field.
export const loose: Codecs = { Anything: dateCodec('at', 'deep.at'), Bytes: { decode: (b: Uint8Array) => b.length } };
export const placedCodec: EventCodec<Placed> = dateCodec<Placed>('placedAt');
export function options(client: typeof Client): Client {
  return new client('http://127.0.0.1:2113', { codecs });
}

export function codecErrors(err: CodecError): string {
  const op: 'encode' | 'decode' = err.operation;
  const version: number | undefined = err.version;
  void version;
  return `${op} ${err.eventType} ${err.stream ?? ''} ${err.position ?? ''}`;
}

void untypedData, untypedType, untypedInput, untypedDefault, noData, anyData, misspelt;
