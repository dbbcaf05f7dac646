// A TypeScript program that imports the package through require (CommonJS) and type-checks
// without @types/node (consumer/tsconfig.json: "types": []): the
// package's declarations need no Node types. scripts/test-typescript.sh
// checks it (and typed.mts, the same as ESM) from the tarball.
import { Client, ConflictError, dateCodec, type ClientOptions, type Codecs, type RecordedEvent, type TransportKind } from '@indelible/client';

const transport: TransportKind = 'fetch';
const options: ClientOptions = { apiKey: 'idl_x', transport, timeoutMs: 5000 };
// Bytes are Uint8Array, for event data and for a CA alike.
const ca: ClientOptions['ca'] = new Uint8Array([45, 45]);

export async function firstTypes(url: string): Promise<string[]> {
  const client = new Client(url, options);
  const stop = new AbortController();
  try {
    await client.append('typed-1', { type: 'Bytes', data: new Uint8Array([1, 2]) }, { expected: 'no_stream' });
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    const actual: number | null | undefined = err.actualVersion;
    void actual;
  }
  const seen: RecordedEvent[] = [];
  for await (const e of client.subscribeStream('typed-1', { from: 0, signal: stop.signal })) {
    seen.push(e);
    stop.abort();
  }
  void ca;
  return seen.map((e) => e.type);
}

// Typed events (README, "Typed events"): the declarations check appends
// against the union, narrow reads by type, and type the codecs.
type Orders = { type: 'Placed'; data: { at: Date } } | { type: 'Shipped'; data: { carrier: string } };
const codecs: Codecs<Orders> = { Placed: dateCodec('at') };

export async function placedTimes(url: string): Promise<number[]> {
  const client = new Client(url, { codecs });
  await client.append<Orders>('typed-2', [{ type: 'Placed', data: { at: new Date() } }, { type: 'Shipped', data: { carrier: 'DHL' } }]);
  // @ts-expect-error: 'Typo' is no type of Orders
  await client.append<Orders>('typed-2', { type: 'Typo', data: {} });
  const times: number[] = [];
  for await (const e of client.readStream<Orders>('typed-2')) if (e.type === 'Placed') times.push(e.data.at.getTime());
  return times;
}
